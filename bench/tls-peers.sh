# Shared by the TLS benchmarks (proxy-https.sh, proxy-h2.sh, proxy-idle-memory-tls.sh); sourced
# after proxy-lib.sh. HAProxy, nginx and Fairway (`fairway run --userspace` with a `tls { }` block,
# as operators run it) terminating TLS with the same certificate in front of the same backends.

# make_cert -> $WORK/cert.pem, key.pem and both.pem (HAProxy's crt): ECDSA P-256, what most sites
# serve now
make_cert() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=bench.test \
    -addext subjectAltName=DNS:bench.test -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
  cat "$WORK/cert.pem" "$WORK/key.pem" >"$WORK/both.pem"
}

# fairway_jar [ROOT] -> JAR, the packaged daemon of that checkout (this one by default), built
# when it is not there yet
fairway_jar() {
  local root=${1:-$ROOT}
  JAR="$root/fairway-daemon/target/fairway.jar"
  if [[ ! -f $JAR ]]; then (cd "$root" && mvn -q -B -ntp -DskipTests package >&2); fi
}

# median COLUMN < lines -> the median of that column
median() {
  awk -v c="$1" 'NF { print $c }' | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# start_tls_peers ALPN BACKEND_PORT BACKEND_PORT -> the three proxies on free ports, their ports in
# PORT[target] and pids in PID[target] (target: haproxy, nginx, fairway). ALPN is "http/1.1" or
# "h2,http/1.1". TLS_IDLE=SECONDS raises every idle and keep-alive timeout to that (the idle
# memory benchmark holds silent connections longer than the defaults keep them).
# FAIRWAY_B=DIR (another checkout, e.g. a `git worktree` of the commit to compare with) adds the
# target fairway-b, that checkout's daemon with the same configuration: an A/B in one sitting.
# FAIRWAY_B_JAVA_OPTS gives fairway-b other JVM flags (FAIRWAY_B=. for an A/B of flags alone).
declare -gA PORT PID
start_tls_peers() {
  local alpn=$1 b1=$2 b2=$3
  make_cert
  start_tls_haproxy "$alpn" "$b1" "$b2"
  start_tls_nginx "$alpn" "$b1" "$b2"
  fairway_jar
  start_tls_fairway fairway "$alpn" "$b1" "$b2"
  if [[ -n ${FAIRWAY_B:-} ]]; then
    fairway_jar "$FAIRWAY_B"
    start_tls_fairway fairway-b "$alpn" "$b1" "$b2"
  fi
}

# tls_targets -> the targets start_tls_peers started, in order
tls_targets() {
  echo "haproxy nginx fairway${FAIRWAY_B:+ fairway-b}"
}

start_tls_haproxy() {
  local p; p=$(free_port); PORT[haproxy]=$p
  {
    haproxy_globals
    [[ -n ${TLS_IDLE:-} ]] && printf '  timeout client %ss\n  timeout http-keep-alive %ss\n' "$TLS_IDLE" "$TLS_IDLE"
    printf 'listen tls\n  bind 127.0.0.1:%s ssl crt %s alpn %s\n  mode http\n  option http-keep-alive\n  http-reuse safe\n  balance roundrobin\n' \
      "$p" "$WORK/both.pem" "$1"
    printf '  server n1 127.0.0.1:%s\n  server n2 127.0.0.1:%s\n' "$2" "$3"
  } >"$WORK/haproxy.cfg"
  haproxy -f "$WORK/haproxy.cfg" -db 2>"$WORK/haproxy.err" &
  PID[haproxy]=$!; PIDS+=("${PID[haproxy]}"); wait_port "$p"
}

start_tls_nginx() {
  local p dir="$WORK/nginx-tls" h2="" idle=""
  p=$(free_port); PORT[nginx]=$p; mkdir -p "$dir/logs"
  [[ $1 == h2* ]] && h2=" http2"
  [[ -n ${TLS_IDLE:-} ]] && idle="keepalive_timeout ${TLS_IDLE}s;"
  cat >"$dir/nginx.conf" <<CONF
$(nginx_main "$dir" 2 "${NGINX_PROXY_WORKER_CONNECTIONS:-8192}")
http {
$(nginx_http_common "$dir")
  $idle
  upstream b { server 127.0.0.1:$2; server 127.0.0.1:$3; keepalive 64; }
  server {
    listen 127.0.0.1:$p ssl$h2;
    ssl_certificate $WORK/cert.pem; ssl_certificate_key $WORK/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    location / { proxy_pass http://b; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF
  /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' &
  PID[nginx]=$!; PIDS+=("${PID[nginx]}"); wait_port "$p"
}

# start_tls_fairway NAME ALPN BACKEND_PORT BACKEND_PORT: the daemon in $JAR as target NAME
start_tls_fairway() {
  local name=$1 p timeouts=""; shift
  p=$(free_port); PORT[$name]=$p
  [[ -n ${TLS_IDLE:-} ]] && printf -v timeouts 'proxy_timeouts {\n        keepalive %s\n        idle %s\n    }' "$TLS_IDLE" "$TLS_IDLE"
  cat >"$WORK/$name.conf" <<CONF
virtual_server 127.0.0.1 $p {
    lb_algo rr
    lb_kind HTTP
    protocol TCP
    tls {
        certificate $WORK/cert.pem $WORK/key.pem
        alpn ${1//,/ }
    }
    $timeouts
    real_server 127.0.0.1 $2 {
        weight 1
    }
    real_server 127.0.0.1 $3 {
        weight 1
    }
}
CONF
  local opts; opts=$(fairway_jvm_opts)
  if [[ $name == fairway-b && -n ${FAIRWAY_B_JAVA_OPTS:-} ]]; then opts=$FAIRWAY_B_JAVA_OPTS; fi
  # shellcheck disable=SC2086
  FAIRWAY_RUNTIME_DIR="$WORK/run-$name" java $opts -jar "$JAR" run --userspace -f "$WORK/$name.conf" --admin "127.0.0.1:$(free_port)" \
    >"$WORK/$name.out" 2>&1 &
  PID[$name]=$!; PIDS+=("${PID[$name]}"); wait_port "$p" 60
}

# machine_ticks -> the clock ticks every CPU of the machine spent busy (user, nice, system, irq,
# softirq, steal), from /proc/stat
machine_ticks() {
  awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# round_start PID -> what round_end counts from: the proxy's ticks, its kernel ticks, the machine's
# busy ticks and the time
round_start() {
  echo "$(cpu_ticks "$1") $(cpu_sys_ticks "$1") $(machine_ticks) $EPOCHREALTIME"
}

# round_end START PID REQUESTS LOAD_SECONDS -> round_line's figures for the round since START
round_end() {
  local c0 k0 m0 s0
  read -r c0 k0 m0 s0 <<<"$1"
  round_line $(($(cpu_ticks "$2") - c0)) $(($(cpu_sys_ticks "$2") - k0)) $(($(machine_ticks) - m0)) \
    "$3" "$(bc -l <<<"$EPOCHREALTIME - $s0")" "$4"
}

# round_line PROXY_TICKS PROXY_SYS_TICKS MACHINE_TICKS REQUESTS WINDOW_SECONDS LOAD_SECONDS ->
# "cpu_us_per_request rest_us_per_request busy_percent sys_us_per_request": the proxy's CPU per
# request, what the rest of the machine (the load generator, the backends, the kernel outside the
# proxy) spent per request, how busy all CPUs were, and the part of the proxy's CPU spent in the
# kernel. The ticks were read around WINDOW_SECONDS, REQUESTS counted over LOAD_SECONDS of it (a
# load generator's own warm-up is in the window, not in its count), so ticks are scaled by
# LOAD_SECONDS / WINDOW_SECONDS.
round_line() {
  awk -v p="$1" -v k="$2" -v m="$3" -v r="$4" -v w="$5" -v l="$6" -v hz="$CLK_TCK" -v n="$(nproc)" 'BEGIN {
    if (r <= 0 || w <= 0) { print "0 0 0 0"; exit }
    f = (l < w) ? l / w : 1
    printf "%.1f %.1f %.0f %.1f", f * p / hz * 1e6 / r, f * (m - p) / hz * 1e6 / r, 100 * m / hz / (w * n), f * k / hz * 1e6 / r }'
}

# tls_report COLUMN_NAME SHAPE... -> a row per target and shape from R["target shape"] (lines of
# "rps p99 cpu_us_per_request rest_us_per_request busy_percent sys_us_per_request", one per round;
# medians printed), and Fairway's ratios to the peers (and to fairway-b, with FAIRWAY_B). When all
# CPUs are busy, a proxy's req/s is the machine shared out over (its CPU + the rest) per request,
# so one more line: the multiple of each peer's req/s that a proxy costing nothing would reach
# beside that peer's rest, and the CPU per request Fairway would need, beside its own rest, for
# 1.2x both (negative: out of reach on this machine).
tls_report() {
  local col=$1 shape t v f; shift
  printf '%-10s %-10s %10s %10s %14s %14s %6s %14s\n' target "$col" req/s p99-ms cpu-us/req rest-us/req busy% sys-us/req
  for shape in "$@"; do
    for t in $(tls_targets); do
      v=${R[$t $shape]}
      printf '%-10s %-10s %10.0f %10.2f %14.1f %14.1f %6.0f %14.1f\n' "$t" "$shape" "$(median 1 <<<"$v")" "$(median 2 <<<"$v")" \
        "$(median 3 <<<"$v")" "$(median 4 <<<"$v")" "$(median 5 <<<"$v")" "$(median 6 <<<"$v")"
    done
    for t in $(tls_targets); do
      printf '# %s %s, each round (req/s @ CPU us per request):%s\n' "$t" "$shape" \
        "$(awk 'NF { printf " %.0f@%.1f", $1, $3 }' <<<"${R[$t $shape]}")"
    done
    local hp hr np nr fr
    hp=$(median 3 <<<"${R[haproxy $shape]}"); hr=$(median 4 <<<"${R[haproxy $shape]}")
    np=$(median 3 <<<"${R[nginx $shape]}"); nr=$(median 4 <<<"${R[nginx $shape]}")
    fr=$(median 4 <<<"${R[fairway $shape]}")
    printf '# %s: a proxy costing 0 us would reach %.2f x haproxy, %.2f x nginx req/s here; 1.2 x both needs fairway <= %.1f us per request (it took %.1f)\n' \
      "$shape" "$(bc -l <<<"($hp + $hr) / $hr")" "$(bc -l <<<"($np + $nr) / $nr")" \
      "$(bc -l <<<"m = ($hp + $hr) / 1.2; if (($np + $nr) / 1.2 < m) m = ($np + $nr) / 1.2; m - $fr")" "$(median 3 <<<"${R[fairway $shape]}")"
    f=$(median 1 <<<"${R[fairway $shape]}")
    printf '# %s: fairway/haproxy %.2f x req/s, fairway/nginx %.2f x req/s' "$shape" \
      "$(bc -l <<<"$f / $(median 1 <<<"${R[haproxy $shape]}")")" "$(bc -l <<<"$f / $(median 1 <<<"${R[nginx $shape]}")")"
    [[ -n ${FAIRWAY_B:-} ]] && printf ', fairway/fairway-b %.2f x req/s' "$(bc -l <<<"$f / $(median 1 <<<"${R[fairway-b $shape]}")")"
    printf '\n'
  done
}
