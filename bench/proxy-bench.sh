#!/usr/bin/env bash
# wrk against nginx directly, through HAProxy and through Fairway's userspace data plane, in one
# run on this machine; prints requests/s, latency percentiles, each proxy's CPU cost and Fairway's
# ratios to HAProxy. Bounded: about ROUNDS x targets x (WARMUP + DURATION) seconds (x 2 sizes
# for the large scenario).
#
#   [SCENARIO=small|large] [CLOSE=1] [SPLICE=1] [ROUNDS=3] [WARMUP=3] [PREWARM=0] [WRK_THREADS=2] \
#     [FAIRWAY_JAVA_OPTS=...] bench/proxy-bench.sh [DURATION_SECONDS=15] [CONNECTIONS=64]
#
# The second harness of issue 19 (wrk -t1 -c50, 5 s runs, three rounds) is
#   WRK_THREADS=1 bench/proxy-bench.sh 5 50     (bench/proxy-bench-t1.sh does exactly that)
#
# CLOSE=1 sends "Connection: close" with every request: a new TCP connection per request, which
# measures the accept and connect path instead of relaying. PREWARM=N runs each target once for
# N seconds before the rounds (JIT warm-up of the whole path; CLOSE=1 defaults it to 20: the
# connection path takes ~15 s of load to be compiled).
# small (default): a tiny `return 200` response, TCP and HTTP mode.
# large: nginx serves a 64 KiB and a 1 MiB static file; TCP mode only, reports MB/s and CPU per MB.
# fairway-tcp is the L4 relay as `fairway run` has it (default options: bulk transfers spliced);
# SPLICE=1 adds fairway-copy (never splices) and fairway-splice (splices after SPLICE_THRESHOLD
# bytes read at once, default 0: always) to the small scenario; the large scenario always has them. B_JAVA_OPTS="..." adds the target fairway-b: the TCP relay
# in a JVM with those flags instead, measured in the same rounds (an A/B of runtime settings);
# B_MODE=http makes fairway-b the HTTP proxy (e.g. B_JAVA_OPTS="... -Dfairway.proxy.httpMetrics=false").
# TARGETS_ONLY="haproxy-tcp fairway-tcp ..." measures only those.
#
# nginx is the second peer in the small scenario: nginx-tcp (stream module, Debian package
# libnginx-mod-stream) and nginx-http (proxy_pass, upstream keepalive), 2 workers each.
# Every proxy gets the same two nginx backends (one worker each), round robin, and two threads
# (HAProxy nbthread 2, Fairway two event loops); wrk runs two threads on the same 2-core machine.
# CPU columns are the proxy process's user+system time (/proc/PID/stat) over the measured run
# divided by the work done: they stay meaningful when other load on the machine moves req/s.
# Fairway runs with the JVM flags of the ./fairway launcher unless FAIRWAY_JAVA_OPTS is set.
set -euo pipefail
source "$(dirname "$0")/proxy-lib.sh"
DUR=${1:-15}
CONNS=${2:-64}
WARMUP=${WARMUP:-3}
ROUNDS=${ROUNDS:-3}
SCENARIO=${SCENARIO:-small}
if [[ ${CLOSE:-0} == 1 ]]; then
  export WRK_HEADER="Connection: close"
  PREWARM=${PREWARM:-20}
fi
PREWARM=${PREWARM:-0}

for b in wrk haproxy /usr/sbin/nginx java; do command -v "$b" >/dev/null || { echo "missing $b" >&2; exit 1; }; done
[[ -f /usr/lib/nginx/modules/ngx_stream_module.so ]] || { echo "missing nginx's stream module (apt-get install libnginx-mod-stream)" >&2; exit 1; }
build_fairway
make_files

N1=$(free_port); N2=$(free_port)
start_nginx n1 "$N1"; start_nginx n2 "$N2"

HT=$(free_port); HH=$(free_port)
{ haproxy_globals; haproxy_tcp_listen "$HT" "$N1" "$N2"; haproxy_http_listen "$HH" "$N1" "$N2"; } >"$WORK/haproxy.cfg"
haproxy -f "$WORK/haproxy.cfg" -db &
HAPROXY_PID=$!
PIDS+=("$HAPROXY_PID")
wait_port "$HT"; wait_port "$HH"

declare -A URL PID
URL[nginx]="http://127.0.0.1:$N1"; PID[nginx]=""
URL[haproxy-tcp]="http://127.0.0.1:$HT"; PID[haproxy-tcp]=$HAPROXY_PID
URL[haproxy-http]="http://127.0.0.1:$HH"; PID[haproxy-http]=$HAPROXY_PID
QUIT_FDS=()
fairway_target() { # target mode [java-opts]
  local port fd
  port=$(free_port)
  if [[ -n ${3:-} ]]; then
    FAIRWAY_JAVA_OPTS="$3" start_fairway "$2" "$port" rr "127.0.0.1:$N1" "127.0.0.1:$N2"
  else
    start_fairway "$2" "$port" rr "127.0.0.1:$N1" "127.0.0.1:$N2"
  fi
  exec {fd}>&7
  QUIT_FDS+=("$fd")
  URL[$1]="http://127.0.0.1:$port"; PID[$1]=$FAIRWAY_PID
}

