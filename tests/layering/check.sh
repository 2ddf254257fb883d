#!/usr/bin/env bash
# The wings of core/ in their one allowed order, bottom first: a file in a
# wing may include headers of its own wing and of wings listed before it,
# never of a wing listed after it (docs/architecture.md). cmd/ sits above
# every wing. Also: every core file lives in a listed wing, and includes of
# core headers name their wing ("base/strbuf.h", not "strbuf.h").
#
# With BUILDDIR (a build of the tree), also: inside each wing, calls
# between files go one way. From the symbols of the library's objects, a file
# that calls a function another file of its wing defines depends on it; no
# two files of a wing may depend on each other, directly or in a circle (a
# module split for length has a driver calling its stages, never back).
#
# usage: check.sh SRCDIR [BUILDDIR]   (TAP on stdout; exit 1 on any violation)
set -uo pipefail
src=${1:-.}
build=${2:-}
wings=(base text set chunk score interop logs retrieve llm compare pool report review)

declare -A rank
for i in "${!wings[@]}"; do rank[${wings[$i]}]=$i; done

n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; }

# every file under core/ is inside a known wing
stray=()
while IFS= read -r f; do
	rel=${f#"$src"/core/}
	w=${rel%%/*}
	if [ "$w" = "$rel" ] || [ -z "${rank[$w]+x}" ]; then stray+=("$rel"); fi
done < <(find "$src/core" -type f \( -name '*.c' -o -name '*.h' \) | sort)
if [ ${#stray[@]} -eq 0 ]; then ok "every core file is in a wing"
else notok "files outside the wings: ${stray[*]}"; fi

# every include of a core header goes down (or sideways), never up
violations=()
while IFS= read -r f; do
	rel=${f#"$src"/core/}
	w=${rel%%/*}
	[ -n "${rank[$w]+x}" ] || continue
	while IFS=: read -r line inc; do
		target=${inc%%/*}
		if [ "$target" = "$inc" ]; then
			# a bare name: allowed only for a file of the same folder that is not a core header
			[ -f "$(dirname "$f")/$inc" ] && violations+=("core/$rel:$line: '$inc' does not name its wing")
			continue
		fi
		[ -n "${rank[$target]+x}" ] || continue
		if [ "${rank[$target]}" -gt "${rank[$w]}" ]; then
			violations+=("core/$rel:$line: $w includes '$inc' from $target, a wing above it")
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed -E 's/^([0-9]+):.*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1:\2/')
done < <(find "$src/core" -type f \( -name '*.c' -o -name '*.h' \) | sort)
if [ ${#violations[@]} -eq 0 ]; then ok "no include reaches a wing above its own"
else
	notok "${#violations[@]} include(s) break the wing order"
	printf '# %s\n' "${violations[@]}"
fi

# the wings exist (a renamed wing must be renamed here too)
for w in "${wings[@]}"; do
	if [ -d "$src/core/$w" ]; then ok "wing $w exists"; else notok "wing $w listed but core/$w is missing"; fi
done

# inside a wing, calls go one way (needs the objects of a build, nm and tsort:
# given a build, a missing tool fails rather than passing what it did not check)
if [ -n "$build" ] && ! { command -v nm >/dev/null && command -v tsort >/dev/null && command -v ar >/dev/null; }; then
	notok "calls inside the wings not checked: ar, nm and tsort are needed"
elif [ -n "$build" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# the archive's members, not every object in the folder (a removed file leaves one)
	(cd "$build" && ar t libevalset-core.a) > "$tmp/members" 2>/dev/null
	for w in "${wings[@]}"; do
		objs=()
		while IFS= read -r o; do objs+=("$build/$o"); done < <(grep "/core_${w}_[^/]*\.o\$" "$tmp/members")
		if [ ${#objs[@]} -eq 0 ]; then notok "wing $w: no objects in $build/libevalset-core.a"; continue; fi
		# symbol -> file defining it; then file -> file for each symbol used from another
		nm -A -g --defined-only "${objs[@]}" 2>/dev/null |
			awk '$2 ~ /^[TDBRC]$/ { f = $1; sub(/:.*/, "", f); print $3, f }' > "$tmp/defs"
		nm -A -u "${objs[@]}" 2>/dev/null |
			awk '{ f = $1; sub(/:.*/, "", f); print $NF, f }' > "$tmp/uses"
		awk 'NR == FNR { d[$1] = $2; next } ($1 in d) && d[$1] != $2 { print $2, d[$1] }' \
			"$tmp/defs" "$tmp/uses" | sed -E 's#[^ ]*/core_[a-z]+_##g; s#\.c\.o##g' | sort -u > "$tmp/edges"
		if loop=$(tsort "$tmp/edges" 2>&1 >/dev/null) && [ -z "$loop" ]; then
			ok "wing $w: calls between its files go one way"
		else
			notok "wing $w: files call each other in a circle"
			printf '%s\n' "$loop" | sed -n 's/^tsort: \([^:]*\)$/# in the circle: \1/p'
			# name the calls that close each loop: every edge between two files of the loop
			printf '%s\n' "$loop" | sed -n 's/^tsort: \([^:]*\)$/\1/p' | sort -u > "$tmp/loop"
			awk 'NR == FNR { in_loop[$1] = 1; next } ($1 in in_loop) && ($2 in in_loop) { print "#   " $1 " calls " $2 }' \
				"$tmp/loop" "$tmp/edges"
		fi
	done
fi

echo "1..$n"
[ "$bad" -eq 0 ]
