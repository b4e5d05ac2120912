# A director's agent: runs `fairway run` (kernel plane) on this kernel and answers the conductor,
# one request per TCP connection: a word in, the answer out ("ok" or "failed ..." first).
#   agent.py serve ADDRESS NAME SCENARIO_DIR   until asked to stop
#   agent.py ask ADDRESS WORD                  prints the answer; exit 1 unless it is ok
# Words: ready (the service is in IPVS), state (sloppy_tcp and the connections), sloppy (reload
# with lvs_sloppy_tcp and wait for the sysctl), stop (SIGTERM, exit code, sysctl after).
import os, shutil, signal, socket, subprocess, sys, time

PORT = 7999
SYSCTL = "/proc/sys/net/ipv4/vs/sloppy_tcp"


def until(seconds, check):
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def sysctl():
    with open(SYSCTL) as f:
        return f.read().strip()


def ipvsadm(*args):
    return subprocess.run(["ipvsadm", *args], capture_output=True, text=True).stdout


def installed():
    table = ipvsadm("-Ln")
    return "10.99.0.20:7000" in table and "10.99.0.21:7000" in table


def serve(address, name, scenario):
    shutil.copy(os.path.join(scenario, "off.conf"), "/run/fairway.conf")
    log = open("/run/out/%s-run.log" % name, "w")
    fairway = subprocess.Popen(
        ["sh", os.path.join(scenario, "fairway.sh"), "run", "-f", "/run/fairway.conf",
         "--admin", "off"], stdout=log, stderr=subprocess.STDOUT)
    listener = socket.create_server((address, PORT))
    # Bounded: the conductor asks within minutes, or something went wrong and the test kills us.
    listener.settimeout(600)
    while True:
        conn, _ = listener.accept()
        with conn, conn.makefile("r") as words:
            word = words.readline().strip()
            if word == "ready":
                until(240, lambda: installed() or fairway.poll() is not None)
                answer = ("ok" if installed() else "failed") + "\n" + ipvsadm("-Ln")
            elif word == "state":
                answer = "ok\nsloppy_tcp=%s\n%s" % (sysctl(), ipvsadm("-Lnc"))
            elif word == "sloppy":
                shutil.copy(os.path.join(scenario, "on.conf"), "/run/fairway.conf")
                fairway.send_signal(signal.SIGHUP)
                ok = until(60, lambda: sysctl() == "1")
                answer = ("ok" if ok else "failed") + "\nsloppy_tcp=" + sysctl()
            elif word == "stop":
                fairway.send_signal(signal.SIGTERM)
                try:
                    code = fairway.wait(60)
                except subprocess.TimeoutExpired:
                    code = "timeout"
                answer = "ok\nexit=%s\nsloppy_tcp=%s" % (code, sysctl())
            else:
                answer = "failed: unknown word " + word
            conn.sendall(answer.encode())
        if word == "stop":
            return


def ask(address, word):
    # The other kernel may still be booting: retry while nothing listens (bounded).
    deadline = time.monotonic() + 300
    while True:
        try:
            conn = socket.create_connection((address, PORT), timeout=5)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    with conn:
        conn.settimeout(300)
        conn.sendall((word + "\n").encode())
        answer = b""
        while True:
            data = conn.recv(65536)
            if not data:
                return answer.decode()
            answer += data


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(*sys.argv[2:5])
    else:
        answer = ask(sys.argv[2], sys.argv[3])
        sys.stdout.write(answer)
        sys.exit(0 if answer.startswith("ok") else 1)
