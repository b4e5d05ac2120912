#!/bin/sh
# Director B (user-mode Linux on the switch): Fairway as VRRP backup with its backup sync daemon,
# on br0 (eth0 bridged with two namespaces: the client sf-cl 10.99.0.10 and the real server sf-rs
# 10.99.0.20, the VIP on its lo for DR). The client connects through A; once the connection is
# in B's table the test kills A; B takes the VIP and the client goes on on the same connection.
# Usage: b.sh SCENARIO_DIR
S=$1
OUT=/run/out
set -x
status() { python3 -c 'import urllib.request as u; print(u.urlopen("http://127.0.0.1:9107/status").read().decode())'; }
wait_for() { # SECONDS COMMAND...: poll every 0.1 s
  n=$(($1 * 10)); shift
  i=0
  until "$@" > /dev/null 2>&1 || [ $i -ge $n ]; do sleep 0.1; i=$((i + 1)); done
  "$@" > /dev/null 2>&1
}
modprobe bridge
modprobe veth
ip link add br0 type bridge
ip link set eth0 master br0
ip link set eth0 up
ip link set br0 up
ip addr add 10.99.0.2/24 dev br0
for n in cl rs; do
  ip netns add sf-$n
  ip link add sf-$n-h type veth peer name sf-$n-n
  ip link set sf-$n-h master br0
  ip link set sf-$n-h up
  ip link set sf-$n-n netns sf-$n
  ip -n sf-$n link set lo up
done
ip -n sf-cl addr add 10.99.0.10/24 dev sf-cl-n
ip -n sf-cl link set sf-cl-n up
ip netns exec sf-rs sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
ip -n sf-rs addr add 10.99.0.20/24 dev sf-rs-n
ip -n sf-rs addr add 10.99.0.100/32 dev lo
ip -n sf-rs link set sf-rs-n up
ip netns exec sf-rs python3 "$S/echo.py" > /run/echo.log 2>&1 &
sh "$S/fairway.sh" run -f "$S/b.conf" > "$OUT/b-run.out" 2> "$OUT/b-run.log" &
FW=$!
# A is master as B sees it, and the client's ARP entry for the VIP is A's MAC.
a_is_master() { status 2>/dev/null | grep -Eq 'VI_1 .*BACKUP .*10\.99\.0\.1 '; }
arp_to_a() { ip -n sf-cl neigh show 10.99.0.100 | grep -q fe:fd:0a:63:00:01; }
synced() { ipvsadm -Lnc | grep -q "10\.99\.0\.10:$PORT "; }
b_has_vip() { ip -4 addr show dev br0 | grep -q 10.99.0.100/; }
wait_for 240 a_is_master
wait_for 60 ip netns exec sf-cl ping -c1 -W1 10.99.0.100
wait_for 30 arp_to_a
ip -n sf-cl neigh show > "$OUT/b-client-neigh-before.txt"
status > "$OUT/b-status-before.txt" 2>&1
ipvsadm -L --daemon > "$OUT/b-daemons-before.txt"
ip netns exec sf-cl python3 "$S/client.py" 10.99.0.100 7000 > "$OUT/client.log" 2>&1 &
CL=$!
wait_for 60 test -e /run/connected
PORT=$(cat /run/connected)
# The connection A forwards is in B's table: copied by the sync daemons.
wait_for 60 synced
ipvsadm -Lnc > "$OUT/b-conns-synced.txt"
date +%s%N > "$OUT/synced"
sync
# The test pulls A's plug now; B takes over after the master down interval.
wait_for 120 b_has_vip
date +%s%N > "$OUT/b-master-at"
ipvsadm -L --daemon > "$OUT/b-daemons-master.txt"
ip -4 addr show dev br0 > "$OUT/b-addr.txt"
touch /run/failed-over
wait $CL
ipvsadm -Lnc > "$OUT/b-conns-after.txt"
status > "$OUT/b-status-after.txt" 2>&1
kill -TERM $FW
wait $FW
echo $? > "$OUT/b-run.code"
ipvsadm -L --daemon > "$OUT/b-daemons-after.txt"
