# A real server: answers each line on port 7000 with its name and the line (any address: DR
# delivers to the VIP on lo). Usage: echo.py NAME
import socket, sys, threading
name = sys.argv[1].encode()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 7000))
s.listen(16)
print("ready", flush=True)
def serve(c):
    with c, c.makefile("rb") as lines:
        for line in lines:
            c.sendall(name + b" " + line)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
