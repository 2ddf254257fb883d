#!/bin/sh
# Print `git describe` of the source tree SRCDIR when it is a git checkout of
# its own (not a tarball unpacked inside another repository); print nothing
# otherwise. meson.build puts the result after the project version in
# `evalset --version`.
src=$1
[ -e "$src/.git" ] || exit 0
git -C "$src" describe --tags --always --dirty --match 'v[0-9]*' 2>/dev/null || true
