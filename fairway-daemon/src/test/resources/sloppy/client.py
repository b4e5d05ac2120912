# The client, and the conductor of the scenario (in its own namespace on B's bridge). Two long TCP
# streams to the VIP, each opened through director A (a route with next hop A) and moved to
# director B mid-stream (the route's next hop changed, as a router rehashing an ECMP flow does):
# "off" with both directors as they start (no lvs_sloppy_tcp), "on" after both reloaded with it.
# Writes /run/out/client.properties and each director's state around each move.
# Usage: client.py SCENARIO_DIR
import os, socket, subprocess, sys, time

sys.path.insert(0, sys.argv[1])
from agent import ask

A, B, VIP, PORT = "10.99.0.1", "10.99.0.2", "10.99.0.100", 7000
LINES = 10
out = {}


def save():
    with open("/run/out/client.properties", "w") as f:
        for k, v in out.items():
            f.write("%s=%s\n" % (k, v))


def record(name, text):
    with open("/run/out/%s.txt" % name, "w") as f:
        f.write(text)


def need(address, word, name):
    answer = ask(address, word)
    record(name, answer)
    if not answer.startswith("ok"):
        raise SystemExit("%s %s: %s" % (address, word, answer))


def via(director):
    subprocess.run(["ip", "route", "replace", VIP + "/32", "via", director], check=True)


def exchange(c, lines, text):
    """One line there and back; the real server's name, from its answer."""
    c.sendall((text + "\n").encode())
    answer = lines.readline().decode()
    if not answer:
        raise EOFError("closed by the peer")
    name, _, echoed = answer.strip().partition(" ")
    if echoed != text:
        raise ValueError("answer %r to %r" % (answer, text))
    return name


def stream(phase):
    via(A)
    c = socket.create_connection((VIP, PORT), timeout=10)
    lines = c.makefile("rb")
    out[phase + ".port"] = c.getsockname()[1]
    names = {exchange(c, lines, "%s a%d" % (phase, i)) for i in range(LINES)}
    out[phase + ".before"] = ",".join(sorted(names))
    record(phase + "-a", ask(A, "state"))
    record(phase + "-b-before", ask(B, "state"))
    via(B)
    t0 = time.monotonic()
    names = []
    try:
        for i in range(LINES):
            names.append(exchange(c, lines, "%s b%d" % (phase, i)))
        result = "flowing"
    except ConnectionResetError:
        result = "reset"
    except socket.timeout:
        result = "timeout"
    except Exception as e:
        result = "error " + repr(e).replace("\n", " ")
    out[phase + ".after_ms"] = int((time.monotonic() - t0) * 1000)
    out[phase + ".result"] = result
    out[phase + ".after"] = ",".join(sorted(set(names)))
    out[phase + ".answered_after"] = len(names)
    record(phase + "-b-after", ask(B, "state"))
    c.close()
    save()


need(A, "ready", "a-ready")
need(B, "ready", "b-ready")
stream("off")
need(A, "sloppy", "a-sloppy")
need(B, "sloppy", "b-sloppy")
stream("on")
need(A, "stop", "a-stop")
need(B, "stop", "b-stop")
save()
