#!/bin/sh
# Issue 17 in user-mode Linux: overflow to the sorry server on the kernel's IPVS, compared with
# the same service without overflow and with the same file on --userspace.
# Topology (network namespaces made here): clients in ovf-cl (10.18.0.2) -> this kernel, the
# director (VIP 10.16.0.1 on lo) -> real servers in ovf-be (10.17.1.1-3, sorry 10.17.1.9).
# Usage: overflow.sh SCENARIO_DIR
S=$1
OUT=/run/out
FW="sh $S/fairway.sh"
set -x

. "$S/topology.sh"

drive() { # MODE PORT [--sorry ADDR]
  ip netns exec ovf-cl python3 "$S/driver.py" 10.16.0.1 "$2" "$OUT/$1-$2.properties" "$3" $4 $5 \
    > "$OUT/$1-$2.log" 2>&1
  echo $? > "$OUT/$1-$2.code"
}
# 1. The kernel's IPVS.
$FW run -f "$S/overflow.conf" --admin 127.0.0.1:9107 > "$OUT/kernel-run.out" 2> "$OUT/kernel-run.log" &
PID=$!
started "$KTABLE"
ipvsadm -Ln > "$OUT/kernel-table-start.txt"
drive kernel 80 "$KTABLE" --sorry 10.17.1.9:80 &
D1=$!
drive kernel 81 "$KTABLE" &
D2=$!
# The 13th connections are in ipvsadm -Lnc once both drivers have written their results.
wait $D1 $D2
ipvsadm -Lnc > "$OUT/kernel-conns.txt"
# slow_start: the alpha server's backend starts now; its weight is read back as it steps.
ip netns exec ovf-be python3 "$S/backend.py" 83 > /run/backend83.log 2>&1 &
python3 "$S/weights.py" 10.16.0.1:82 10.17.1.2:83 10 30 > "$OUT/kernel-ramp.txt" 2>&1
ipvsadm -Ln > "$OUT/kernel-table-end.txt"
kill -TERM $PID
wait $PID
echo $? > "$OUT/kernel-run.code"

# 2. The same file on the userspace proxy.
$FW run --userspace -f "$S/overflow.conf" --admin 127.0.0.1:9107 > "$OUT/user-run.out" 2> "$OUT/user-run.log" &
PID=$!
started "$UTABLE"
drive user 80 "$UTABLE" --settle 10.17.1.9:80 &
D1=$!
drive user 81 "$UTABLE" --settle 10.17.1.9:81 &
D2=$!
wait $D1 $D2
kill -TERM $PID
wait $PID
echo $? > "$OUT/user-run.code"
