#!/usr/bin/env python3
"""Helpers of bench/check-vs-keepalived.sh (see there and docs/benchmarks-check.md).

Inside user-mode Linux:
  conf TCP HTTP TCP_VICTIMS HTTP_VICTIMS      keepalived.conf on stdout
  victims                                     the victims' listeners (TCP 9001, HTTP 8081) until killed
  measure OUT NAME TOTAL WARM WINDOW VICTIM_PID TABLE COUNTED [OTHER...]
                                              one daemon's run: table complete, warm-up, CPU window,
                                              then kill the victims and time their removal from IPVS
On the host:
  report RESULTS_DIR                          the summary lines, with the host CPU of the whole UML

TABLE is "ipvs" (the kernel's, in UML) or "log:keepalived|fairway:FILE" (what the daemon says it
applied, in the namespace). COUNTED and OTHER are NAME=PID or NAME=@PIDFILE: COUNTED is the checker process whose CPU is divided
by the checks, OTHER are reported beside it (keepalived's parent).
"""
import datetime
import json
import os
import selectors
import signal
import socket
import statistics
import sys
import time

TCP_PORT, TCP_VICTIM_PORT = 9000, 9001
HTTP_PORT, HTTP_VICTIM_PORT = 8080, 8081
STATUS = ("127.0.0.1", 8999)
VICTIM_PORTS = {TCP_VICTIM_PORT: "tcp", HTTP_VICTIM_PORT: "http"}


def addr(prefix, i):
    """The i-th real server address of a /16: prefix.x.y, y in 1..250."""
    return f"{prefix}.{i // 250}.{i % 250 + 1}"


def conf(tcp, http, tcp_victims, http_victims):
    """10 (or tcp/1000) TCP virtual servers of up to 1,000 reals and one HTTP virtual server.

    The victims are the last reals of the last TCP virtual server and of the HTTP one, on their own
    ports (a listener that can be killed alone)."""
    out = []

    def vs(vip, reals, check):
        out.append(f"virtual_server {vip} 80 {{\n  delay_loop 1\n  lb_algo rr\n  lb_kind NAT\n"
                   "  protocol TCP")
        for a, port in reals:
            out.append(f"  real_server {a} {port} {{\n    weight 1\n{check}  }}")
        out.append("}")

    tcp_check = "    TCP_CHECK {\n      connect_timeout 1\n      retry 0\n    }\n"
    http_check = ("    HTTP_GET {\n      url {\n        path /\n        status_code 200\n      }\n"
                  "      connect_timeout 1\n      retry 0\n    }\n")
    reals = [(addr("127.1", i), TCP_VICTIM_PORT if i >= tcp - tcp_victims else TCP_PORT)
             for i in range(tcp)]
    per = 1000
    for k in range(0, tcp, per):
        vs(f"10.16.0.{k // per + 1}", reals[k:k + per], tcp_check)
    hreals = [(addr("127.2", i), HTTP_VICTIM_PORT if i >= http - http_victims else HTTP_PORT)
              for i in range(http)]
    if hreals:
        vs("10.16.1.1", hreals, http_check)
    print("\n".join(out))


def victims():
    """Accept-and-close on the TCP victim port, a 200 on the HTTP one: the real servers that die."""
    sel = selectors.DefaultSelector()
    for port in VICTIM_PORTS:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", port))
        s.listen(1024)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, port)
    print("victims ready", flush=True)
    while True:
        for key, _ in sel.select():
            if key.data in VICTIM_PORTS:
                try:
                    c, _ = key.fileobj.accept()
                except OSError:
                    continue
                if key.data == TCP_VICTIM_PORT:
                    c.close()
                else:
                    c.setblocking(False)
                    sel.register(c, selectors.EVENT_READ, "req")
            else:
                c = key.fileobj
                try:
                    data = c.recv(4096)
                except OSError:
                    data = b""
                if data and b"\r\n\r\n" not in data:
                    continue  # the rest of the request follows; keepalived sends it in one write
                sel.unregister(c)
                if data:
                    try:
                        c.send(b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
                    except OSError:
                        pass
                c.close()


def pid_of(spec):
    name, _, v = spec.partition("=")
    if v.startswith("@"):
        with open(v[1:]) as f:
            v = f.read().strip()
    return name, int(v)


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]), int(rest[12])  # utime, stime


