#!/usr/bin/env bash
# Failover under load: two routers A (priority 150) and B (100), each `fairway run --userspace`
# with the same virtual server on the VRRP address (10.99.0.100:8080 -> nginx at 10.99.0.3:8081),
# in namespaces joined by a bridge in a client namespace C (root; never the host's network).
# From C a bounded wrk (-t2 -c16) and a new-connection probe (one attempt every 20 ms, attempts
# overlapping, 200 ms timeouts, fairway-daemon/src/test/resources/vrrp/probe.py) run for
# SECONDS; after WARMUP seconds A is stopped and killed (SIGSTOP + SIGKILL, its addresses flushed
# as a dead machine's would be). B's interface is captured meanwhile (capture.py: adverts, ARP,
# SYN and SYN-ACK with kernel timestamps).
# IMPLS="fairway keepalived" (default) runs each round once per VRRP speaker: "fairway" is
# fairway's own VRRP; "keepalived" is keepalived 2.2 (-P, VRRP only) moving the address while a
# `fairway run --userspace` without vrrp blocks serves it, so the two differ only in VRRP.
# Prints, per round: wrk's requests and failures; A's last advert as B received it, in ms after
# the kill; then, in ms after that advert, B's first advert, its first gratuitous ARP, its first
# SYN-ACK from the address and the probe's first success after its last failure to connect (also
# after the kill), and how many probe attempts connected but had no answer within 2 s ("slow").
# Usage: bench/vrrp-failover.sh [ROUNDS=3] [SECONDS=12] [WARMUP=4]
set -euo pipefail
ROUNDS=${1:-3}
SECS=${2:-12}
WARMUP=${3:-4}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="${FAIRWAY_JAR:-$here/fairway-daemon/target/fairway.jar}"
[[ -f $jar ]] || (cd "$here" && mvn -q -B -DskipTests package)
probe="$here/fairway-daemon/src/test/resources/vrrp/probe.py"
capture="$here/fairway-daemon/src/test/resources/vrrp/capture.py"
IMPLS=${IMPLS:-fairway keepalived}
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

vs() {
  cat <<EOF2
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
EOF2
}

vrrp() { # prio state
  cat <<EOF2
global_defs {
  router_id bench
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
    --grace-period 0 --admin off -f "$2" >> "$tmp/$1.log" 2>&1 &
}

router() { # impl ns prio state
  if [[ $1 == keepalived ]]; then
    vrrp "$3" "$4" > "$tmp/$2-vrrp.conf"
    ip netns exec "$2" keepalived -P -n -l -D -f "$tmp/$2-vrrp.conf" -p "$tmp/$2-k.pid" \
      -r "$tmp/$2-kv.pid" >> "$tmp/$2.log" 2>&1 &
    vs > "$tmp/$2.conf"
  else
    { vrrp "$3" "$4"; vs; } > "$tmp/$2.conf"
  fi
  fairway "$2" "$tmp/$2.conf"
}

# The first line at or after $2 (epoch us) matching the awk regex $3, in the capture $1: its time.
first() { awk -v from="$2" -v re="$3" '$1 >= from && $0 ~ re { print $1; exit }' "$1"; }

nginx_conf > "$tmp/nginx.conf"
echo "# kill -9 of the master under wrk -t2 -c16; master down interval 3609 ms; $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-6s %-10s %9s %7s %13s | %11s %9s %9s %9s | %10s %5s\n" round vrrp requests failed \
  "last advert" "B advert" GARP SYN-ACK "probe ok" "probe ok" slow
printf "%-6s %-10s %9s %7s %13s | %-41s | %10s\n" "" "" "" "" "(after kill)" \
  "(ms after A's last advert)" "(after kill)"
for r in $(seq 1 "$ROUNDS"); do
  for impl in $IMPLS; do
    net
    rm -f "$tmp"/*.log
    ip netns exec $C nginx -p "$tmp" -c "$tmp/nginx.conf" -g "daemon off;" > /dev/null 2>&1 &
    router "$impl" $B 100 BACKUP
    router "$impl" $A 150 MASTER
    for _ in $(seq 1 600); do
      ip -n $A -o addr show dev eth0 | grep -q " $VIP/" \
        && ip netns exec $C curl -sf --max-time 1 "http://$VIP:8080/" > /dev/null && break
      sleep 0.1
    done
    sleep 2 # B's checker up, both JITs warm
    ip netns exec $B python3 "$capture" eth0 $((SECS + 2)) "$tmp/capture.txt" 8080 &
    cap_pid=$!
    for _ in $(seq 1 100); do [[ -s $tmp/capture.txt ]] && break; sleep 0.05; done
    ip netns exec $C python3 "$probe" $VIP 8080 "$SECS" "$tmp/probe.txt" &
    probe_pid=$!
    ip netns exec $C wrk -t2 -c16 -d"${SECS}s" --timeout 2s "http://$VIP:8080/" > "$tmp/wrk.txt" 2>&1 &
    wrk_pid=$!
    sleep "$WARMUP"
    pids=$(ip netns pids $A)
    killed=$(date +%s%3N)
    kill -STOP $pids; kill -9 $pids
    ip -n $A -4 addr flush dev eth0 secondary 2>/dev/null || true
    wait $probe_pid $wrk_pid $cap_pid || true
    req=$(grep -oE '[0-9]+ requests in' "$tmp/wrk.txt" | grep -oE '^[0-9]+' || echo 0)
    errs=$(grep -oE 'connect [0-9]+, read [0-9]+, write [0-9]+, timeout [0-9]+' "$tmp/wrk.txt" \
      | grep -oE '[0-9]+' | paste -sd+ || true)
    non2xx=$(grep -oE 'Non-2xx or 3xx responses: [0-9]+' "$tmp/wrk.txt" | grep -oE '[0-9]+$' || echo 0)
    failed=$(( ${errs:-0} + non2xx ))
    k=$((killed * 1000))
    badv=$(first "$tmp/capture.txt" $k " out vrrp 10.99.0.2 51 ")
    last=$(awk -v to="${badv:-0}" '$1 < to && / in vrrp 10\.99\.0\.1 51 / { t = $1 } END { print t }' \
      "$tmp/capture.txt")
    garp=$(first "$tmp/capture.txt" $k " out arp request $VIP $VIP ")
    synack=$(first "$tmp/capture.txt" $k " out synack $VIP:8080 ")
    # The outage ends with the last attempt that could not connect; an attempt that connected
    # but had no answer within 2 s is counted apart (none so far).
    ok=$(sort -n "$tmp/probe.txt" | awk '$2 == "fail" && / connecting$/ { lf = $1 }
      { t[NR] = $1; ok[NR] = ($2 == "ok") }
      END { for (i = 1; i <= NR; i++) if (t[i] > lf && ok[i]) { printf "%.0f000\n", t[i]; exit } }')
    slow=$(grep -c "awaiting the answer" "$tmp/probe.txt" || true)
    rel() { [[ -n $1 && -n $2 ]] && echo $(( ($1 - $2) / 1000 )) || echo -; }
    printf "%-6s %-10s %9s %7s %13s | %11s %9s %9s %9s | %10s %5s\n" "$r" "$impl" "$req" "$failed" \
      "$(rel "$last" $k)" "$(rel "$badv" "$last")" "$(rel "$garp" "$last")" \
      "$(rel "$synack" "$last")" "$(rel "$ok" "$last")" "$(rel "$ok" $k)" "$slow"
  done
done
