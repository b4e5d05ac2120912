#!/usr/bin/env bash
# Health-check CPU side by side with keepalived 2.2.7 (issue 19): the same keepalived.conf of TCP
# TCP_CHECKs and HTTP HTTP_GETs at delay_loop 1 (retry 0, connect_timeout 1), run by keepalived's
# checker (`keepalived -C`) and by `fairway run` (kernel IPVS) in turn, ROUNDS times each, in one
# user-mode Linux boot (keepalived programs IPVS; the host kernel has none). Real servers on
# loopback inside UML: one nginx worker answers every 127.1.x.y:9000 (TCP) and 127.2.x.y:8080
# (HTTP 200); the victims (the last TCP_VICTIMS / HTTP_VICTIMS reals) are a separate listener on
# 9001 / 8081.
#
# Per daemon: wait for the whole table in IPVS, WARM s of warm-up, then a WINDOW s window:
# utime+stime of the checker process from the guest's /proc (keepalived: the checker child, its
# parent reported beside it; Fairway: the whole JVM) divided by the checks done in the window (the
# guest's TCP ActiveOpens: every check is one connect), plus the host CPU of the whole UML over the
# same window. Then the victims' listener is killed and /proc/net/ip_vs polled every 20 ms:
# death -> verdict is the time until each victim leaves the table.
#
# NETNS=1 (root) runs the same on the host instead, in a network namespace of its own: no UML
# emulation cost, but no IPVS either, so keepalived runs with bench/fake-ipvs.c preloaded (its
# IPVS calls succeed and are logged with a time stamp, nothing is programmed) and Fairway with
# --userspace (its own table; the data plane's listeners are idle). The checks and the verdict
# path up to the table call are the real ones; death -> verdict comes from those time stamps
# (keepalived) and Fairway's "Applier: ... removing" log lines.
#
#   bench/check-vs-keepalived.sh [rounds=2] [tcp=10000] [http=1000] [warm=15] [window=30]
# TCP_CHECK=half-open (with NETNS=1) adds a third daemon to every round, fairway-halfopen: `fairway run
# --tcp-check=half-open`, whose TCP_CHECKs are SYN probes that make no ActiveOpen. Its checks are
# counted as ActiveOpens (the HTTP_GETs) plus the namespace's resets sent for no socket: Tcp
# OutRsts less TcpExt TCPAbortOnData/TCPAbortOnClose (the resets of closed sockets: Fairway's
# linger-0 closes), i.e. the kernel's reset to each probe's SYN-ACK. Both Fairway daemons then run
# with the admin listener on the namespace's loopback, and the check attempts Fairway itself
# counted (fairway_check_results_total, read just outside the window) are reported beside it.
#
#   env: TCP_VICTIMS=50 HTTP_VICTIMS=20 RESULTS=dir FAIRWAY_ARGS="--drift-interval 0"
#        TCP_CHECK=half-open DAEMONS="keepalived fairway fairway-halfopen" (the default with it)
#        FAIRWAY_JAVA_OPTS (default: the Debian unit's, see below)
# Results: RESULTS (default target/check-vs-keepalived/STAMP): run-R-DAEMON.json and .log,
# keepalived.conf, host-cpu.tsv, summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2} tcp=${2:-10000} http=${3:-1000} warm=${4:-15} window=${5:-30}
jar=${FAIRWAY_JAR:-fairway-daemon/target/fairway.jar}
if [[ ! -f $jar ]]; then
  mvn -q -B -ntp -pl fairway-daemon -am package -DskipTests
fi
jar=$(realpath "$jar")
# What systemd's fairway.service runs (fairway-dist: the launcher's options plus C1 only); the
# inside script adds temp dirs on a writable file system.
jvm=${FAIRWAY_JAVA_OPTS:-"-Xms256m -Xmx512m -Dio.netty.leakDetection.level=disabled -XX:TieredStopAtLevel=1"}
fwargs=${FAIRWAY_ARGS-"--drift-interval 0"}
if [[ ${TCP_CHECK:-connect} == half-open ]]; then
  [[ ${NETNS:-0} == 1 ]] || { echo "TCP_CHECK=half-open needs NETNS=1 (the UML guest has no raw-socket run)" >&2; exit 2; }
  export DAEMONS=${DAEMONS:-keepalived fairway fairway-halfopen} FW_METRICS=1
elif [[ ${TCP_CHECK:-connect} != connect ]]; then
  echo "TCP_CHECK must be connect or half-open, not $TCP_CHECK" >&2; exit 2
fi
results=${RESULTS:-target/check-vs-keepalived/$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$results"
results=$(cd "$results" && pwd)
{
  echo "# $(date -u +%FT%TZ) $(uptime)"
  echo "# ${NETNS:+NETNS=1 }bench/check-vs-keepalived.sh $rounds $tcp $http $warm $window (victims ${TCP_VICTIMS:-50} tcp, ${HTTP_VICTIMS:-20} http) fairway args: $fwargs; jvm: $jvm${DAEMONS:+; daemons: $DAEMONS}"
  echo "# $(keepalived --version 2>&1 | head -1); $(git log -1 --format='%h %s' | cut -c1-80)"
} | tee "$results/summary.txt"
args=("$rounds" "$tcp" "$http" "${TCP_VICTIMS:-50}" "${HTTP_VICTIMS:-20}" "$warm" "$window" "$fwargs")
if [[ ${NETNS:-0} == 1 ]]; then
  [[ $(id -u) == 0 ]] || { echo "NETNS=1 needs root (ip netns)" >&2; exit 2; }
  ns=fwcvk$$
  trap 'ip netns del $ns 2>/dev/null || true' EXIT INT TERM
  ip netns add "$ns"
  # 10.16.0.0/16 (the virtual servers) local, so Fairway's userspace listeners can bind there.
  ip netns exec "$ns" sh -ec 'ip link set lo up; ip route add local 10.16.0.0/16 dev lo'
  gcc -O2 -Wall -shared -fPIC -o "$results/fake-ipvs.so" bench/fake-ipvs.c -ldl
  ip netns exec "$ns" sh bench/check-vs-keepalived-inside.sh "$PWD/bench" "$jar" \
    "$(command -v java)" "$jvm" "${args[@]}" "$results" "$results/fake-ipvs.so"
else
  # The UML harness (io.fairway.testkit.uml.Uml) is in fairway-testkit.
  mvn -q -B -ntp -pl fairway-testkit -am compile
  java -cp fairway-testkit/target/classes bench/check-vs-keepalived.java \
    "$results" "$jar" "$jvm" "${args[@]}"
fi
python3 bench/check-vs-keepalived.py report "$results" | tee -a "$results/summary.txt"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results/summary.txt"
