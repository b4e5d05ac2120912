#!/usr/bin/env bash
# User and system CPU, and context switches, per request: HAProxy against Fairway, alternating in
# rounds; FMODE=tcp (default) compares the L4 relays, FMODE=http the HTTP proxies. B_CP=CLASSPATH (or B_OPTS=JVM flags) adds fairway-b,
# a second relay from another build, for an A/B of code changes in the same sitting.
#   [FMODE=tcp|http] [ROUNDS=3] [D=8] [PREWARM=0] [WRK_EXTRA="Connection: close"] [B_CP=...] bench/proxy-cpu-split.sh
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
build_fairway
N1=$(free_port); N2=$(free_port)
start_nginx n1 "$N1"; start_nginx n2 "$N2"
HT=$(free_port)
if [[ ${FMODE:-tcp} == http ]]; then
  { haproxy_globals; haproxy_http_listen "$HT" "$N1" "$N2"; } >"$WORK/haproxy.cfg"
else
  { haproxy_globals; haproxy_tcp_listen "$HT" "$N1" "$N2"; } >"$WORK/haproxy.cfg"
fi
haproxy -f "$WORK/haproxy.cfg" -db &
HP=$!; PIDS+=($HP)
TARGETS=("haproxy $HT $HP")
FT=$(free_port)
start_fairway ${FMODE:-tcp} "$FT" rr "127.0.0.1:$N1" "127.0.0.1:$N2"
TARGETS+=("fairway $FT $FAIRWAY_PID")
if [[ -n ${B_CP:-}${B_OPTS:-} ]]; then
  FB=$(free_port); FAIRWAY_CP="${B_CP:-$FAIRWAY_CP}" FAIRWAY_JAVA_OPTS="${B_OPTS:-$(fairway_jvm_opts)}" FAIRWAY_THREADS=${B_THREADS:-2} start_fairway ${FMODE:-tcp} "$FB" rr "127.0.0.1:$N1" "127.0.0.1:$N2"
  TARGETS+=("fairway-b $FB $FAIRWAY_PID")
fi
wait_port $HT
ctx() { cat /proc/$1/task/*/status | awk '/^voluntary_ctxt/ {v+=$2} /^nonvoluntary_ctxt/ {n+=$2} END {print v, n}'; }
D=${D:-8}; WRK_H=(); [[ -n ${WRK_EXTRA:-} ]] && WRK_H=(-H "$WRK_EXTRA")
for t in "${TARGETS[@]}"; do set -- $t; [[ ${PREWARM:-0} -gt 0 ]] && wrk -t2 -c64 -d${PREWARM}s "${WRK_H[@]}" http://127.0.0.1:$2/ >/dev/null; done
for r in $(seq ${ROUNDS:-3}); do
for t in "${TARGETS[@]}"; do
  set -- $t
  wrk -t2 -c64 -d3s "${WRK_H[@]}" http://127.0.0.1:$2/ >/dev/null
  read u0 s0 < <(awk '{print $14, $15}' /proc/$3/stat); read v0 n0 < <(ctx $3)
  out=$(wrk -t2 -c64 -d${D}s --latency "${WRK_H[@]}" http://127.0.0.1:$2/)
  read u1 s1 < <(awk '{print $14, $15}' /proc/$3/stat); read v1 n1 < <(ctx $3)
  n=$(echo "$out" | awk '/requests in/ {print $1}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  awk -v n=$n -v u=$((u1-u0)) -v s=$((s1-s0)) -v name=$1 -v p=$p99 -v d=$D -v vc=$((v1-v0)) -v nc=$((n1-n0)) 'BEGIN {printf "%-10s rps %7.0f p99 %8s user %5.2f sys %5.2f total %5.2f us/req  vcs/kreq %6.1f nvcs/kreq %6.1f\n", name, n/d, p, u*1e4/n, s*1e4/n, (u+s)*1e4/n, vc*1000/n, nc*1000/n}'
done
done
cat /proc/loadavg
