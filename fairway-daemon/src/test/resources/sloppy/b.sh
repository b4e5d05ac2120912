#!/bin/sh
# Director B (user-mode Linux on the switch, br0 10.99.0.2, the VIP on lo), with the rest of the
# network in namespaces on br0 (eth0 bridged in): the client sl-cl 10.99.0.10 and the real
# servers sl-rs1 10.99.0.20 and sl-rs2 10.99.0.21, the VIP on their lo for DR. B's agent runs
# Fairway; the client conducts the scenario (client.py).
# Usage: b.sh SCENARIO_DIR
S=$1
OUT=/run/out
set -x
modprobe bridge
modprobe veth
ip link add br0 type bridge
ip link set eth0 master br0
ip link set eth0 up
ip link set br0 up
ip addr add 10.99.0.2/24 dev br0
ip addr add 10.99.0.100/32 dev lo
# Fairway first: its JVM takes the longest to start.
python3 "$S/agent.py" serve 10.99.0.2 b "$S" > "$OUT/b-agent.log" 2>&1 &
AGENT=$!
netns() { # NAME ADDRESS
  ip netns add sl-$1
  ip link add sl-$1-h type veth peer name sl-$1-n
  ip link set sl-$1-h master br0
  ip link set sl-$1-h up
  ip link set sl-$1-n netns sl-$1
  ip -n sl-$1 link set lo up
  ip -n sl-$1 addr add $2/24 dev sl-$1-n
  ip -n sl-$1 link set sl-$1-n up
}
netns cl 10.99.0.10
for rs in rs1:10.99.0.20 rs2:10.99.0.21; do
  n=${rs%%:*}
  netns $n ${rs#*:}
  ip netns exec sl-$n sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
  ip -n sl-$n addr add 10.99.0.100/32 dev lo
  ip netns exec sl-$n python3 "$S/echo.py" $n > /run/echo-$n.log 2>&1 &
done
for n in rs1 rs2; do # bounded: 30 s
  i=0
  until grep -q ready /run/echo-$n.log || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
done
ip netns exec sl-cl python3 "$S/client.py" "$S" > "$OUT/client.log" 2>&1
CODE=$?
# The conductor stops B's agent when it gets that far; if it did not, nothing will.
[ $CODE -eq 0 ] || kill $AGENT
wait $AGENT
exit $CODE
