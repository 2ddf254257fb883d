#!/usr/bin/env bash
# `evalset review`: the address. The server answers by the name
# "localhost" as well as 127.0.0.1 (the same port and token; any other
# Host or Origin is refused), and --open hands the browser a private page
# that redirects to the address, never the address itself: a command line
# is readable by every local user (/proc/PID/cmdline), and the token in
# the address lets a page write. The browser here is a stand-in xdg-open
# on PATH that records what it was given. Prints TAP (suite "cli").
#
# usage: t-review-address.sh EVALSET
set -u
evalset=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
n=0; failed=0
root=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$root"' EXIT
ok() { n=$((n+1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed+1)); [ -n "${3:-}" ] && echo "# $3"; fi; }
is() { if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3" "got '$1', want '$2'"; fi; }

cd "$root" || exit 1
mkdir sets bin runtime && cp -a "$src/sets/squad-demo" sets/ && rm -rf sets/squad-demo/.evalset
chmod 700 runtime
# the stand-in browser: what it was given, and what that file held then
cat > bin/xdg-open <<'SH'
#!/bin/sh
printf '%s\n' "$@" > "$BROWSER_LOG"
[ -f "$1" ] && { cp "$1" "$BROWSER_LOG.page"; stat -c '%a' "$(dirname "$1")" > "$BROWSER_LOG.mode"; }
exit 0
SH
chmod +x bin/xdg-open
export BROWSER_LOG=$root/browser.log

start() {   # start [ARG]...: a server; sets url, port
	PATH="$root/bin:$PATH" XDG_RUNTIME_DIR="$root/runtime" "$evalset" review squad-demo "$@" >srv.out 2>srv.err &
	pid=$!
	for _ in $(seq 1 300); do grep -q '^review: http' srv.out && break; sleep 0.1; done
	url=$(sed -n 's/^review: \(http[^ ]*\)$/\1/p' srv.out)
	port=$(echo "$url" | sed 's|^http://127.0.0.1:\([0-9]*\)/.*|\1|')
	[ -n "$url" ] || { echo "not ok - the server did not start: $(cat srv.err)"; echo "1..$((n + 1))"; exit 1; }
}
stop() { kill "$pid"; wait "$pid"; pid=; }
status() {  # status HOST [CURL ARGS]: the HTTP status of GET api/state through HOST
	local h=$1; shift
	curl -s -o body -w '%{http_code}' -H "Host: $h" "$@" "${url}api/state"
}
post() {    # post ORIGIN: the HTTP status of a write (a stale one: 409 when let through)
	curl -s -o body -w '%{http_code}' -H "Origin: $1" -H 'Content-Type: application/json' \
		--data '{"digest":"0","op":"accept","id":"q-0001"}' "${url}api/action"
}

start --open
for _ in $(seq 1 100); do [ -s "$BROWSER_LOG" ] && break; sleep 0.1; done
token=$(echo "$url" | sed 's|^http://127.0.0.1:[0-9]*/\([^/]*\)/$|\1|')
is "$(status "127.0.0.1:$port")" 200 "Host 127.0.0.1:PORT is served"
is "$(status "localhost:$port")" 200 "Host localhost:PORT is served too"
is "$(status "localhost:$((port + 1))")" 403 "localhost at another port is refused"
is "$(status "evil.example:$port")" 403 "another name at the port is refused (DNS rebinding)"
is "$(status "localhost.evil.example:$port")" 403 "a name that starts with localhost is refused"
is "$(post "http://localhost:$port")" 409 "a write from the page at http://localhost:PORT is let through (then refused as stale)"
is "$(post "http://evil.example:$port")" 403 "a write from another origin is refused"

opened=$(head -1 "$BROWSER_LOG" 2>/dev/null)
[ -n "$opened" ] && [ -f "$BROWSER_LOG.page" ]; ok $? "--open starts the browser on a file" "$(cat "$BROWSER_LOG" 2>/dev/null)"
case "$opened" in *"$token"*) ok 1 "the browser's command line does not hold the token" "$opened" ;;
	*) ok 0 "the browser's command line does not hold the token" ;; esac
grep -qF "url=$url" "$BROWSER_LOG.page"; ok $? "the file sends the browser on to the address" "$(cat "$BROWSER_LOG.page" 2>/dev/null)"
is "$(cat "$BROWSER_LOG.mode" 2>/dev/null)" 700 "in a folder only this user may enter"
case "$opened" in "$root/runtime/"*) ok 0 "under XDG_RUNTIME_DIR" ;; *) ok 1 "under XDG_RUNTIME_DIR" "$opened" ;; esac
stop
[ ! -e "$opened" ] && [ ! -e "$(dirname "$opened")" ]; ok $? "the page and its folder are removed when the server stops" "$(ls -la "$(dirname "$opened")" 2>&1)"

echo "1..$n"
[ "$failed" -eq 0 ]
