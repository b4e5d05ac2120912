#!/usr/bin/env bash
# Failover under load: two routers A (priority 150) and B (100), each `fairway run --userspace`
# with the same virtual server on the VRRP address (10.99.0.100:8080 -> nginx at 10.99.0.3:8081),
# in namespaces joined by a bridge in a client namespace C (root; never the host's network).
# From C a bounded wrk (-t2 -c16) and a new-connection probe (every 20 ms, 200 ms timeouts,
# fairway-daemon/src/test/resources/vrrp/probe.py) run for SECONDS; after WARMUP seconds A is
# stopped and killed (SIGSTOP + SIGKILL, its addresses flushed as a dead machine's would be).
# Prints, per round: wrk's requests and failures, and when new connections failed and succeeded
# again, in ms after the kill. Usage: bench/vrrp-failover.sh [ROUNDS=3] [SECONDS=12] [WARMUP=4]
set -euo pipefail
ROUNDS=${1:-3}
SECS=${2:-12}
WARMUP=${3:-4}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="${FAIRWAY_JAR:-$here/fairway-daemon/target/fairway.jar}"
[[ -f $jar ]] || (cd "$here" && mvn -q -B -DskipTests package)
probe="$here/fairway-daemon/src/test/resources/vrrp/probe.py"
tmp=$(mktemp -d /tmp/vrrpops-bench.XXXXXX)
A=vrrpops-bench-a
B=vrrpops-bench-b
C=vrrpops-bench-c
VIP=10.99.0.100

cleanup() {
  for ns in $A $B $C; do
    pids=$(ip netns pids $ns 2>/dev/null || true)
    [[ -n $pids ]] && kill -9 $pids 2>/dev/null || true
    ip netns del $ns 2>/dev/null || true
  done
}
trap 'cleanup; rm -rf "$tmp"' EXIT

net() {
  cleanup
  for ns in $A $B $C; do ip netns add $ns; ip -n $ns link set lo up; done
  ip -n $C link add br0 type bridge mcast_snooping 0
  ip -n $C addr add 10.99.0.3/24 dev br0
  ip -n $C link set br0 up
  local i=1
  for ns in $A $B; do
    ip -n $C link add vobench$i type veth peer name vobench${i}i
    ip -n $C link set vobench${i}i netns $ns
    ip -n $C link set vobench$i master br0
    ip -n $C link set vobench$i up
    ip -n $ns link set vobench${i}i name eth0
    ip -n $ns addr add 10.99.0.$i/24 dev eth0
    ip -n $ns link set eth0 up
    i=$((i + 1))
  done
}

conf() { # prio state
  cat <<EOF2
global_defs {
  router_id bench
}
virtual_server $VIP 8080 {
  delay_loop 1
  lb_algo rr
  lb_kind PROXY
  protocol TCP
  real_server 10.99.0.3 8081 {
    weight 1
    TCP_CHECK {
      connect_timeout 1
    }
  }
}
vrrp_instance VI_1 {
  state $2
  interface eth0
  virtual_router_id 51
  priority $1
  advert_int 1
  virtual_ipaddress {
    $VIP/24
  }
}
EOF2
}

nginx_conf() {
  cat <<EOF2
worker_processes 1;
error_log $tmp/nginx-error.log warn;
pid $tmp/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $tmp/body; proxy_temp_path $tmp/proxy;
  fastcgi_temp_path $tmp/fcgi; uwsgi_temp_path $tmp/uwsgi; scgi_temp_path $tmp/scgi;
  server { listen 10.99.0.3:8081; location / { return 200 "ok\n"; } }
}
EOF2
}

fairway() { # ns conf
  ip netns exec "$1" java -Xms64m -Xmx128m -XX:+UseSerialGC -jar "$jar" run --userspace \
    --grace-period 0 --admin off -f "$2" > "$tmp/$1.log" 2>&1 &
}

conf 150 MASTER > "$tmp/a.conf"
conf 100 BACKUP > "$tmp/b.conf"
nginx_conf > "$tmp/nginx.conf"
echo "# kill -9 of the master under wrk -t2 -c16; master down interval 3609 ms; $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-6s %10s %8s %32s %14s %14s %12s\n" round requests failed "wrk errors (conn/read/write/to/5xx)" "first fail ms" "last fail ms" "served ms"
for r in $(seq 1 "$ROUNDS"); do
  net
  ip netns exec $C nginx -p "$tmp" -c "$tmp/nginx.conf" -g "daemon off;" > /dev/null 2>&1 &
  fairway $B "$tmp/b.conf"
  fairway $A "$tmp/a.conf"
  for _ in $(seq 1 600); do
    ip -n $A -o addr show dev eth0 | grep -q " $VIP/" \
      && ip netns exec $C curl -sf --max-time 1 "http://$VIP:8080/" > /dev/null && break
    sleep 0.1
  done
  sleep 2 # B's checker up, both JITs warm
  ip netns exec $C python3 "$probe" $VIP 8080 "$SECS" "$tmp/probe.txt" &
  probe_pid=$!
  ip netns exec $C wrk -t2 -c16 -d"${SECS}s" --timeout 2s "http://$VIP:8080/" > "$tmp/wrk.txt" 2>&1 &
  wrk_pid=$!
  sleep "$WARMUP"
  pids=$(ip netns pids $A)
  killed=$(date +%s%3N)
  kill -STOP $pids; kill -9 $pids
  ip -n $A -4 addr flush dev eth0 secondary 2>/dev/null || true
  wait $probe_pid $wrk_pid || true
  req=$(grep -oE '[0-9]+ requests in' "$tmp/wrk.txt" | grep -oE '^[0-9]+' || echo 0)
  errs=$(grep -oE 'connect [0-9]+, read [0-9]+, write [0-9]+, timeout [0-9]+' "$tmp/wrk.txt" \
    | grep -oE '[0-9]+' | paste -sd/ || true)
  non2xx=$(grep -oE 'Non-2xx or 3xx responses: [0-9]+' "$tmp/wrk.txt" | grep -oE '[0-9]+$' || echo 0)
  [[ -z $errs ]] && errs=0/0/0/0
  failed=$(( $(echo "$errs" | tr / +) + non2xx ))
  read -r ff lf served < <(awk -v k="$killed" '
    $2 == "fail" { if (ff == "") ff = $1 - k; lf = $1 - k }
    { t[NR] = $1 - k; ok[NR] = ($2 == "ok") }
    END { s = ""; for (i = 1; i <= NR; i++) if (t[i] > lf && ok[i]) { s = t[i]; break }
          print (ff == "" ? "-" : ff), (lf == "" ? "-" : lf), (s == "" ? "-" : s) }' "$tmp/probe.txt")
  printf "%-6s %10s %8s %32s %14s %14s %12s\n" "$r" "$req" "$failed" "$errs/$non2xx" "$ff" "$lf" "$served"
done
