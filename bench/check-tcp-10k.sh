#!/usr/bin/env bash
# Check-engine benchmark: 10,000 real servers with TCP_CHECK at delay_loop 1 s.
# Usage: [NETNS=1 [HOST_RPS=1]] [BASELINE_N=100000] bench/check-tcp-10k.sh [servers=10000] [measure-seconds=30] [kills=20] [event-loop-threads=1]
# Prints checks/s, CPU of the engine process, false DOWNs, death->verdict latency, then the bare-socket floor
# (bench/check-baseline.java, BASELINE_N connections; 0 skips it) in the same setup.
#
# Default: the listeners are on loopback (127.1.x.y): the kernel runs both ends of every handshake in the
# checker's context. NETNS=1 (root): the listeners run in a network namespace created here, behind a veth pair,
# on 10.200.x.y (routed to the namespace only; nothing leaves the machine). RPS on the namespace's veth steers
# the server half of each handshake to CPU 1, RPS on the host's veth the client half to CPU 0, and the checker
# is pinned to CPU 0: it pays what it would pay against remote servers. The namespace is deleted on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
mvn -q -B -ntp -pl fairway-check -am package dependency:build-classpath -DskipTests \
    -Dmdep.outputFile=target/check-bench.cp -Dmdep.includeScope=compile
# Runtime classpath only: no test jars, so no logging binding (slf4j falls back to no-op).
cp="fairway-check/target/classes:$(tr ':' '\n' < fairway-check/target/check-bench.cp \
    | grep -v -e logback -e junit -e jqwik -e assertj -e awaitility -e opentest4j -e byte-buddy -e apiguardian \
    -e hamcrest | paste -sd:)"
props=()
pin=()
if [[ "${NETNS:-0}" == 1 ]]; then
    [[ $(id -u) == 0 ]] || { echo "NETNS=1 needs root (ip netns, veth)" >&2; exit 2; }
    ns=fwchk$$ host=fwc$$a peer=fwc$$b
    cleanup() { ip link del "$host" 2>/dev/null || true; ip netns del "$ns" 2>/dev/null || true; }
    trap cleanup EXIT INT TERM
    ip netns add "$ns"
    ip link add "$host" type veth peer name "$peer"
    ip link set "$peer" netns "$ns"
    ip addr add 10.199.0.1/30 dev "$host"
    ip link set "$host" up
    ip route add 10.200.0.0/16 via 10.199.0.2 dev "$host"
    ip netns exec "$ns" sh -ec "
        ip link set lo up
        ip addr add 10.199.0.2/30 dev $peer
        ip link set $peer up
        # every 10.200.x.y is local inside the namespace, so 10,000 listeners need no 10,000 addresses
        ip route add local 10.200.0.0/16 dev lo
        echo 2 > /sys/class/net/$peer/queues/rx-0/rps_cpus"
    # HOST_RPS=0 leaves the replies where they arrive (CPU 1): the checker then pays only its system calls and
    # transmits, a lower bound rather than a remote host.
    [[ "${HOST_RPS:-1}" == 0 ]] || echo 1 > "/sys/class/net/$host/queues/rx-0/rps_cpus"
    props=(-Dbench.prefix=10.200 -Dbench.netns="$ns")
    pin=(taskset -c 0)
fi
"${pin[@]}" java ${JAVA_OPTS:-} "${props[@]}" -Xmx1g -cp "$cp" bench/check-tcp-10k.java "$@"
if [[ "${BASELINE_N:-100000}" != 0 ]]; then
    cat /proc/loadavg
    "${pin[@]}" java "${props[@]}" bench/check-baseline.java "${1:-10000}" "${BASELINE_N:-100000}"
fi