if [[ $SCENARIO == large ]]; then
  TARGETS=(nginx haproxy-tcp fairway-tcp fairway-copy fairway-splice)
  PATHS=(/files/64k /files/1m)
  fairway_target fairway-tcp tcp
  fairway_target fairway-copy tcp-copy
  fairway_target fairway-splice tcp-splice
else
  TARGETS=(nginx haproxy-tcp nginx-tcp fairway-tcp haproxy-http nginx-http fairway-http)
  PATHS=(/)
  NT=$(free_port); NH=$(free_port)
  start_nginx_proxy proxy-tcp "$NT" tcp "$N1" "$N2"; URL[nginx-tcp]="http://127.0.0.1:$NT"; PID[nginx-tcp]=$NGINX_PID
  start_nginx_proxy proxy-http "$NH" http "$N1" "$N2"; URL[nginx-http]="http://127.0.0.1:$NH"; PID[nginx-http]=$NGINX_PID
  fairway_target fairway-tcp tcp
  fairway_target fairway-http http
  if [[ ${SPLICE:-0} == 1 ]]; then
    TARGETS+=(fairway-copy fairway-splice)
    fairway_target fairway-copy tcp-copy
    fairway_target fairway-splice tcp-splice
  fi
fi
if [[ -n ${B_JAVA_OPTS:-} ]]; then
  TARGETS+=(fairway-b)
  fairway_target fairway-b "${B_MODE:-tcp}" "$B_JAVA_OPTS"
fi
if [[ -n ${TARGETS_ONLY:-} ]]; then
  read -r -a TARGETS <<<"$TARGETS_ONLY"
fi

declare -A R
run() { # target path -> appends "rps p50 p90 p99 errors non2xx requests bytes us/req ms/MB"
  local url="${URL[$1]}$2" pid="${PID[$1]}" row t0 t1
  wrk_run "$url" "$WARMUP" "$CONNS" >/dev/null
  [[ -z $pid ]] || t0=$(cpu_ticks "$pid")
  row=$(wrk_run "$url" "$DUR" "$CONNS")
  [[ -z $pid ]] || t1=$(cpu_ticks "$pid")
  if [[ -n $pid ]]; then
    row+=" $(echo "$row" | awk -v c=$((t1 - t0)) -v hz="$CLK_TCK" \
      '{ s = c / hz; printf "%.2f %.2f", $7 ? s * 1e6 / $7 : 0, $8 ? s * 1000 / ($8 / 1048576) : 0 }')"
  else
    row+=" - -"
  fi
  R[$1 $2]+="$row"$'\n'
}
if ((PREWARM > 0)); then
  for p in "${PATHS[@]}"; do
    for t in "${TARGETS[@]}"; do wrk_run "${URL[$t]}$p" "$PREWARM" "$CONNS" >/dev/null; done
  done
fi
# Rounds alternate the targets so that load from anything else on the machine hits all of them
# alike; the table reports each target's median over the rounds.
for ((round = 1; round <= ROUNDS; round++)); do
  for p in "${PATHS[@]}"; do
    for t in "${TARGETS[@]}"; do run "$t" "$p"; done
  done
done
median() { # column
  awk -v c="$1" 'NF { print $c }' | sort -g | awk '
    { v[NR] = $1 }
    END { if (v[1] == "-") print "-"; else printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
two() { # number or "-" -> two decimals or "-"
  if [[ $1 == - ]]; then echo -; else printf '%.2f' "$1"; fi
}
summary() { # "target path" -> "rps p50 p90 p99 errors us/req MB/s ms/MB"
  local rows="${R[$1]}" errs
  errs=$(echo "$rows" | awk 'NF { e += $5 + $6 } END { print e + 0 }')
  local mbs
  mbs=$(echo "$rows" | awk -v d="$DUR" 'NF { print $8 / 1048576 / d }' | median 1)
  echo "$(echo "$rows" | median 1) $(echo "$rows" | median 2) $(echo "$rows" | median 3) $(echo "$rows" | median 4) $errs $(echo "$rows" | median 9) $mbs $(echo "$rows" | median 10)"
}
ratio() { # a b
  if [[ $1 == - || $2 == - ]]; then echo -; else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? a / b : 0 }'; fi
}
haproxy_of() { # target -> the HAProxy target it is compared with, or nothing
  case $1 in fairway-b) [[ ${B_MODE:-tcp} == http ]] && echo haproxy-http || echo haproxy-tcp ;;
    fairway-tcp | fairway-copy | fairway-splice) echo haproxy-tcp ;; fairway-http) echo haproxy-http ;; esac
}
nginx_of() { # target -> the nginx proxy target it is compared with, or nothing
  case $1 in fairway-tcp | fairway-copy | fairway-splice | fairway-b) echo nginx-tcp ;; fairway-http) echo nginx-http ;; esac
}

