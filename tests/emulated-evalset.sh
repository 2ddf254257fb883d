#!/bin/sh
# evalset run under an emulator (the cross file's `emulator` property, the
# same program as its exe_wrapper, under which meson runs the unit tests):
# the binary the test scripts get where the kernel cannot run the build's
# own (tools/cross/i686-emulated.ini)
exec "${EVALSET_EMULATOR:?set by meson test from the cross file}" \
  "${EVALSET_EMULATED:?set by meson test}" "$@"
