#!/bin/sh
# fairway run inside user-mode Linux: the no-IPVS line, status, drain / weight / maint / ready
# through the CLI, a refused reload, a failure after it, real servers from DNS (dnsmasq), drift
# repair, SIGTERM. Usage: run.sh SCENARIO_DIR
S=$1
OUT=/run/out
PY=$(cat "$S/python")
FW="sh $S/fairway.sh"
table() { ipvsadm -Sn | sort; }
# Waits until the shell condition $1 holds, for at most $2 seconds (0.1 s polls): each step waits
# for the event it needs, not a fixed time (a JVM in UML is slow, but not always equally slow).
uptime_s() { cut -d' ' -f1 /proc/uptime; }
await() {
  end=$(( $(uptime_s | cut -d. -f1) + $2 ))
  while ! eval "$1" && [ "$(uptime_s | cut -d. -f1)" -lt $end ]; do sleep 0.1; done
  echo "$(uptime_s) $1" >> "$OUT/waited.txt"
}
listening() { ss -ltnH "src $1 sport = :80" | grep -q .; }
await true 0 # the time the scenario starts, in waited.txt

# 1. No IPVS: the module is not loaded and cannot be (modprobe disabled).
echo /bin/false > /proc/sys/kernel/modprobe
$FW run -f "$S/good.conf" --admin off > "$OUT/noipvs.out" 2> "$OUT/noipvs.err"
echo $? > "$OUT/noipvs.code"
await true 0
echo /sbin/modprobe > /proc/sys/kernel/modprobe
modprobe ip_vs && modprobe ip_vs_rr

# 2. Run with two healthy backends.
for a in 1 2; do
  ip addr add 10.16.1.$a/32 dev lo
  "$PY" -m http.server --bind 10.16.1.$a 80 > /dev/null 2>&1 &
  echo $! > /run/backend-$a
done
# Both backends listen before fairway's first checks, so the table goes straight to both.
await "listening 10.16.1.1 && listening 10.16.1.2" 60
cp "$S/good.conf" /run/k.conf
$FW run -f /run/k.conf --admin 127.0.0.1:9107 --drift-interval 1 > "$OUT/run.out" 2> "$OUT/run.log" &
PID=$!
await "[ \"\$(table | wc -l)\" -eq 3 ]" 60
table > "$OUT/1-started.txt"
$FW status > "$OUT/status.txt" 2> "$OUT/status.err"
echo $? > "$OUT/status.code"

# 2b. Operators' settings on the kernel table through the CLI (token from the runtime directory).
$FW server drain 10.16.0.1:80 10.16.1.1:80 > "$OUT/admin.out" 2> "$OUT/admin.err"
echo $? > "$OUT/drain.code"
table > "$OUT/a-drained.txt"
$FW server weight 10.16.0.1:80 10.16.1.2:80 5 >> "$OUT/admin.out" 2>> "$OUT/admin.err"
table > "$OUT/b-weighted.txt"
$FW server maint 10.16.0.1:80 10.16.1.1:80 >> "$OUT/admin.out" 2>> "$OUT/admin.err"
table > "$OUT/c-maint.txt"
"$PY" -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:9107/metrics').read().decode())" > "$OUT/metrics.txt" 2>&1
$FW server ready 10.16.0.1:80 10.16.1.1:80 >> "$OUT/admin.out" 2>> "$OUT/admin.err"
$FW server ready 10.16.0.1:80 10.16.1.2:80 >> "$OUT/admin.out" 2>> "$OUT/admin.err"
echo $? > "$OUT/ready.code"
table > "$OUT/d-ready.txt"

# 2c. Traffic through the kernel (a local client, NAT): the IPVS counters /metrics shows follow it.
ip addr add 10.16.0.1/32 dev lo
metrics() { "$PY" -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:9107/metrics').read().decode())"; }
metrics > "$OUT/metrics-before.txt" 2>&1
"$PY" -c "
import urllib.request
ok = 0
for i in range(10):
    try:
        urllib.request.urlopen('http://10.16.0.1/', timeout=3).read(); ok += 1
    except Exception as e:
        print(e)
print('ok', ok)
" > "$OUT/traffic.txt" 2>&1
# The kernel folds its per-CPU counters into the stats netlink reports every 2 s (the estimator):
# read until all ten connections show (at most 10 s; the test checks the difference is exactly
# 10). Not until the first shows: a fold in the middle of the traffic counted 3 of them once.
conns() { awk '/^fairway_server_connections_total\{/ { s += $NF } END { printf "%d\n", s }' "$1"; }
before=$(conns "$OUT/metrics-before.txt")
await "metrics > \"\$OUT/metrics-after.txt\" 2>&1; [ \"\$(conns \"\$OUT/metrics-after.txt\")\" -ge $((before + 10)) ]" 10
ip addr del 10.16.0.1/32 dev lo

# 3. An invalid file on SIGHUP is refused; the running configuration keeps working.
cp "$S/bad.conf" /run/k.conf
kill -HUP $PID
await "grep -q 'reload refused' \"\$OUT/run.log\"" 30
table > "$OUT/2-after-bad-reload.txt"
kill "$(cat /run/backend-2)"
await "! table | grep -q 10.16.1.2:80" 30
table > "$OUT/3-after-failure.txt"

# 3b. Real servers from DNS on the kernel: a reload adds a virtual server whose real servers are
# dnsmasq's A records; one address leaves the answer and its server leaves the table; a reload
# back to good.conf removes the virtual server.
for a in 3 4; do
  ip addr add 10.16.1.$a/32 dev lo
  "$PY" -m http.server --bind 10.16.1.$a 80 > /dev/null 2>&1 &
  echo $! > /run/backend-$a
done
await "listening 10.16.1.3 && listening 10.16.1.4" 60
printf '10.16.1.3 app.fairway.test\n10.16.1.4 app.fairway.test\n' > /run/dns-hosts
dnsmasq --keep-in-foreground --port=5353 --listen-address=127.0.0.1 --bind-interfaces --no-resolv \
  --no-hosts --addn-hosts=/run/dns-hosts --conf-file=/dev/null --user=root --local-ttl=0 \
  > "$OUT/dnsmasq.log" 2>&1 &
DNS=$!
cp "$S/dns.conf" /run/k.conf
kill -HUP $PID
await "[ \"\$(table | grep -c -- '-a -t 10.16.0.2:80')\" -eq 2 ]" 60
table > "$OUT/3b-dns.txt"
printf '10.16.1.3 app.fairway.test\n' > /run/dns-hosts
kill -HUP $DNS
await "! table | grep -q -- '-t 10.16.0.2:80 -r 10.16.1.4:80'" 60
table > "$OUT/3c-dns-left.txt"
cp "$S/good.conf" /run/k.conf
kill -HUP $PID
await "! table | grep -q 10.16.0.2:80" 60
table > "$OUT/3d-dns-removed.txt"
kill $DNS "$(cat /run/backend-3)" "$(cat /run/backend-4)"

# 4. Drift: a destination deleted behind fairway's back comes back.
ipvsadm -d -t 10.16.0.1:80 -r 10.16.1.1:80
table > "$OUT/4-drifted.txt"
await "table | grep -q 10.16.1.1:80" 30
table > "$OUT/5-repaired.txt"

# 5. SIGTERM removes what fairway installed and exits 0.
kill -TERM $PID
wait $PID
echo $? > "$OUT/run.code"
await true 0
table > "$OUT/6-after-stop.txt"
