#!/usr/bin/env bash
# Coverage-guided fuzzing with Jazzer, for real: runs each @FuzzTest target for DURATION (the
# normal build only replays their seed inputs, in regression mode). One target per JVM, one after
# the other (Jazzer fuzzes one @FuzzTest method per run).
#
#   bench/fuzz.sh [DURATION] [MODULE:Class#method ...]      DURATION: 30s, 10m, 4h (default 5m)
#   bench/fuzz.sh 4h                                        every target, 4 hours each
#   bench/fuzz.sh 10m fairway-config:ConfigFuzzTest#parse   one target
#
# A crash (an exception other than the documented one, a broken invariant, a slow input past 30 s
# or memory past the JVM's heap) stops that target; Jazzer saves the input as crash-<sha1> in the
# target's seed directory (src/test/resources/<package>/<Class>Inputs/<method>/), where the
# normal build replays it from then on: fix the bug, give the file a name that says what it is,
# commit both. The generated corpus stays in <module>/.cifuzz-corpus/ (ignored by git) and makes
# the next run start where this one stopped. Logs and a summary line per target go to
# target/fuzz/. docs/testing.md ("Fuzzing") explains the targets and their invariants.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
duration="${1:-5m}"
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(
    fairway-config:ConfigFuzzTest#parse
    fairway-proxy:HttpFuzzTest#headParser
    fairway-proxy:HttpFuzzTest#requestDecoder
    fairway-proxy:HttpFuzzTest#responseDecoder
    fairway-proxy:HttpFuzzTest#chunkedBody
    fairway-ipvs:NetlinkFuzzTest#ipvsReply
    fairway-vrrp:VrrpFuzzTest#ipv4Datagram
    fairway-vrrp:VrrpFuzzTest#ipv6Payload
    fairway-daemon:AdminFuzzTest#requestTarget
    fairway-daemon:AdminFuzzTest#mutationBody
    fairway-daemon:AdminFuzzTest#duration
  )
fi
# The annotation's maxDuration (5m) bounds a run too; a libFuzzer flag given after it wins.
case "$duration" in
  *h) seconds=$(( ${duration%h} * 3600 )) ;;
  *m) seconds=$(( ${duration%m} * 60 )) ;;
  *s) seconds=${duration%s} ;;
  *) seconds=$duration ;;
esac
mkdir -p target/fuzz
status=0
for t in "${targets[@]}"; do
  module="${t%%:*}"
  test="${t#*:}"
  log="target/fuzz/${test//#/.}.log"
  before="$(git status --porcelain --untracked-files=all -- "$module" | grep -c '^?? .*crash-' || true)"
  JAZZER_FUZZ=1 mvn ${MVN_FLAGS:--B} -pl "$module" -am test -Dtest="$test" \
    -Dsurefire.failIfNoSpecifiedTests=false -DargLine="-Xmx1g -XX:-OmitStackTraceInFastThrow" \
    -Djazzer.max_duration="$duration" -Djazzer.internal.arg.0=fuzz \
    -Djazzer.internal.arg.1=-print_final_stats=1 -Djazzer.internal.arg.2=-timeout=30 \
    -Djazzer.internal.arg.3=-max_total_time="$seconds" \
    >"$log" 2>&1
  rc=$?
  runs="$(grep -a 'stat::number_of_executed_units' "$log" | tail -1 | awk '{print $2}')"
  secs="$(grep -a -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1 | awk '{print $5}')"
  cov="$(grep -a -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')"
  after="$(git status --porcelain --untracked-files=all -- "$module" | grep -c '^?? .*crash-' || true)"
  line="$t: ${runs:-?} inputs in ${secs:-?} s, coverage ${cov:-?} edges, exit $rc, new crash files $((after - before))"
  echo "$line" | tee -a target/fuzz/summary.txt
  [[ $rc -eq 0 ]] || status=1
done
exit $status
