# The client: one TCP connection to the VIP, a few lines through director A, then (once
# /run/failed-over exists) one more line on the same connection, now through director B.
# Writes /run/out/client.properties. Usage: client.py VIP PORT
import socket, sys, time, os
vip, port = sys.argv[1], int(sys.argv[2])
out = {}
def line(c, text, timeout):
    c.settimeout(timeout)
    c.sendall(text.encode())
    got = b""
    while not got.endswith(b"\n"):
        d = c.recv(100)
        if not d:
            break
        got += d
    return got.decode().strip()
def save():
    with open("/run/out/client.properties", "w") as f:
        for k, v in out.items():
            f.write("%s=%s\n" % (k, v))
        f.flush()
        os.fsync(f.fileno())
c = socket.create_connection((vip, port), timeout=10)
out["client_port"] = c.getsockname()[1]
# Several round trips: the master syncs a TCP connection from its third packet on.
out["before"] = ",".join(line(c, "a%d\n" % i, 10) for i in range(5))
with open("/run/connected", "w") as f:
    f.write(str(out["client_port"]))
save()
deadline = time.time() + 300
while not os.path.exists("/run/failed-over") and time.time() < deadline:
    time.sleep(0.05)
t0 = time.time()
try:
    out["after"] = line(c, "b1\n", 30)
except Exception as e:
    out["after"] = "error " + repr(e)
out["after_ms"] = int((time.time() - t0) * 1000)
try:
    out["after2"] = line(c, "b2\n", 10)
except Exception as e:
    out["after2"] = "error " + repr(e)
c.close()
save()
