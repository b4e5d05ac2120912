# Real servers for the BGP tests: one HTTP server per address given, each answering
# "NAME CLIENT-ADDRESS" (the client being the Fairway node that proxied the request). The names go
# rs1, rs2, ... per address family, so an IPv6 server answers with its IPv4 twin's name.
import http.server
import socket
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
    address_family = socket.AF_INET

    def handle_error(self, request, client_address):
        # TCP_CHECK connects and resets: not worth a traceback per check.
        if not isinstance(sys.exc_info()[1], ConnectionResetError):
            super().handle_error(request, client_address)


class Server6(Server):
    address_family = socket.AF_INET6


port = int(sys.argv[1])
count = {}
for address in sys.argv[2:]:
    v6 = ":" in address
    count[v6] = count.get(v6, 0) + 1
    server = (Server6 if v6 else Server)((address, port), Handler)
    server.daemon_threads = True
    server.name = "rs%d" % count[v6]
    threading.Thread(target=server.serve_forever, daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
