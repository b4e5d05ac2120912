#!/usr/bin/env bash
# Runs module test suites again and again, two at a time, to find tests that fail only sometimes.
#
#   bench/repeat-suites.sh [runs] [module...]        (defaults: 10 fairway-proxy fairway-check fairway-daemon)
#
# Each of the runs x modules jobs is `mvn -B verify` of one module (its upstream modules built
# with -am, only that module's tests run), under CI=true like .ci/run. Two workers (WORKERS) take jobs
# from one queue, each in its own clone of the branch, so two suites always run side by side:
# the contention is the point. By default a worker never starts a module another one is running
# (MODULE_LOCK=0 allows it). Before each job the worker takes the
# branch's newest commit, so fixes committed during a long session are in the later runs; every
# job records its commit.
#
# Environment: STOP_AT=HH:MM starts no job after that time; NICE (default 10) keeps other work on
# the machine responsive; WORKERS (default 2) how many suites run side by side; MODULE_LOCK=0 lets
# two workers run the same module at once (its namespaces, UML instances and ports are named per
# run: random tags, the test JVM's pid, ports the system picks); OUT (default /tmp/<branch>-repeat-<time>) gets one directory per job
# (log, surefire reports) and summary.tsv (run, module, commit, seconds, exit code, tests,
# failures, errors, skipped); fork-exit.txt lists jobs whose test fork had to be killed.
# bench/repeat-suites-summary.sh OUT prints the per-class table.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
branch=$(git rev-parse --abbrev-ref HEAD)
runs=${1:-10}
shift || true
modules=("$@")
((${#modules[@]})) || modules=(fairway-proxy fairway-check fairway-daemon)
out=${OUT:-/tmp/$branch-repeat-$(date +%H%M%S)}
nice_level=${NICE:-10}
workers=${WORKERS:-2}
module_lock=${MODULE_LOCK:-1}
mkdir -p "$out"
echo "results in $out" >&2

# The job queue: run-major, so every module's runs spread over the whole session.
queue="$out/queue"
: >"$queue"
for ((r = 1; r <= runs; r++)); do
  for m in "${modules[@]}"; do echo "$r $m" >>"$queue"; done
done
printf 'run\tmodule\tcommit\tseconds\texit\ttests\tfailures\terrors\tskipped\n' >"$out/summary.tsv"

# The test classes of one module: the packages of its own test tree (fairway-daemon has
# io.fairway.daemon and io.fairway.cli), so -am does not run the upstream suites.
tests_of() {
  local pkg patterns=()
  for pkg in $(cd "$1/src/test/java" && ls -d io/fairway/*/); do
    pkg=${pkg%/}
    patterns+=("$pkg/**/*Test" "$pkg/**/*Tests" "$pkg/**/Test*")
  done
  (IFS=,; echo "${patterns[*]}")
}

# Totals of one job's surefire reports: tests failures errors skipped.
totals() {
  local dir=$1
  python3 - "$dir" <<'EOF'
import sys, glob, xml.etree.ElementTree as ET
t = f = e = s = 0
for p in glob.glob(sys.argv[1] + "/surefire-reports*/TEST-*.xml"):
    r = ET.parse(p).getroot()
    t += int(r.get("tests", 0)); f += int(r.get("failures", 0)); e += int(r.get("errors", 0)); s += int(r.get("skipped", 0))
print(f"{t}\t{f}\t{e}\t{s}")
EOF
}

worker() {
  local id=$1 clone="$out/clone-$1"
  git clone -q --branch "$branch" "$repo" "$clone"
  while true; do
    local job
    job=$(flock "$queue.lock" sh -c 'head -1 "$1" && sed -i 1d "$1"' _ "$queue")
    [[ -n $job ]] || return 0
    if [[ -n ${STOP_AT:-} && $(date +%H:%M) > $STOP_AT ]]; then
      echo "worker $id: past $STOP_AT, not starting '$job'" >&2
      return 0
    fi
    local run=${job%% *} module=${job#* }
    git -C "$clone" fetch -q origin "$branch" && git -C "$clone" reset -q --hard FETCH_HEAD
    local commit dir="$out/run$run-$module"
    commit=$(git -C "$clone" rev-parse --short HEAD)
    mkdir -p "$dir"
    local t0=$SECONDS rc=0
    echo "worker $id: run $run $module at $commit ($(date +%H:%M:%S))" >&2
    local lock="/tmp/$branch-repeat-$module.lock"
    ((module_lock)) || lock="/tmp/$branch-repeat-$module-$id.lock"
    (
      cd "$clone"
      flock "$lock" \
        env CI=true nice -n "$nice_level" mvn -B -ntp -pl "$module" -am verify \
        -Dtest="$(tests_of "$module")" -Dsurefire.failIfNoSpecifiedTests=false
    ) >"$dir/mvn.log" 2>&1 || rc=$?
    local secs=$((SECONDS - t0))
    # Every execution's reports (fairway-proxy runs its suite a second time on epoll).
    local reports
    for reports in "$clone/$module"/target/surefire-reports*; do
      [[ -d $reports ]] && cp -r "$reports" "$dir/"
    done
    rm -rf "$clone/$module"/target/surefire-reports*
    if grep -q "Surefire is going to kill self fork JVM" "$dir/mvn.log"; then
      echo "run $run $module: the test fork did not exit by itself" >>"$out/fork-exit.txt"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$module" "$commit" "$secs" "$rc" "$(totals "$dir")" \
      | flock "$out/summary.lock" tee -a "$out/summary.tsv" >&2
  done
}

for ((w = 1; w <= workers; w++)); do worker "$w" & done
wait
"$repo/bench/repeat-suites-summary.sh" "$out"
