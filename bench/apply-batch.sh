#!/usr/bin/env bash
# The applier installing 10 virtual servers x 1,000 real servers into the kernel's IPVS (batched
# through Table.apply), side by side with `ipvsadm -R` of the same 10,010 rules, in one user-mode
# Linux boot; also a quorum loss on 1,000 servers and the shutdown removal.
# Usage: bench/apply-batch.sh      (results: fairway-apply/target/bench-apply-batch/results.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -ntp -pl fairway-apply -am test -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtest=ApplyBatchBench -Dfairway.bench=true
cat fairway-apply/target/bench-apply-batch/results.txt
