#!/bin/sh
# The overflow switch on the kernel's IPVS, measured (bench/overflow-switch.sh runs this):
# connections at a fixed rate past the pool's capacity and back, once per --overflow-interval.
# Usage: overflow-bench.sh SCENARIO_DIR RATE INTERVAL...
S=$1
RATE=$2
shift 2
OUT=/run/out
FW="sh $S/fairway.sh"
# Every connection is held open, by the client and by the backends (started by topology.sh):
# 15 s at RATE/s is thousands of sockets.
ulimit -n 65536
. "$S/topology.sh"
P=100
for I in "$@"; do
  P=$((P + 1))
  # A new virtual port per run: the kernel revives a deleted service's destinations (with their
  # counts) only for the same virtual address and port.
  sed -e "s/10.16.0.1 80 {/10.16.0.1 $P {/" "$S/overflow.conf" > /run/bench-$P.conf
  $FW run -f /run/bench-$P.conf --admin off --overflow-interval "$I" \
    > "$OUT/bench-$I.out" 2> "$OUT/bench-$I.log" &
  PID=$!
  started "$KTABLE"
  ip netns exec ovf-cl python3 "$S/rate.py" 10.16.0.1 $P "$RATE" 2 13 10.17.1.9:80 proc \
    "$OUT/bench-$I.properties" > "$OUT/bench-$I.rate.log" 2>&1
  echo "interval=$I" >> "$OUT/bench-$I.properties"
  kill -TERM $PID
  wait $PID
done
