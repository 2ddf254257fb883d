#!/usr/bin/env bash
# usage: serve.sh SERVER [ARG...] -- COMMAND [ARG...]
#
# Start the fork server (SERVER ARG... --listen SOCKET: evalset-forkserver,
# or the emulator and it; tests/forkserver/server.c), run COMMAND with
# EVALSET_FORKSERVER naming its socket, so that the client COMMAND is given
# as its "evalset" (tests/forkserver/client.c) starts each evalset command
# through the server, then stop the server. Exits as COMMAND does.
set -u
server=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do server+=("$1"); shift; done
if [ ${#server[@]} -eq 0 ] || [ $# -lt 2 ]; then
  echo "usage: serve.sh SERVER [ARG...] -- COMMAND [ARG...]" >&2
  exit 2
fi
shift
dir=$(mktemp -d)
sock=$dir/socket
"${server[@]}" --listen "$sock" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; rm -rf "$dir"' EXIT
# the server makes the socket under another name and renames it once it
# listens: here, it can connect
for _ in $(seq 1200); do
  [ -S "$sock" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "Bail out! the fork server (${server[*]}) ended before it listened"
    exit 1
  fi
  sleep 0.05
done
if ! [ -S "$sock" ]; then
  echo "Bail out! the fork server (${server[*]}) did not listen within 60 s"
  exit 1
fi
# EVALSET_FORKSERVER_EXEC: what the client executes instead where the
# environment differs from the server's in what only a new process reads
# (LD_LIBRARY_PATH, the sanitizer options: tests/forkserver/protocol.h),
# one word per line: the server's command is evalset when not told to listen
exec_words=$(printf '%s\n' "${server[@]}")
EVALSET_FORKSERVER=$sock EVALSET_FORKSERVER_EXEC=$exec_words "$@"
