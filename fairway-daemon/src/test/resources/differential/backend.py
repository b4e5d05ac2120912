# A real server for the differential test: HTTP on ADDR:PORT answering with the status code found
# in STATUS_FILE (200 when the file is missing). Stopping the process is a TCP failure. A thread per
# connection, as a real server answers: one slow or idle connection (a check cut off by a reload, a
# TCP_CHECK's connect on a starved machine) does not hold up the others' checks.
import http.server
import sys

addr, port, status_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        try:
            with open(status_file) as f:
                code = int(f.read().strip())
        except (OSError, ValueError):
            code = 200
        body = b"backend %s\n" % addr.encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer((addr, port), Handler)
server.daemon_threads = True
server.serve_forever()
