#!/usr/bin/env bash
# Batching benchmark for the kernel IPVS table (issue 7): installs services x destinations
# (default 10 x 1000 = 10,010 rules) inside user-mode Linux, once with Fairway's batched
# generic-netlink table and once with `ipvsadm -R` of the same rules, alternating, per round.
# Needs user-mode-linux, kmod, ipvsadm and /lib/modules/<uml version> (see .ci/run).
#
#   bench/ipvs-batch.sh [services] [dests-per-service] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
# One reactor build, so the classpath names the modules' target/classes (fairway-netlink, fairway-os,
# fairway-testkit's UML harness), not installed jars a clean clone does not have.
mvn -q -B -ntp -pl fairway-ipvs -am test-compile dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/ipvs-bench.classpath >/dev/null
cp="$(cd fairway-ipvs && realpath -m target/classes):$(cd fairway-ipvs && realpath -m target/test-classes):$(realpath -m fairway-testkit/target/classes):$(cat fairway-ipvs/target/ipvs-bench.classpath)"
exec java -cp "$cp" io.fairway.ipvs.uml.BatchBenchmark "${1:-10}" "${2:-1000}" "${3:-2}"
