# Sourced by overflow.sh and overflow-bench.sh (S = the scenario directory): network namespaces
# for clients (ovf-cl, 10.18.0.2) and real servers (ovf-be, 10.17.1.1-3 and the sorry server
# 10.17.1.9), this kernel routing between them with the VIP 10.16.0.1 on lo, the backends started,
# and HOST, KTABLE and UTABLE: how to run a command in this namespace and print the kernel's or
# fairway's table (the drivers run in ovf-cl).
modprobe veth
sysctl -qw net.ipv4.ip_forward=1
sysctl -qw net.ipv4.conf.all.rp_filter=0
ip addr add 10.16.0.1/32 dev lo
ip netns add ovf-be
ip netns add ovf-cl
ip link add ovf-h1 type veth peer name ovf-b
ip link set ovf-b netns ovf-be
ip link add ovf-h2 type veth peer name ovf-c
ip link set ovf-c netns ovf-cl
ip addr add 10.17.0.1/24 dev ovf-h1
ip link set ovf-h1 up
ip addr add 10.18.0.1/24 dev ovf-h2
ip link set ovf-h2 up
ip route add 10.17.1.0/24 via 10.17.0.2
ip route add 10.18.0.0/24 dev ovf-h2
ip -n ovf-be link set lo up
ip -n ovf-be addr add 10.17.0.2/24 dev ovf-b
for a in 1 2 3 9; do ip -n ovf-be addr add 10.17.1.$a/32 dev ovf-b; done
ip -n ovf-be link set ovf-b up
ip -n ovf-be route add default via 10.17.0.1
ip -n ovf-cl link set lo up
ip -n ovf-cl addr add 10.18.0.2/24 dev ovf-c
ip -n ovf-cl link set ovf-c up
ip -n ovf-cl route add default via 10.18.0.1

ip netns exec ovf-be python3 "$S/backend.py" 80 81 > /run/backend.log 2>&1 &
i=0
while ! grep -q ready /run/backend.log && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

HOST="nsenter --net=/proc/1/ns/net"
KTABLE="$HOST ipvsadm -Ln"
UTABLE="$HOST python3 -c 'import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:9107/status\").read().decode())'"

started() { # TABLE_CMD [COUNT]: wait until COUNT (6) real server lines are in the table
  i=0
  while [ "$(sh -c "$1" 2>/dev/null | grep -c -- '-> 10.17.1.[123]:8')" -lt "${2:-6}" ] && [ $i -lt 900 ]; do
    sleep 0.1; i=$((i + 1))
  done
}
