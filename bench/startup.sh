#!/usr/bin/env bash
# Start-up time of `fairway run --userspace` against HAProxy on the same configuration size:
# from exec to the table applied (Fairway's "Daemon: running" log line, whose timestamp is taken
# after the table is installed and before READY=1) and to the first HTTP request served through
# the virtual server. One real backend (python http.server) plus N-1 real servers on 127.77.x.y:9
# where nothing listens (their checks fail, as a big pool's few dead servers would); the director
# sends traffic to the live one (Fairway: lb_algo fo with weight 2; HAProxy: balance first).
#
# Usage: bench/startup.sh [N...]          (default: 1 1000 10000)
#   ROUNDS=5          rounds per variant and size (the median is printed)
#   VARIANTS="..."    which of: default c1 cds-run cds-run+c1 cds-pkg+c1 cds-check+c1 haproxy (default: all)
#   CPU_AT=30         also read the process's CPU 30 s after exec (the first round of checks, whose
#                     verdicts on the N-1 dead servers come in after "applied"), and how many DOWN
#                     verdicts were logged by then
#   UNTIL_DOWN=600    also wait (at most that many seconds) until all N-1 dead servers' DOWN verdicts
#                     are logged, and read the process's CPU then: what the first round of checks
#                     costs, however long a loaded machine takes to give it that CPU
#   JAR=path          the fairway.jar to run (default: this checkout's; for a before/after pair)
#   JVM variants: default launcher options; + -XX:TieredStopAtLevel=1 (c1); + an AppCDS archive
#   made by a training run of `fairway run` on the same size (cds-run); + the archive the Debian
#   package makes at install time, from postinst's `fairway training-run` (cds-pkg: a short run
#   on its own loopback backend that stops by itself; check-config's classes too); + an archive
#   trained on `check-config --dump` of the same size only, as the package did before (cds-check).
# Everything listens on loopback only. Prints one line per size and variant:
#   variant N applied_ms served_ms main_cpu_ms process_cpu_ms
# main_cpu_ms is the CPU time (user + system) of the JVM's main thread, which parses, plans and
# installs the table, read once the table is applied: on a loaded machine it is the robust figure
# (wall time there is mostly waiting for a core). process_cpu_ms is the whole JVM's at that moment
# (JIT, GC, checkers and event loops included). With CPU_AT two more columns: cpu_at_ms, the
# process's CPU CPU_AT s after exec, and downs, the DOWN verdicts logged by then. With UNTIL_DOWN
# two more: down_ms (exec to the last DOWN verdict logged; -1 if not within the bound) and
# cpu_down_ms (the process's CPU then).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="${JAR:-$ROOT/fairway-daemon/target/fairway.jar}"
[[ -f $JAR ]] || (cd "$ROOT" && mvn -q -B -DskipTests -pl fairway-daemon -am package)
ROUNDS=${ROUNDS:-5}
SIZES=("${@:-1 1000 10000}")
read -r -a SIZES <<< "${SIZES[*]}"
WORK="$(mktemp -d /tmp/fairway-startup.XXXXXX)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
now_ms() { date +%s%3N; }
dead() { # i -> the i-th dead real server's address
  echo "127.77.$(($1 / 250)).$(($1 % 250 + 1))"
}

BACKEND=$(free_port)
mkdir -p "$WORK/www" && echo ok > "$WORK/www/index.html"
python3 -m http.server --bind 127.0.0.1 --directory "$WORK/www" "$BACKEND" > /dev/null 2>&1 &
PIDS+=($!)
until curl -fs "http://127.0.0.1:$BACKEND/" > /dev/null; do sleep 0.1; done

fairway_conf() { # N VIP
  local n=$1 vip=$2 i
  printf 'virtual_server 127.0.0.1 %s {\n  delay_loop 5\n  lb_algo fo\n  lb_kind PROXY\n  protocol TCP\n' "$vip"
  printf '  real_server 127.0.0.1 %s {\n    weight 2\n    TCP_CHECK {\n      connect_timeout 2\n    }\n  }\n' "$BACKEND"
  for ((i = 1; i < n; i++)); do
    printf '  real_server %s 9 {\n    weight 1\n    TCP_CHECK {\n      connect_timeout 2\n    }\n  }\n' "$(dead "$i")"
  done
  echo '}'
}

haproxy_conf() { # N VIP
  local n=$1 vip=$2 i
  printf 'global\n  maxconn 2000\ndefaults\n  mode http\n  timeout connect 2s\n  timeout client 10s\n  timeout server 10s\n'
  printf 'listen vs\n  bind 127.0.0.1:%s\n  balance first\n  default-server inter 5s\n' "$vip"
  printf '  server live 127.0.0.1:%s check\n' "$BACKEND"
  for ((i = 1; i < n; i++)); do printf '  server d%d %s:9 check\n' "$i" "$(dead "$i")"; done
}

