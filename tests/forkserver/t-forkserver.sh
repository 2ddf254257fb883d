#!/usr/bin/env bash
# The fork server (server.c) and its client (client.c), through which the
# sanitizer and emulated builds run their CLI cases and the trec_eval pack,
# against the plain build's evalset, printing TAP: a command started
# through them must do what the same command started directly does, with
# the client's descriptors, working directory, environment, umask, limits
# and ignored signals; end as it ends; get the signals the client gets;
# die with the client; and the client must say when it cannot do its job.
#
# usage: t-forkserver.sh SERVER CLIENT EVALSET
set -u
server=$1 client=$2 evalset=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/tap.sh"
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir sets && cp -a "$src/sets/squad-demo" sets/ && rm -rf sets/squad-demo/.evalset

"$server" --listen "$tmp/socket" 2>server.err &
spid=$!
for _ in $(seq 600); do [ -S "$tmp/socket" ] && break; sleep 0.05; done
[ -S "$tmp/socket" ]; ok $? "the server listens once its socket is there"
export EVALSET_FORKSERVER=$tmp/socket EVALSET_FORKSERVER_EXEC=$server

# same NAME SCRIPT: run SCRIPT (bash, $E the program) in two fresh copies of
# the scratch set, with evalset and with the client; one test point that
# their exit codes, standard output, standard error and the files left
# (names, modes, contents) are the same
same() {
  local name=$1 script=$2 way out
  for way in direct client; do
    rm -rf "$way" && mkdir "$way" && cp -a sets "$way/"
    if [ "$way" = direct ]; then E=$evalset; else E=$client; fi
    (cd "$way" && E=$E bash -c "$script" > ../$way.out 2> ../$way.err < /dev/null
     echo "exit $?" >> ../$way.out
     find . -newer ../sets -printf '%P %m\n' | LC_ALL=C sort > ../$way.files
     # a set's lock file holds its writer's process id, which differs
     find . -newer ../sets -type f ! -name lock | LC_ALL=C sort | xargs -r cat >> ../$way.files)
    # stderr names the program as it was called
    sed -i "s#$E#EVALSET#g" $way.err
  done
  out=$(diff direct.out client.out; diff direct.err client.err; diff direct.files client.files)
  [ -z "$out" ]; ok $? "same as started directly: $name"
  [ -z "$out" ] || echo "$out" | head -20 | sed 's/^/#   /'
}
same "a command's output and exit code" '$E --version | head -1'
same "an unknown command: exit 2 and the message" '$E nosuch'
same "the working directory" '$E init made && cat sets/made/set.yaml'
same "the umask" 'umask 077; $E init made; stat -c %a sets/made/set.yaml'
same "a file size limit (ulimit -f)" 'trap "" XFSZ; ulimit -f 0; $E init made'
same "the environment" 'printf "model: from-env\n" > c.yaml; EVALSET_CONFIG=c.yaml $E config | grep ^model'
same "standard input, and output into a pipe that closes early" \
  'printf "q1 0 d1 1\n" > qrels; printf "q1 Q0 d1 1 1.5 r\n" | $E trec-eval qrels -; $E ls squad-demo | head -2'
same "a closed standard output" '$E --version >&-; echo "exit $?" >&2'
same "bad input changes nothing" '$E add squad-demo --text "" --relevant c-1'

# children SERVER: the process ids of the commands the server runs now
children() { ps -o pid= --ppid "$spid" | tr -d ' '; }
# review_bg: start `review` through the client, in the background; $cpid
# the client, $kid the command; review answers until it is stopped
review_bg() {
  "$@" "$client" review squad-demo > review.out 2>&1 &
  cpid=$!
  kid=
  for _ in $(seq 200); do
    grep -q '^review: http' review.out 2>/dev/null && kid=$(children) && break
    sleep 0.05
  done
}
gone() { # gone PID: whether PID ends within 10 s
  for _ in $(seq 200); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.05; done
  return 1
}

