#!/usr/bin/env bash
# Check-engine benchmark: 10,000 real servers with TCP_CHECK at delay_loop 1 s on loopback.
# Usage: bench/check-tcp-10k.sh [servers=10000] [measure-seconds=30] [kills=20] [event-loop-threads=1]
# Prints checks/s, CPU of the engine process, false DOWNs, and death->verdict latency.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
mvn -o -q -B -pl fairway-check -am package dependency:build-classpath -DskipTests \
    -Dmdep.outputFile=target/check-bench.cp -Dmdep.includeScope=compile
# Runtime classpath only: no test jars, so no logging binding (slf4j falls back to no-op).
cp="fairway-check/target/classes:$(tr ':' '\n' < fairway-check/target/check-bench.cp \
    | grep -v -e logback -e junit -e jqwik -e assertj -e awaitility -e opentest4j -e byte-buddy -e apiguardian \
    -e hamcrest | paste -sd:)"
exec java ${JAVA_OPTS:-} -Xmx1g -cp "$cp" bench/check-tcp-10k.java "$@"
