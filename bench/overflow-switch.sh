#!/usr/bin/env bash
# Overflow to the sorry server on the kernel's IPVS (issue 17), measured in user-mode Linux:
# connections at a fixed rate (default 200/s) past a pool of 3 real servers x uthreshold 4 and
# back, once per --overflow-interval (default 0.01 0.002 0.05 s). Prints the refused connections
# and the switch windows in ms (docs/benchmarks.md). Needs user-mode-linux, kmod, ipvsadm,
# python3 and /lib/modules/<uml version> (see .ci/run).
#
#   bench/overflow-switch.sh [rate] [interval...]
set -euo pipefail
cd "$(dirname "$0")/.."
# One reactor run, so the other modules are their freshly compiled target/classes (never ~/.m2).
mvn -q -B -ntp -pl fairway-daemon -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/overflow-bench.classpath >/dev/null
cp="$(cd fairway-daemon && realpath -m target/classes):$(cd fairway-daemon && realpath -m target/test-classes):$(cat fairway-daemon/target/overflow-bench.classpath)"
cd fairway-daemon
exec java -cp "$cp" io.fairway.daemon.uml.OverflowSwitchBench "${@:-200}"
