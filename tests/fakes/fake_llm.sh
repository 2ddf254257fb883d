# tests/fakes/fake_llm.sh: run the fake LLM server (fake_llm.py beside this
# file) as a coprocess of the calling shell. Sourced, not run: by
# tests/llm/lib.sh (the end-to-end LLM and secrets tests) and bench/lib.sh
# (the generate benchmarks).
#
# start_fake [FAKE-ARGS...]: starts the fake with those options, waits for
#   the port it prints and sets PORT and BASE (its /v1 address on 127.0.0.1).
#   The fake exits when its stdin is closed or the calling shell exits.
# stop_fake: closes the fake's stdin, kills it and waits for it; does
#   nothing when none runs, so an EXIT trap may always call it.
fake_llm_py="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/fake_llm.py"
FAKE_PID=
start_fake() {
	coproc FAKE { exec python3 "$fake_llm_py" "$@"; }
	FAKE_PID=$FAKE_PID
	read -r -u "${FAKE[0]}" PORT
	BASE="http://127.0.0.1:$PORT/v1"
}
stop_fake() {
	if [ -n "${FAKE_PID:-}" ]; then
		eval "exec ${FAKE[1]}>&-" 2>/dev/null
		kill "$FAKE_PID" 2>/dev/null
		wait "$FAKE_PID" 2>/dev/null
		FAKE_PID=
	fi
}