echo
echo "wrk -t${WRK_THREADS:-2} -c$CONNS -d${DUR}s --latency${WRK_HEADER:+ -H \"$WRK_HEADER\"}, median of $ROUNDS alternating rounds (each after a ${WARMUP}s warm-up), $(nproc) cores, $(date -u +%FT%TZ), loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ $SCENARIO == large ]]; then
  printf '%-14s %5s %9s %9s %9s %7s %10s %12s %12s\n' target size "req/s" "MB/s" "p99 ms" errors "cpu ms/MB" "MB/s/haproxy" "cpu/haproxy"
  for p in "${PATHS[@]}"; do
    for t in "${TARGETS[@]}"; do
      read -r rps _ _ p99 err _ mbs cpm <<<"$(summary "$t $p")"
      h=$(haproxy_of "$t"); r="-"; c="-"
      if [[ -n $h ]]; then
        read -r _ _ _ _ _ _ hmbs hcpm <<<"$(summary "$h $p")"
        r=$(ratio "$mbs" "$hmbs"); c=$(ratio "$cpm" "$hcpm")
      fi
      printf '%-14s %5s %9.0f %9.1f %9.2f %7s %10s %12s %12s\n' "$t" "${p##*/}" "$rps" "$mbs" "$p99" "$err" "$(two "$cpm")" "$r" "$c"
    done
  done
else
  printf '%-14s %12s %9s %9s %9s %7s %11s %12s %12s %12s %10s %10s %10s\n' target "req/s" "p50 ms" "p90 ms" "p99 ms" errors "cpu us/req" \
    "rps/haproxy" "p99/haproxy" "cpu/haproxy" "rps/nginx" "p99/nginx" "cpu/nginx"
  for t in "${TARGETS[@]}"; do
    read -r rps p50 p90 p99 err cpr _ _ <<<"$(summary "$t /")"
    cols=()
    for h in "$(haproxy_of "$t")" "$(nginx_of "$t")"; do
      if [[ -n $h && -n ${R[$h /]:-} ]]; then
        read -r hr _ _ hp _ hc _ _ <<<"$(summary "$h /")"
        cols+=("$(ratio "$rps" "$hr")" "$(ratio "$p99" "$hp")" "$(ratio "$cpr" "$hc")")
      else
        cols+=(- - -)
      fi
    done
    printf '%-14s %12.0f %9.2f %9.2f %9.2f %7s %11s %12s %12s %12s %10s %10s %10s\n' "$t" "$rps" "$p50" "$p90" "$p99" "$err" "$(two "$cpr")" "${cols[@]}"
  done
fi

# Each round measures Fairway and HAProxy back to back, so the ratio within a round is the fairer
# comparison when load from elsewhere drifts between rounds; the spread shows the noise.
if [[ $SCENARIO != large ]] && ((ROUNDS > 1)); then
  echo
  echo "per-round ratios to each peer: min / median / max (rounds where Fairway was better)"
  for t in "${TARGETS[@]}"; do
   for h in "$(haproxy_of "$t")" "$(nginx_of "$t")"; do
    [[ -n $h && -n ${R[$h /]:-} ]] || continue
    paste -d' ' <(echo "${R[$t /]}" | awk 'NF') <(echo "${R[$h /]}" | awk 'NF') | awk -v name="$t/$h" -v n=$ROUNDS '
      # columns: rps p50 p90 p99 errors non2xx requests bytes us/req ms/MB, Fairway then HAProxy
      { r[NR] = $1 / $11; p[NR] = $4 / $14; c[NR] = $9 / $19
        wr += r[NR] >= 1; wp += p[NR] <= 1; wc += c[NR] <= 1 }
      function sort(a, k, i, j, t) { for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
      function med(a, k) { return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
      END { k = NR; sort(r, k); sort(p, k); sort(c, k)
        printf "%-26s req/s %.2f / %.2f / %.2f (%d of %d)   p99 %.2f / %.2f / %.2f (%d of %d)   cpu %.2f / %.2f / %.2f (%d of %d)\n",
          name, r[1], med(r, k), r[k], wr, k, p[1], med(p, k), p[k], wp, k, c[1], med(c, k), c[k], wc, k }'
   done
  done
fi

if [[ ${VERBOSE:-0} == 1 ]]; then cat "$WORK/wrk.log"; fi
for fd in "${QUIT_FDS[@]}"; do echo "quit" >&"$fd" || true; done