# the first client with SIGUSR2 at its default (env --default-signal): a
# test run may inherit it ignored (perf record ignores it in the program it
# starts, and a non-interactive shell cannot undo that with trap)
review_bg env --default-signal=USR2
[ -n "$kid" ] && [ "$kid" != "$cpid" ]; ok $? "a command runs as the server's child, not as the client"
sigign=$(awk '/^SigIgn/ { print $2 }' /proc/"$kid"/status)
# what the check below read, shown should it fail
seen="process '$kid' ($(tr '\0' ' ' < /proc/"$kid"/cmdline 2>&1 | head -c 120)), SigIgn '$sigign'"
kill -TERM "$cpid"
wait "$cpid"; rc=$?
"$evalset" review squad-demo > direct-review.out 2>&1 &
dpid=$!
for _ in $(seq 200); do grep -q '^review: http' direct-review.out && break; sleep 0.05; done
kill -TERM "$dpid"
wait "$dpid"; want=$?
[ "$rc" = "$want" ]; ok $? "SIGTERM to the client reaches the command, which ends as it would (exit $rc, directly $want)"
gone "$kid"; ok $? "and the command has ended"

# SIGUSR2 is the signal here that evalset neither handles nor ignores
[ $(( 0x$sigign & (1 << 11) )) = 0 ]; r=$?
ok $r "a signal the client does not ignore is not ignored by the command"
[ "$r" = 0 ] || echo "#   $seen"
review_bg bash -c 'trap "" USR2; exec "$0" "$@"'
sigign=$(awk '/^SigIgn/ { print $2 }' /proc/"$kid"/status)
[ $(( 0x$sigign & (1 << 11) )) != 0 ]; ok $? "a signal the client ignores, the command ignores, as across exec"

kill -KILL "$kid"
wait "$cpid"; rc=$?
[ "$rc" = 137 ]; ok $? "a command killed by a signal: the client ends by it too (exit $rc, want 137)"

review_bg
kill -KILL "$cpid"
wait "$cpid" 2>/dev/null
gone "$kid"; ok $? "a client killed (kill -9): its command is killed with it"

EVALSET_FORKSERVER=$tmp/nowhere "$client" --version > out 2> err; rc=$?
[ "$rc" = 125 ] && grep -q "cannot reach the fork server" err
ok $? "no server: exit 125 and the reason ($rc: $(head -c 200 err))"

# where the environment differs in what only a new process reads, the
# client executes evalset itself (EVALSET_FORKSERVER_EXEC)
printf '#!/bin/sh\ntouch "%s/executed"\nexec "%s" "$@"\n' "$tmp" "$evalset" > exec.sh
chmod +x exec.sh
EVALSET_FORKSERVER_EXEC=$tmp/exec.sh "$client" --version > out 2>&1; rc=$?
[ "$rc" = 0 ] && [ ! -e executed ]; ok $? "the same start-up environment: through the server"
LD_BIND_NOW=1 EVALSET_FORKSERVER_EXEC=$tmp/exec.sh "$client" --version > out 2>&1; rc=$?
[ "$rc" = 0 ] && [ -e executed ] && grep -q '^evalset ' out
ok $? "LD_BIND_NOW set for this command alone: the client executes evalset itself"
rm -f executed
ASAN_OPTIONS=detect_leaks=0 EVALSET_FORKSERVER_EXEC=$tmp/exec.sh "$client" --version > out 2>&1
[ -e executed ]; ok $? "so do sanitizer options of its own"
LD_BIND_NOW=1 EVALSET_FORKSERVER_EXEC= "$client" --version > out 2> err; rc=$?
[ "$rc" = 125 ] && grep -q "EVALSET_FORKSERVER_EXEC names no program" err
ok $? "and says so when there is nothing to execute ($rc)"

kill -0 "$spid" 2>/dev/null; ok $? "the server still runs after all that"
[ ! -s server.err ]; ok $? "and said nothing"
[ -s server.err ] && sed 's/^/#   /' server.err | head -10
tap_end
