#!/bin/sh
# Inside user-mode Linux: exec -> the whole table visible in the kernel's IPVS, for keepalived and
# for `fairway run`, on the same keepalived.conf of N real servers (one live backend, N-1 where
# nothing listens), ROUNDS times each. Usage: startup-uml.sh SCENARIO_DIR ROUNDS N...
# Prints: subject N ms (one line per round) into /run/out/startup.txt.
S=$1; ROUNDS=$2; shift 2
OUT=/run/out
FW="sh $S/fairway.sh"
PY=$(cat "$S/python")
ip addr add 10.16.1.1/32 dev lo
"$PY" -m http.server --bind 10.16.1.1 80 > /dev/null 2>&1 &

conf() { # N -> keepalived.conf on stdout
  awk -v n="$1" 'BEGIN {
    print "virtual_server 10.16.0.1 80 {\n  delay_loop 5\n  lb_algo rr\n  lb_kind NAT\n  protocol TCP"
    print "  real_server 10.16.1.1 80 {\n    weight 2\n    TCP_CHECK {\n      connect_timeout 2\n    }\n  }"
    for (i = 1; i < n; i++)
      printf "  real_server 10.17.%d.%d 9 {\n    weight 1\n    TCP_CHECK {\n      connect_timeout 2\n    }\n  }\n", int(i / 250), i % 250 + 1
    print "}"
  }'
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
dests() { ipvsadm -Sn | grep -c '^-a'; }

for n in "$@"; do
  conf "$n" > /run/k.conf
  r=0
  while [ $r -lt "$ROUNDS" ]; do
    for subject in keepalived fairway; do
      ipvsadm -C
      start=$(now_ms)
      if [ $subject = keepalived ]; then
        keepalived -C -n -l -f /run/k.conf -p /run/keepalived.pid -c /run/checkers.pid > /run/$subject.log 2>&1 &
      else
        $FW run -f /run/k.conf --admin off --drift-interval 0 > /run/$subject.log 2>&1 &
      fi
      pid=$!
      i=0
      while [ "$(dests)" -lt "$n" ] && [ $i -lt 6000 ]; do sleep 0.02; i=$((i + 1)); done
      echo "$subject $n $(($(now_ms) - start))" >> "$OUT/startup.txt"
      kill -TERM $pid; wait $pid
      # keepalived's checker child may outlive the parent for a moment.
      i=0; while [ -s /run/checkers.pid ] && kill -0 "$(cat /run/checkers.pid)" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    done
    r=$((r + 1))
  done
done
ipvsadm -C