def snmp_tcp():
    with open("/proc/net/snmp") as f:
        rows = [line.split() for line in f if line.startswith("Tcp:")]
    return dict(zip(rows[0][1:], map(int, rows[1][1:])))


def netstat_tcpext():
    """TcpExt of /proc/net/netstat: the resets of closed sockets (TCPAbortOnData: a linger-0
    close; TCPAbortOnClose: unread data), to tell them from the resets sent for no socket."""
    with open("/proc/net/netstat") as f:
        rows = [line.split() for line in f if line.startswith("TcpExt:")]
    return dict(zip(rows[0][1:], map(int, rows[1][1:])))


def fairway_attempts(url):
    """Fairway's own count of check attempts by check kind (fairway_check_results_total)."""
    import re
    import urllib.request
    counts = {}
    with urllib.request.urlopen(url, timeout=30) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("fairway_check_results_total{"):
                m = re.search(r'check="([^"]+)"', line)
                kind = m.group(1) if m else "?"
                counts[kind] = counts.get(kind, 0) + float(line.rsplit(" ", 1)[1])
    return counts


def proc_stat():
    with open("/proc/stat") as f:
        v = list(map(int, f.readline().split()[1:]))
    return {"user": v[0] + v[1], "system": v[2], "idle": v[3] + v[4], "irq": v[5] + v[6],
            "steal": v[7]}


def nginx_requests():
    """nginx's request counter (stub_status): the HTTP checks it answered, plus these reads."""
    with socket.create_connection(STATUS, timeout=5) as s:
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        data = b""
        while chunk := s.recv(4096):
            data += chunk
    lines = data.decode().split("\r\n\r\n", 1)[1].splitlines()
    return int(lines[2].split()[2])


def hex_endpoint(h):
    a, p = h.split(":")
    return f"{socket.inet_ntoa(int(a, 16).to_bytes(4, 'big'))}:{int(p, 16)}"


class IpvsTable:
    """The kernel's table (/proc/net/ip_vs): {rip:port: (weight, None)}; no time of change."""

    def read(self):
        table = {}
        with open("/proc/net/ip_vs") as f:
            for line in f:
                w = line.split()
                if line.startswith("  ->") and w[1] != "RemoteAddress:Port":
                    table[hex_endpoint(w[1])] = (int(w[3]), None)
        return table


