#!/usr/bin/env bash
# The wings of core/ in their one allowed order, bottom first: a file in a
# wing may include headers of its own wing and of wings listed before it,
# never of a wing listed after it (docs/architecture.md). cmd/ sits above
# every wing. Also: every core file lives in a listed wing, and includes of
# core headers name their wing ("base/strbuf.h", not "strbuf.h").
#
# usage: check.sh SRCDIR   (TAP on stdout; exit 1 on any violation)
set -uo pipefail
src=${1:-.}
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

echo "1..$n"
[ "$bad" -eq 0 ]
