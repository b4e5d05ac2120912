# Real servers for the BGP tests: one HTTP server per address given, each answering
# "NAME CLIENT-ADDRESS" (the client being the Fairway node that proxied the request).
import http.server
import sys
import threading


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        body = ("%s %s\n" % (self.server.name, self.client_address[0])).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # TCP_CHECK connects and resets: not worth a traceback per check.
        if not isinstance(sys.exc_info()[1], ConnectionResetError):
            super().handle_error(request, client_address)


port = int(sys.argv[1])
for i, address in enumerate(sys.argv[2:], 1):
    server = Server((address, port), Handler)
    server.daemon_threads = True
    server.name = "rs%d" % i
    threading.Thread(target=server.serve_forever, daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