# wait_served VIP START_MS PID -> ms from START_MS to the first 200 through VIP
wait_served() {
  local vip=$1 start=$2 pid=$3
  until curl -fs -o /dev/null --max-time 1 "http://127.0.0.1:$vip/"; do
    kill -0 "$pid" 2>/dev/null || { echo "process $pid died" >&2; return 1; }
    sleep 0.005
  done
  echo $(($(now_ms) - start))
}

# applied_ms LOG START_MS -> ms from START_MS to the timestamp of "Daemon: running"
applied_ms() {
  local log=$1 start=$2 line
  until line=$(grep -m1 'Daemon: running' "$log"); do sleep 0.005; done
  local ts=${line%% *}
  echo $(($(date -d "$ts" +%s%3N) - start))
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }

TICK=$(getconf CLK_TCK)
# cpu_ms PID -> "main_thread_ms process_ms" (utime + stime from /proc; comm can hold spaces, so
# the fields are counted after its closing parenthesis). The Java main thread is the first thread
# the launcher starts, the lowest task id after the process's own (which only waits for it); its
# native name stays "java", so it cannot be found by name.
ticks_ms() { local stat; stat=$(cat "$1") && stat=${stat##*) } && awk -v k="$TICK" '{print int(($12 + $13) * 1000 / k)}' <<< "$stat"; }
cpu_ms() {
  local pid=$1 main
  main=$(ls /proc/"$pid"/task | sort -n | awk -v p="$pid" '$1 != p {print; exit}')
  echo "$(ticks_ms /proc/"$pid"/task/"$main"/stat) $(ticks_ms /proc/"$pid"/stat)"
}

run_fairway() { # variant N opts...
  local variant=$1 n=$2; shift 2
  local applied=() served=() mains=() procs=() ats=() downs=() dms=() dcpus=() r vip log start pid cpu wait_ms t
  for ((r = 0; r < ROUNDS; r++)); do
    vip=$(free_port)
    fairway_conf "$n" "$vip" > "$WORK/k.conf"
    log="$WORK/fairway-$r.log"
    start=$(now_ms)
    java "$@" -jar "$JAR" run --userspace -f "$WORK/k.conf" --admin off 2> "$log" &
    pid=$!
    served+=("$(wait_served "$vip" "$start" "$pid" || tail -5 "$log" >&2)")
    applied+=("$(applied_ms "$log" "$start")")
    read -r -a cpu <<< "$(cpu_ms "$pid")"
    mains+=("${cpu[0]}"); procs+=("${cpu[1]}")
    if [[ -n ${CPU_AT:-} ]]; then
      wait_ms=$((start + CPU_AT * 1000 - $(now_ms)))
      ((wait_ms > 0)) && sleep "$(awk -v m="$wait_ms" 'BEGIN {printf "%.3f", m / 1000}')"
      read -r -a cpu <<< "$(cpu_ms "$pid")"
      ats+=("${cpu[1]}")
      downs+=("$(grep -c ' verdict: .*: DOWN (' "$log" || true)")
    fi
    if [[ -n ${UNTIL_DOWN:-} ]]; then
      t=-1
      while (($(now_ms) - start < UNTIL_DOWN * 1000)); do
        if (($(grep -c ' verdict: .*: DOWN (' "$log" || true) >= n - 1)); then
          read -r -a cpu <<< "$(cpu_ms "$pid")"
          t=$(($(now_ms) - start))
          break
        fi
        sleep 0.5
      done
      dms+=("$t"); dcpus+=("${cpu[1]}")
    fi
    kill -TERM "$pid"; wait "$pid" || true
  done
  local at=""
  [[ -n ${CPU_AT:-} ]] && at=" $(printf '%s\n' "${ats[@]}" | median) $(printf '%s\n' "${downs[@]}" | median)"
  [[ -n ${UNTIL_DOWN:-} ]] && at="$at $(printf '%s\n' "${dms[@]}" | median) $(printf '%s\n' "${dcpus[@]}" | median)"
  echo "$variant $n $(printf '%s\n' "${applied[@]}" | median) $(printf '%s\n' "${served[@]}" | median)" \
    "$(printf '%s\n' "${mains[@]}" | median) $(printf '%s\n' "${procs[@]}" | median)$at"
}

run_haproxy() { # N
  local n=$1 served=() r vip start pid
  for ((r = 0; r < ROUNDS; r++)); do
    vip=$(free_port)
    haproxy_conf "$n" "$vip" > "$WORK/h.cfg"
    start=$(now_ms)
    haproxy -f "$WORK/h.cfg" -db > /dev/null 2>&1 &
    pid=$!
    served+=("$(wait_served "$vip" "$start" "$pid")")
    kill -TERM "$pid"; wait "$pid" || true
  done
  echo "haproxy $n - $(printf '%s\n' "${served[@]}" | median)"
}

train_cds() { # N archive opts...
  local n=$1 jsa=$2 vip pid; shift 2
  vip=$(free_port)
  fairway_conf "$n" "$vip" > "$WORK/k.conf"
  java -XX:ArchiveClassesAtExit="$jsa" -Xlog:cds=off -Xlog:cds+dynamic=off "$@" -jar "$JAR" run --userspace -f "$WORK/k.conf" --admin off \
    2> "$WORK/train.log" &
  pid=$!
  wait_served "$vip" "$(now_ms)" "$pid" > /dev/null || { grep -v 'cds\]' "$WORK/train.log" | tail -5 >&2; return 1; }
  kill -TERM "$pid"; wait "$pid" || true
  [[ -f $jsa ]] || { echo "no CDS archive written" >&2; cat "$WORK/train.log" >&2; return 1; }
}

train_cds_pkg() { # N archive opts... -- the package's archive: postinst's training run
  local jsa=$2 d; shift 2
  d=$(mktemp -d "$WORK/training.XXXXXX")
  RUNTIME_DIRECTORY=$d timeout -k 10 120 java -XX:ArchiveClassesAtExit="$jsa" -Xlog:cds=off -Xlog:cds+dynamic=off \
    "$@" -jar "$JAR" training-run --dir "$d" > /dev/null 2>&1
}

train_cds_check() { # N archive opts... -- trained on check-config alone (the package before training-run)
  local n=$1 jsa=$2; shift 2
  fairway_conf "$n" "$(free_port)" > "$WORK/k.conf"
  java -XX:ArchiveClassesAtExit="$jsa" -Xlog:cds=off -Xlog:cds+dynamic=off "$@" -jar "$JAR" \
    check-config --dump -f "$WORK/k.conf" > /dev/null 2>&1
}

want() { # variant... -> whether VARIANTS asks for any of them
  local v
  [[ -z ${VARIANTS:-} ]] && return 0
  for v in "$@"; do [[ " $VARIANTS " == *" $v "* ]] && return 0; done
  return 1
}

BASE=(-Xms256m -Xmx512m -Dio.netty.leakDetection.level=disabled)
echo "# $(date -u +%FT%TZ) $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg); rounds: $ROUNDS"
echo "# variant servers applied_ms served_ms main_cpu_ms process_cpu_ms${CPU_AT:+ cpu_at_${CPU_AT}s_ms downs}${UNTIL_DOWN:+ down_ms cpu_down_ms} (medians; times from exec)"
for n in "${SIZES[@]}"; do
  jsa="$WORK/fairway-$n.jsa"
  pkg="$WORK/fairway-pkg-$n.jsa"
  quiet=(-Xlog:cds=off -Xlog:cds+dynamic=off)
  want cds-run cds-run+c1 && train_cds "$n" "$jsa" "${BASE[@]}"
  want cds-pkg+c1 && { train_cds_pkg "$n" "$pkg" "${BASE[@]}" || true; }
  want cds-pkg+c1 && [[ ! -f $pkg ]] && echo "# cds-pkg: no archive for $n (training failed)"
  chk="$WORK/fairway-check-$n.jsa"
  want cds-check+c1 && { train_cds_check "$n" "$chk" "${BASE[@]}" || true; }
  want default && run_fairway default "$n" "${BASE[@]}"
  want c1 && run_fairway c1 "$n" "${BASE[@]}" -XX:TieredStopAtLevel=1
  want cds-run && run_fairway cds-run "$n" "${BASE[@]}" "${quiet[@]}" -XX:SharedArchiveFile="$jsa"
  want cds-run+c1 && run_fairway cds-run+c1 "$n" "${BASE[@]}" "${quiet[@]}" -XX:SharedArchiveFile="$jsa" -XX:TieredStopAtLevel=1
  want cds-pkg+c1 && [[ -f $pkg ]] && run_fairway cds-pkg+c1 "$n" "${BASE[@]}" "${quiet[@]}" -XX:SharedArchiveFile="$pkg" -XX:TieredStopAtLevel=1
  want cds-check+c1 && [[ -f $chk ]] && run_fairway cds-check+c1 "$n" "${BASE[@]}" "${quiet[@]}" -XX:SharedArchiveFile="$chk" -XX:TieredStopAtLevel=1
  want haproxy && run_haproxy "$n"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