class LogTable:
    """A table (removed servers at weight 0) replayed from a daemon's own record of what it applied, with the time of each change:
    keepalived's through bench/fake-ipvs.c ("EPOCH add|edit|del IP:PORT WEIGHT"), Fairway's from
    its log ("...Z INFO  Applier: VS: adding IP:PORT (weight N)" / "removing IP:PORT")."""

    def __init__(self, daemon, path):
        self.daemon, self.path, self.offset, self.table = daemon, path, 0, {}

    def read(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return dict(self.table)
        end = data.rfind(b"\n") + 1
        self.offset += end
        for line in data[:end].decode(errors="replace").splitlines():
            self.apply(line)
        return dict(self.table)

    def apply(self, line):
        w = line.split()
        if self.daemon == "keepalived":
            if len(w) == 4:
                t, op, key, weight = float(w[0]), w[1], w[2], int(w[3])
                self.table[key] = (0 if op == "del" else weight, t)
            return
        if len(w) >= 6 and w[2] == "Applier:" and w[4] in ("adding", "removing"):
            t = datetime.datetime.strptime(w[0], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
                tzinfo=datetime.timezone.utc).timestamp()
            if w[4] == "adding":
                self.table[w[5]] = (int(w[7].rstrip(")")) if len(w) > 7 else 1, t)
            else:
                self.table[w[5]] = (0, t)


def table_of(spec):
    if spec == "ipvs":
        return IpvsTable()
    _, daemon, path = spec.split(":", 2)
    return LogTable(daemon, path)


def victim_port(key):
    return int(key.rsplit(":", 1)[1])


def sockstat():
    """The TCP line of /proc/net/sockstat (sockets in use, TIME_WAIT...), per network namespace."""
    with open("/proc/net/sockstat") as f:
        for line in f:
            if line.startswith("TCP:"):
                w = line.split()[1:]
                return dict(zip(w[::2], map(int, w[1::2])))
    return {}


def all_processes():
    """{pid: [comm, utime+stime]} of every process, to see where the rest of the CPU went."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    s = f.read()
                rest = s.rsplit(")", 1)[1].split()
                out[d] = [s[s.index("(") + 1:s.rindex(")")], int(rest[11]) + int(rest[12])]
            except (OSError, ValueError, IndexError):
                pass
    return out


def sample(counted):
    return {"time": time.time(), "mono": time.monotonic(),
            "cpu": {n: cpu_ticks(p) for n, p in counted}, "tcp": snmp_tcp(),
            "tcpext": netstat_tcpext(), "stat": proc_stat(),
            "nginx_requests": nginx_requests(), "procs": all_processes(), "sockstat": sockstat()}


def measure(out, name, total, warm, window, victim_pid, table, specs):
    result = {"daemon": name, "total": total, "warm_s": warm, "window_s": window, "table": table}
    table = table_of(table)
    t0 = time.monotonic()
    n = 0
    while time.monotonic() - t0 < 600:
        n = len([w for w, _ in table.read().values() if w > 0])
        if n >= total:
            break
        time.sleep(0.2)
    result["table_complete_s"] = round(time.monotonic() - t0, 1)
    result["table_at_start"] = n
    if n < total:
        result["error"] = f"table incomplete after 600 s: {n} of {total}"
        return finish(out, result)
    time.sleep(warm)
    counted = [pid_of(s) for s in specs]
    result["pids"] = {n: p for n, p in counted}
    url = os.environ.get("METRICS_URL")
    # Fairway's own counters are read just before and just after the window: rendering 11,000
    # series costs the JVM CPU that must not land in it.
    t0 = time.monotonic()
    m0 = fairway_attempts(url) if url else None
    t1 = time.monotonic()
    a = sample(counted)
    time.sleep(window)
    b = sample(counted)
    t2 = time.monotonic()
    m1 = fairway_attempts(url) if url else None
    t3 = time.monotonic()
    result["window"] = [a, b]
    if url:
        # A scrape of 11,000 series takes seconds on a loaded machine: the counters were read
        # somewhere inside each; the span between the scrapes' midpoints.
        result["fairway_attempts"] = [m0, m1, t3 - t0, (t2 + t3) / 2 - (t0 + t1) / 2]
    result["table_at_end"] = len([w for w, _ in table.read().values() if w > 0])
    result["verdicts"] = kill_and_watch(victim_pid, table)
    return finish(out, result)


def kill_and_watch(victim_pid, table, limit=10.0, every=0.02):
    """Kills the victims' listener and times each victim's leaving the table (gone or weight 0):
    from the change's own time stamp where the table has one, else when the poll saw it."""
    now = table.read()
    pending = {k for k, (w, _) in now.items() if victim_port(k) in VICTIM_PORTS and w > 0}
    gone = {}
    t0 = time.monotonic()
    epoch0 = time.time()
    os.kill(victim_pid, signal.SIGKILL)
    while pending and time.monotonic() - t0 < limit:
        time.sleep(every)
        now = table.read()
        t = time.monotonic() - t0
        for k in list(pending):
            w, at = now.get(k, (0, None))
            if w == 0:
                gone[k] = at - epoch0 if at is not None else t
                pending.discard(k)
    per = {}
    for kind in VICTIM_PORTS.values():
        ms = sorted(round(1000 * t) for k, t in gone.items() if VICTIM_PORTS[victim_port(k)] == kind)
        per[kind] = {"ms": ms, "missed": len([k for k in pending
                                                 if VICTIM_PORTS[victim_port(k)] == kind])}
    return per


def finish(out, result):
    with open(f"{out}.json", "w") as f:
        json.dump(result, f, indent=1)
    return 0 if "error" not in result else 1


def host_cpu(samples, t):
    """The UML's host CPU seconds at time t, interpolated from host-cpu.tsv."""
    for (t1, c1), (t2, c2) in zip(samples, samples[1:]):
        if t1 <= t <= t2:
            return c1 + (c2 - c1) * (t - t1) / (t2 - t1)
    return None


def summary(r, host):
    if "error" in r:
        return f"{r['daemon']}: {r['error']}"
    a, b = r["window"]
    secs = b["mono"] - a["mono"]
    hz = os.sysconf("SC_CLK_TCK")
    checks = b["tcp"]["ActiveOpens"] - a["tcp"]["ActiveOpens"]
    probes = None
    if r["daemon"].endswith("halfopen"):
        # A SYN probe makes no ActiveOpen; the kernel's reset to its SYN-ACK is a reset sent for
        # no socket: OutRsts less the resets of closed sockets. (A connect TCP_CHECK's reset,
        # connect(AF_UNSPEC), is no abort and would count here; this daemon makes none: every
        # TCP_CHECK of the bench's config is a SYN probe.)
        d = {k: b["tcpext"][k] - a["tcpext"][k] for k in ("TCPAbortOnData", "TCPAbortOnClose")}
        probes = b["tcp"]["OutRsts"] - a["tcp"]["OutRsts"] - sum(d.values())
        checks += probes
    http = b["nginx_requests"] - a["nginx_requests"] - 1
    cpu = {n: (sum(b["cpu"][n]) - sum(a["cpu"][n])) / hz for n in b["cpu"]}
    user = {n: (b["cpu"][n][0] - a["cpu"][n][0]) / hz for n in b["cpu"]}
    counted = next(iter(cpu))
    busy = {k: b["stat"][k] - a["stat"][k] for k in b["stat"]}
    all_ticks = sum(busy.values()) or 1
    own = ""
    if r.get("fairway_attempts"):
        m0, m1, span = r["fairway_attempts"][:3]
        if len(r["fairway_attempts"]) > 3:
            span = r["fairway_attempts"][3]
        per = {k: (m1.get(k, 0) - m0.get(k, 0)) for k in m1}
        # Read before and after the window's samples: per second of the whole span (a little
        # longer than the window; the rate, not the count, is comparable).
        own = (" (Fairway's own count " + ", ".join(f"{k} {v / span:.0f}/s" for k, v in sorted(per.items()))
               + f" over {span:.1f} s between the scrapes)")
    line = (f"{r['daemon']}: checks/s={checks / secs:.0f}"
            + (f" of which SYN probes {probes / secs:.0f}/s" if probes is not None else "")
            + own + f" (http answered by nginx {http / secs:.0f}/s)"
            f"  CPU {counted}={1e6 * cpu[counted] / checks:.1f} ms per 1,000 checks"
            f" ({100 * cpu[counted] / secs:.1f}% of a CPU, user {100 * user[counted] / secs:.1f}%)")
    for n in list(cpu)[1:]:
        line += f"  [{n} {100 * cpu[n] / secs:.1f}% not counted]"
    where = "UML" if r.get("table", "ipvs") == "ipvs" else "machine"
    line += f"  {where} idle {100 * busy['idle'] / all_ticks:.0f}%"
    if "sockstat" in b:
        line += f" TIME_WAIT {b['sockstat'].get('tw', '?')}"
    if "procs" in a:
        used = sorted(((b["procs"][p][1] - a["procs"][p][1], b["procs"][p][0]) for p in b["procs"]
                       if p in a["procs"]), reverse=True)[:4]
        line += " (top: " + ", ".join(f"{c} {100 * t / hz / secs:.0f}%" for t, c in used if t) + ")"
    if host:
        h = [host_cpu(host, s["time"]) for s in (a, b)]
        if None not in h:
            line += f"  host CPU of the whole UML {1e6 * (h[1] - h[0]) / checks:.1f} ms per 1,000 checks"
    line += f"  table {r['table_at_end']}/{r['total']} at the window's end (up in {r['table_complete_s']} s)"
    for kind, v in r["verdicts"].items():
        ms = v["ms"]
        if ms or v["missed"]:
            line += (f"  death->verdict {kind} n={len(ms)} median={statistics.median(ms) if ms else '-'}"
                     f" max={max(ms) if ms else '-'} ms missed={v['missed']}")
    return line


def report(results):
    host = []
    p = os.path.join(results, "host-cpu.tsv")
    if os.path.exists(p):
        with open(p) as f:
            host = [tuple(map(float, line.split())) for line in f if line.strip()]
    names = sorted((f for f in os.listdir(results) if f.startswith("run-") and f.endswith(".json")),
                   key=lambda f: os.path.getmtime(os.path.join(results, f)))
    for f in names:
        with open(os.path.join(results, f)) as fh:
            print(f"{f[:-5]}  {summary(json.load(fh), host)}")


def main(argv):
    cmd = argv[1]
    if cmd == "conf":
        conf(*map(int, argv[2:6]))
    elif cmd == "victims":
        victims()
    elif cmd == "measure":
        out, name, total, warm, window, victim, table = argv[2:9]
        return measure(out, name, int(total), float(warm), float(window), int(victim), table,
                       argv[9:])
    elif cmd == "report":
        report(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
