#!/usr/bin/env bash
# `evalset review`: a rejection whose save of set.yaml fails after the
# question was written to rejected.yaml puts rejected.yaml back as it was
# (absent, or its old bytes), so the question is in exactly one of the two
# files. The failure is a real one: the server runs under a file size
# limit (ulimit -f) that the small rejected.yaml fits in and the large
# set.yaml does not, with SIGXFSZ ignored so that write() fails with EFBIG.
# Prints TAP (suite "cli").
#
# usage: t-review-full-disk.sh EVALSET
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
mkdir sets && cp -a "$src/sets/squad-demo" sets/ && rm -rf sets/squad-demo/.evalset
set_dir=sets/squad-demo

start() {   # start [LIMIT-KB]: a server, under a file size limit when given
	if [ -n "${1:-}" ]; then
		( trap '' XFSZ; ulimit -f "$1"; exec "$evalset" review squad-demo ) >srv.out 2>srv.err &
	else
		"$evalset" review squad-demo >srv.out 2>srv.err &
	fi
	pid=$!
	for _ in $(seq 1 100); do grep -q '^review: http' srv.out && break; sleep 0.1; done
	url=$(sed -n 's/^review: \(http[^ ]*\)$/\1/p' srv.out)
	port=$(echo "$url" | sed 's|^http://127.0.0.1:\([0-9]*\)/.*|\1|')
	[ -n "$url" ] || { echo "not ok - the server did not start: $(cat srv.err)"; echo "1..$((n + 1))"; exit 1; }
}
stop() { kill "$pid"; wait "$pid"; pid=; }
digest() { curl -s "${url}api/state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["digest"])'; }
reject() {  # reject ID: prints the HTTP status; the reply in 'body'
	curl -s -o body -w '%{http_code}' -H "Origin: http://127.0.0.1:$port" -H 'Content-Type: application/json' \
		--data "{\"digest\":\"$(digest)\",\"op\":\"reject\",\"id\":\"$1\",\"reason\":\"a duplicate\"}" "${url}api/action"
}
in_set() { grep -q "^ *- id: $1\$" "$set_dir/set.yaml"; }
in_rejected() { [ -f "$set_dir/rejected.yaml" ] && grep -q "^ *- id: $1\$" "$set_dir/rejected.yaml"; }
size_kb() { echo $(( ($(stat -c %s "$1") + 1023) / 1024 )); }

# the limit: above rejected.yaml with a question or two, below set.yaml
limit=16
[ "$(size_kb "$set_dir/set.yaml")" -gt $((limit * 2)) ] || { echo "not ok - the demo set is too small for this test"; exit 1; }

# 1. no rejected.yaml yet: it must be gone again after the failed save
start "$limit"
cp "$set_dir/set.yaml" before.yaml
is "$(reject q-0003)" 422 "a rejection whose set.yaml cannot be written: 422"
grep -q "File too large" body; ok $? "the reply says why" "$(cat body)"
cmp -s before.yaml "$set_dir/set.yaml"; ok $? "set.yaml is unchanged"
[ ! -e "$set_dir/rejected.yaml" ]; ok $? "rejected.yaml was created, then removed again" "$(ls -a "$set_dir")"
in_set q-0003; ok $? "the question is still in the set, and only there"
is "$(reject q-0003)" 422 "a retry fails the same way"
[ ! -e "$set_dir/rejected.yaml" ]; ok $? "and leaves no rejected.yaml either"
stop

# 2. rejected.yaml exists: it must keep its old bytes
start
is "$(reject q-0004)" 200 "a rejection with room on disk: 200"
stop
in_rejected q-0004 && ! in_set q-0004; ok $? "q-0004 moved to rejected.yaml"
cp "$set_dir/rejected.yaml" rejected.before
cp "$set_dir/set.yaml" before.yaml
start "$limit"
is "$(reject q-0005)" 422 "with rejected.yaml present, a rejection whose save fails: 422"
cmp -s rejected.before "$set_dir/rejected.yaml"; ok $? "rejected.yaml has its old bytes again"
cmp -s before.yaml "$set_dir/set.yaml"; ok $? "set.yaml is unchanged"
in_set q-0005 && ! in_rejected q-0005; ok $? "q-0005 is in the set and not rejected"
stop
left=$(find "$set_dir" -name '*.tmp-*' | wc -l)
is "$left" 0 "no temporary file is left beside the set"
"$evalset" check squad-demo >/dev/null 2>&1; ok $([ $? -le 1 ] && echo 0 || echo 1) "the set still loads and checks"

echo "1..$n"
[ "$failed" -eq 0 ]
