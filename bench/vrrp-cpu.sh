#!/usr/bin/env bash
# CPU of N VRRP instances at advert_int 1, and the failover time after kill -9 of the master,
# for keepalived and for Fairway, in two network namespaces joined by a veth pair (root; never
# the host's network). Usage: bench/vrrp-cpu.sh [N=100] [SECONDS=30]
#
# For each implementation: A is master of all N instances (priority 150), B backup (100). After
# a warm-up, the CPU time (utime + stime of every process in the namespace, /proc/PID/stat) is
# read over SECONDS on both sides; then A is stopped with SIGSTOP + SIGKILL and the time until B
# holds the first and the last of the N addresses is measured.
#
# IMPLS="keepalived fairway" (default) picks the implementations and their order; an entry
# "fairway:PATH" runs the jar at PATH (A/B of two builds in one sitting, e.g.
# IMPLS="fairway:/tmp/before.jar fairway:/tmp/after.jar fairway:/tmp/before.jar ...").
# WARMUP (seconds, default 5) before the CPU is read; FAIRWAY_JAVA_OPTS adds JVM options (e.g. a JFR recording) to the Fairway runs.
set -euo pipefail
N=${1:-100}
SECS=${2:-30}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$here/fairway-daemon/target/fairway.jar"
IMPLS=${IMPLS:-keepalived fairway}
[[ -f $jar || $IMPLS != *"fairway"* ]] || (cd "$here" && mvn -q -B -DskipTests package)
tmp=$(mktemp -d /tmp/fwv-bench.XXXXXX)
A=${NS_PREFIX:-fwv-bench}-a
B=${NS_PREFIX:-fwv-bench}-b
V=$(echo "${NS_PREFIX:-fwv-bench}" | tr -d -- - | cut -c1-13) # veth names, 15 characters at most
hz=$(getconf CLK_TCK)

cleanup() {
  for ns in $A $B; do
    pids=$(ip netns pids $ns 2>/dev/null || true)
    [[ -n $pids ]] && kill -9 $pids 2>/dev/null || true
    ip netns del $ns 2>/dev/null || true
  done
}
trap 'cleanup; rm -rf "$tmp"' EXIT

net() {
  cleanup
  ip netns add $A
  ip netns add $B
  ip link add ${V}a type veth peer name ${V}b
  ip link set ${V}a netns $A
  ip link set ${V}b netns $B
  ip -n $A link set ${V}a name eth0
  ip -n $B link set ${V}b name eth0
  ip -n $A addr add 10.99.0.1/24 dev eth0
  ip -n $B addr add 10.99.0.2/24 dev eth0
  for ns in $A $B; do ip -n $ns link set lo up; ip -n $ns link set eth0 up; done
}

conf() { # prio state
  echo "global_defs {"
  echo "  router_id bench"
  echo "}"
  for i in $(seq 1 "$N"); do
    cat <<EOF
vrrp_instance VI_$i {
  state $2
  interface eth0
  virtual_router_id $i
  priority $1
  advert_int 1
  virtual_ipaddress {
    10.98.$((i / 250)).$((i % 250 + 1))/32
  }
}
EOF
  done
}

cpu_ticks() { # ns
  local t=0
  for p in $(ip netns pids "$1"); do
    read -r -a f < "/proc/$p/stat" || continue
    # fields after the comm: utime is the 14th field, stime the 15th
    t=$((t + f[13] + f[14]))
  done
  echo $t
}

start() { # impl ns conf
  if [[ $1 == keepalived ]]; then
    ip netns exec "$2" keepalived -P -n -l -f "$3" -p "$tmp/$2.pid" -r "$tmp/$2-vrrp.pid" \
      > "$tmp/$2.log" 2>&1 &
  else
    # shellcheck disable=SC2086
    ip netns exec "$2" java -Xms64m -Xmx128m -XX:+UseSerialGC ${FAIRWAY_JAVA_OPTS:-} \
      -jar "${1#fairway:}" run -f "$3" --admin off > "$tmp/$2.log" 2>&1 &
  fi
}

holds() { ip -n "$1" -o addr show dev eth0 | grep -c " 10\.98\." || true; }

conf 150 MASTER > "$tmp/a.conf"
conf 100 BACKUP > "$tmp/b.conf"
echo "# $N instances, advert_int 1, CPU over $SECS s after warm-up; $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-11s %14s %14s %16s %16s\n" impl "master CPU %" "backup CPU %" "first VIP (ms)" "all VIPs (ms)"
for impl in $IMPLS; do
  [[ $impl == fairway ]] && impl="fairway:$jar"
  net
  start $impl $B "$tmp/b.conf"
  start $impl $A "$tmp/a.conf"
  for _ in $(seq 1 300); do [[ $(holds $A) -ge $N ]] && break; sleep 0.1; done
  sleep "${WARMUP:-5}" # warm-up (JIT, ARP); on a loaded machine the JIT needs longer
  a0=$(cpu_ticks $A); b0=$(cpu_ticks $B); t0=$(date +%s%N)
  sleep "$SECS"
  a1=$(cpu_ticks $A); b1=$(cpu_ticks $B); t1=$(date +%s%N)
  wall=$(( (t1 - t0) / 1000000 ))
  acpu=$(awk -v d=$((a1 - a0)) -v hz="$hz" -v w=$wall 'BEGIN { printf "%.2f", 100 * d / hz / (w / 1000) }')
  bcpu=$(awk -v d=$((b1 - b0)) -v hz="$hz" -v w=$wall 'BEGIN { printf "%.2f", 100 * d / hz / (w / 1000) }')
  pids=$(ip netns pids $A)
  kill -STOP $pids; kill -9 $pids
  ip -n $A -4 addr flush dev eth0 scope global 2>/dev/null || true
  k=$(date +%s%N); first=""; all=""
  for _ in $(seq 1 2000); do
    h=$(holds $B)
    [[ -z $first && $h -ge 1 ]] && first=$(( ($(date +%s%N) - k) / 1000000 ))
    if [[ $h -ge $N ]]; then all=$(( ($(date +%s%N) - k) / 1000000 )); break; fi
    sleep 0.01
  done
  printf "%-11s %14s %14s %16s %16s\n" "${impl##*/}" "$acpu" "$bcpu" "${first:-?}" "${all:-?}"
done
