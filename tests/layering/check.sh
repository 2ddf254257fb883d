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

# the files under core/, once; a step that started a process per file (or
# per include) cost seconds where a process costs milliseconds
files=()
while IFS= read -r f; do files+=("$f"); done < <(find "$src/core" -type f \( -name '*.c' -o -name '*.h' \) | sort)

# every file under core/ is inside a known wing
stray=()
for f in "${files[@]}"; do
	rel=${f#"$src"/core/}
	w=${rel%%/*}
	if [ "$w" = "$rel" ] || [ -z "${rank[$w]+x}" ]; then stray+=("$rel"); fi
done
if [ ${#stray[@]} -eq 0 ]; then ok "every core file is in a wing"
else notok "files outside the wings: ${stray[*]}"; fi

# every include of a core header goes down (or sideways), never up: one grep
# over every file, each hit its file's name, a NUL, then LINE:TEXT
violations=()
inc_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)"'
if [ ${#files[@]} -gt 0 ]; then
	while IFS= read -r -d '' f && IFS= read -r hit; do
		rel=${f#"$src"/core/}
		w=${rel%%/*}
		[ -n "${rank[$w]+x}" ] || continue
		line=${hit%%:*}
		[[ ${hit#*:} =~ $inc_re ]] || continue
		inc=${BASH_REMATCH[1]}
		target=${inc%%/*}
		if [ "$target" = "$inc" ]; then
			# a bare name: allowed only for a file of the same folder that is not a core header
			[ -f "${f%/*}/$inc" ] && violations+=("core/$rel:$line: '$inc' does not name its wing")
			continue
		fi
		[ -n "${rank[$target]+x}" ] || continue
		if [ "${rank[$target]}" -gt "${rank[$w]}" ]; then
			violations+=("core/$rel:$line: $w includes '$inc' from $target, a wing above it")
		fi
	done < <(grep -n -H -Z -e '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' -- "${files[@]}")
fi
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
	# the archive's members, not every object in the folder (a removed file
	# leaves one): those of each listed wing, core_WING_FILE.c.o (no wing
	# has _ in its name)
	(cd "$build" && ar t libevalset-core.a) > "$tmp/members" 2>/dev/null
	objs=()
	declare -A has_objs=()
	while IFS= read -r o; do
		[[ "$o" =~ /core_([^_/]+)_[^/]*\.o$ ]] || continue
		w=${BASH_REMATCH[1]}
		[ -n "${rank[$w]+x}" ] || continue
		objs+=("$build/$o")
		has_objs[$w]=1
	done < "$tmp/members"
	# symbol -> file defining it, and file -> symbol it uses, over every
	# wing at once (two nm in all); an edge "WING FILE CALLEE" for each
	# symbol a file uses from another file of its own wing, one list
	# sorted, then one file of edges per wing
	if [ ${#objs[@]} -gt 0 ]; then
		nm -A -g --defined-only "${objs[@]}" 2>/dev/null |
			awk '$2 ~ /^[TDBRC]$/ { f = $1; sub(/:.*/, "", f); print $3, f }' > "$tmp/defs"
		nm -A -u "${objs[@]}" 2>/dev/null |
			awk '{ f = $1; sub(/:.*/, "", f); print $NF, f }' > "$tmp/uses"
	else
		: > "$tmp/defs"; : > "$tmp/uses"
	fi
	awk 'function wing(f) { sub(/.*\/core_/, "", f); sub(/_.*/, "", f); return f }
	     function base(f) { sub(/.*\/core_[a-z]+_/, "", f); sub(/\.c\.o$/, "", f); return f }
	     NR == FNR { d[$1] = $2; next }
	     ($1 in d) && d[$1] != $2 && wing(d[$1]) == wing($2) { print wing($2), base($2), base(d[$1]) }' \
		"$tmp/defs" "$tmp/uses" | sort -u |
		awk -v dir="$tmp" '{ print $2, $3 > (dir "/edges." $1) }'
	for w in "${wings[@]}"; do
		if [ -z "${has_objs[$w]:-}" ]; then notok "wing $w: no objects in $build/libevalset-core.a"; continue; fi
		edges=$tmp/edges.$w
		[ -f "$edges" ] || : > "$edges"
		if loop=$(tsort "$edges" 2>&1 >/dev/null) && [ -z "$loop" ]; then
			ok "wing $w: calls between its files go one way"
		else
			notok "wing $w: files call each other in a circle"
			printf '%s\n' "$loop" | sed -n 's/^tsort: \([^:]*\)$/# in the circle: \1/p'
			# name the calls that close each loop: every edge between two files of the loop
			printf '%s\n' "$loop" | sed -n 's/^tsort: \([^:]*\)$/\1/p' | sort -u > "$tmp/loop"
			awk 'NR == FNR { in_loop[$1] = 1; next } ($1 in in_loop) && ($2 in in_loop) { print "#   " $1 " calls " $2 }' \
				"$tmp/loop" "$edges"
		fi
	done
fi

echo "1..$n"
[ "$bad" -eq 0 ]
