#!/bin/sh
# Director A (user-mode Linux on the switch, eth0 10.99.0.1): Fairway as VRRP master with its
# master sync daemon. Writes what it forwards every half second until the test pulls its plug.
# Usage: a.sh SCENARIO_DIR
S=$1
OUT=/run/out
set -x
ip link set eth0 up
ip addr add 10.99.0.1/24 dev eth0
sh "$S/fairway.sh" run -f "$S/a.conf" --admin off > "$OUT/a-run.out" 2> "$OUT/a-run.log" &
i=0
while [ $i -lt 1200 ]; do # bounded: 10 minutes; the test kills this kernel within a few
  { ipvsadm -Lnc; ipvsadm -L --daemon; ip -4 addr show dev eth0; } > /run/state.tmp 2>&1
  cp /run/state.tmp "$OUT/a-state.txt"
  sync
  sleep 0.5
  i=$((i + 1))
done
