#!/usr/bin/env python3
"""fake_endpoint: a retriever behind HTTP, for the tests of `evalset run --url`.

Binds 127.0.0.1 on a free port and prints "PORT\\n" on stdout as its first
line. It exits when its standard input reaches end of file (so a test that
dies never leaves it behind), on SIGTERM, or after --lifetime seconds.

POST any path with a JSON body {"query": "...", "k": N} (other keys are
ignored). The answer ranks the ids "c-<word>" of the query's words (lower
case, letters only), best first, scores N, N-1, ...; a query holding the
word "decline" gets an empty list with "abstained": true. A body with
"history" (evalset's {{history}}: [{"role", "text"}, ...]) ranks the
words of the query followed by those of the user turns, in order.

--mode chooses the behaviour:
  ok      200 {"results": [{"id", "score"}, ...]}
  nested  200 {"data": {"hits": [...]}, "abstained"?} (for --results data.hits)
  500     every request answers 500 with a small HTML page
  html    200 with an HTML page instead of JSON
  flaky   the first attempt for each query answers 503, later ones as ok
--expect-header 'Name: value' answers 401 when the request lacks it.
GET /stats gives {"requests": N}.
"""
import argparse
import json
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from fake_rank import ranked


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, body, ctype="application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/stats":
            with self.server.lock:
                self.reply(200, json.dumps({"requests": self.server.requests}))
        else:
            self.reply(404, "{}")

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        srv = self.server
        with srv.lock:
            srv.requests += 1
        want = srv.args.expect_header
        if want:
            name, _, value = want.partition(":")
            if self.headers.get(name.strip()) != value.strip():
                return self.reply(401, '{"error": "unauthorised"}')
        mode = srv.args.mode
        if mode == "500":
            return self.reply(500, "<html><body>Internal Server Error</body></html>", "text/html")
        if mode == "html":
            return self.reply(200, "<html><body>Search is down for maintenance</body></html>", "text/html")
        try:
            req = json.loads(raw)
            query, k = str(req["query"]), int(req.get("k", 10))
            query = " ".join([query] + [str(t["text"]) for t in req.get("history", [])
                                        if t.get("role") == "user"])
        except (ValueError, KeyError, TypeError):
            return self.reply(400, '{"error": "bad request body"}')
        if mode == "flaky":
            with srv.lock:
                first = query not in srv.seen
                srv.seen.add(query)
            if first:
                return self.reply(503, '{"error": "try again"}')
        if "decline" in query.lower():
            body = {"results": [], "abstained": True}
        else:
            body = {"results": ranked(query, k)}
        if mode == "nested":
            body = {"data": {"hits": body.pop("results")}, "took": 3, **body}
        self.reply(200, json.dumps(body))


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A client that gave up (evalset stopping after a failure) is expected.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="ok", choices=["ok", "nested", "500", "html", "flaky"])
    ap.add_argument("--expect-header")
    ap.add_argument("--lifetime", type=float, default=120)
    args = ap.parse_args()

    srv = Server(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.args, srv.lock, srv.requests, srv.seen = args, threading.Lock(), 0, set()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    print(srv.server_address[1], flush=True)

    done = threading.Event()

    def watch_stdin():
        sys.stdin.read()
        done.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    done.wait(args.lifetime)
    srv.shutdown()


if __name__ == "__main__":
    main()
