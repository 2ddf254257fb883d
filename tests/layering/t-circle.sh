#!/usr/bin/env bash
# The layering test's circle check, tested on a made-up library: a tree with
# every wing of check.sh, and a score wing of three small files compiled into
# a thin archive as meson builds libevalset-core.a. Calls that go one way
# (a -> b -> c) must pass; a call back (c -> a, a circle through b) and a
# direct one (b -> a) must fail, naming the files and the calls that close
# the circle. Needs a C compiler, ar, nm and tsort.
#
# usage: t-circle.sh SRCDIR   (TAP on stdout)
set -uo pipefail
src=$1
check=$src/tests/layering/check.sh
cc=${CC:-cc}
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; }
for tool in "$cc" ar nm tsort; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP $tool not found"
		exit 0
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the tree: every wing check.sh lists, each with one empty file
eval "$(grep -m1 '^wings=' "$check")"
for w in "${wings[@]}"; do
	mkdir -p "$tmp/src/core/$w"
	printf 'int %s_nothing(void);\nint %s_nothing(void) { return 0; }\n' "$w" "$w" > "$tmp/src/core/$w/$w.c"
done

# the other wings' objects, the same in every build: compiled once
mkdir -p "$tmp/wings"
for w in "${wings[@]}"; do
	[ "$w" = score ] && continue
	"$cc" -c -o "$tmp/wings/core_${w}_$w.c.o" "$tmp/src/core/$w/$w.c" || { echo "Bail out! $cc could not compile the wing $w"; exit 1; }
done

# build DIR A B C: the score wing's files a.c, b.c, c.c, each calling the
# function of the files named (A: what a.c calls, and so on), into DIR
build() {
	local dir=$tmp/$1 f callees
	shift
	rm -rf "$dir"
	mkdir -p "$dir/libevalset-core.a.p"
	for f in a b c; do
		callees=$1
		shift
		{
			for g in $callees; do printf 'int fn_%s(void);\n' "$g"; done
			printf 'int fn_%s(void);\nint fn_%s(void)\n{\n\treturn 0' "$f" "$f"
			for g in $callees; do printf ' + fn_%s()' "$g"; done
			printf ';\n}\n'
		} > "$tmp/src/core/score/$f.c"
		"$cc" -c -o "$dir/libevalset-core.a.p/core_score_$f.c.o" "$tmp/src/core/score/$f.c" || return 1
	done
	cp "$tmp"/wings/*.o "$dir/libevalset-core.a.p/"
	(cd "$dir" && ar rcT libevalset-core.a libevalset-core.a.p/*.o)
}

# verdict DIR: the TAP line check.sh gives the score wing, and what follows it
# (its exit status is the lines' business here)
verdict() {
	{ bash "$check" "$tmp/src" "$tmp/$1" || :; } | sed -n '/wing score: \(calls\|files\)/,/^\(not \)\?ok/p'
}

if build oneway "b" "c" "" && out=$(verdict oneway) &&
	grep -q '^ok .* wing score: calls between its files go one way' <<<"$out"; then
	ok "calls one way (a -> b -> c) pass"
else
	notok "calls one way (a -> b -> c) pass"; printf '# %s\n' "$out"
fi

if build loop "b" "c" "a" && out=$(verdict loop) &&
	grep -q '^not ok .* wing score: files call each other in a circle' <<<"$out" &&
	grep -q '^#   c calls a$' <<<"$out" && grep -q '^#   a calls b$' <<<"$out"; then
	ok "a circle through three files (a -> b -> c -> a) fails, naming its calls"
else
	notok "a circle through three files (a -> b -> c -> a) fails, naming its calls"; printf '# %s\n' "$out"
fi

if build back "b" "a" "" && out=$(verdict back) &&
	grep -q '^not ok .* wing score: files call each other in a circle' <<<"$out" &&
	grep -q '^#   b calls a$' <<<"$out" && ! grep -q 'calls c' <<<"$out"; then
	ok "two files calling each other (a <-> b) fail; c, outside the circle, is not named"
else
	notok "two files calling each other (a <-> b) fail; c, outside the circle, is not named"; printf '# %s\n' "$out"
fi

echo "1..$n"
[ "$bad" -eq 0 ]
