# bench/lib.sh: what the benchmarks that time a small program linked against
# the core library share (sourced by bench/dedup.sh and bench/logjson.sh).
#
# bench_program NAME [BUILDDIR]: compile bench/NAME.c against
# BUILDDIR/libevalset-core.a (default: build, as tools/dev.sh builds it)
# into $tmp/NAME. Sets src (the source tree), build and tmp (a scratch
# directory removed on exit).
bench_program() {
	local name=$1 lib
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	build=$(cd "${2:-$src/build}" && pwd)
	lib=$build/libevalset-core.a
	[ -f "$lib" ] || { echo "bench/$name.sh: no $lib (build it first)" >&2; exit 2; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -I"$src/core" -o "$tmp/$name" "$src/bench/$name.c" "$lib" \
		$(pkg-config --libs libcurl libcjson yaml-0.1 libcrypto libutf8proc zlib) -lm -lpthread
}
