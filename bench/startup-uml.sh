#!/usr/bin/env bash
# Start-up on the kernel's IPVS: keepalived 2.2.7 against `fairway run`, same keepalived.conf of
# N real servers, from exec to the whole table visible in IPVS (polled with ipvsadm every 20 ms),
# inside user-mode Linux (the host kernel has no ip_vs). The JVM in UML is slow (page faults;
# the harness's -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m), so Fairway's numbers here
# are pessimistic; bench/startup.sh has the host numbers for the userspace mode.
#
#   bench/startup-uml.sh [rounds] [N...]      (default: 3 rounds; 1 1000 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}; shift || true
sizes=("${@:-1 1000 10000}")
# One reactor run: sibling modules resolve to their target/classes (the last module written,
# fairway-daemon, wins the output file).
mvn -q -B -ntp -pl fairway-daemon -am test-compile dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$PWD/fairway-daemon/target/startup-bench.classpath" >/dev/null
cp="$(cd fairway-daemon && realpath -m target/classes):$(cd fairway-daemon && realpath -m target/test-classes):$(cat fairway-daemon/target/startup-bench.classpath)"
echo "# $(date -u +%FT%TZ) load average: $(cut -d' ' -f1-3 /proc/loadavg); subject N ms"
# shellcheck disable=SC2086
java -cp "$cp" io.fairway.daemon.uml.StartupBenchmark "$rounds" ${sizes[*]}
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
