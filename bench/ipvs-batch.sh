#!/usr/bin/env bash
# Batching benchmark for the kernel IPVS table (issue 7): installs services x destinations
# (default 10 x 1000 = 10,010 rules) inside user-mode Linux, once with Fairway's batched
# generic-netlink table and once with `ipvsadm -R` of the same rules, alternating, per round.
# Needs user-mode-linux, kmod, ipvsadm and /lib/modules/<uml version> (see .ci/run).
#
#   bench/ipvs-batch.sh [services] [dests-per-service] [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp -pl fairway-ipvs -am test-compile
mvn -q -B -ntp -pl fairway-ipvs dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/ipvs-bench.classpath >/dev/null
# fairway-testkit's own classes (the UML harness) first: the classpath file names its installed jar.
cp="$(cd fairway-ipvs && realpath -m target/classes):$(cd fairway-ipvs && realpath -m target/test-classes):$(realpath -m fairway-testkit/target/classes):$(cat fairway-ipvs/target/ipvs-bench.classpath)"
exec java -cp "$cp" io.fairway.ipvs.uml.BatchBenchmark "${1:-10}" "${2:-1000}" "${3:-2}"
