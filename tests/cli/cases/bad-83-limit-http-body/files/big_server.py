# A Chat Completions endpoint whose every reply is one byte over HTTP_MAX_BODY (64 MiB).
# Prints its port first; serves until killed.
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
SIZE = (64 << 20) + 1
class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(SIZE))
        self.end_headers()
        block = b" " * (1 << 20)
        try:
            left = SIZE
            while left:
                n = min(left, len(block))
                self.wfile.write(block[:n])
                left -= n
        except OSError:
            pass
s = HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
