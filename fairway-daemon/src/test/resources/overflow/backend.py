"""Backends for the overflow scenario: every address of this namespace, ports given on the
command line. Each accepted connection gets one line, the address:port it reached (so the client
knows which real server answered), and is held open until the client goes away."""
import selectors
import socket
import sys

sel = selectors.DefaultSelector()
for port in sys.argv[1:]:
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", int(port)))
    ls.listen(256)
    sel.register(ls, selectors.EVENT_READ, "listen")
print("ready", flush=True)
while True:
    for key, _ in sel.select():
        s = key.fileobj
        if key.data == "listen":
            try:
                c, _ = s.accept()
                host, port = c.getsockname()[:2]
                c.sendall(("%s:%d\n" % (host, port)).encode())
            except OSError:
                # A health checker connects and resets at once: not a reason to stop serving.
                c.close()
                continue
            sel.register(c, selectors.EVENT_READ, "conn")
        else:
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                sel.unregister(s)
                s.close()
