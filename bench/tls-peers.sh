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

# fairway_jar -> JAR, the packaged daemon, built from this checkout when it is not there yet
fairway_jar() {
  JAR="$ROOT/fairway-daemon/target/fairway.jar"
  if [[ ! -f $JAR ]]; then (cd "$ROOT" && mvn -q -B -ntp -DskipTests package >&2); fi
}

# median COLUMN < lines -> the median of that column
median() {
  awk -v c="$1" 'NF { print $c }' | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# start_tls_peers ALPN BACKEND_PORT BACKEND_PORT -> the three proxies on free ports, their ports in
# PORT[target] and pids in PID[target] (target: haproxy, nginx, fairway). ALPN is "http/1.1" or
# "h2,http/1.1". TLS_IDLE=SECONDS raises every idle and keep-alive timeout to that (the idle
# memory benchmark holds silent connections longer than the defaults keep them).
declare -gA PORT PID
start_tls_peers() {
  local alpn=$1 b1=$2 b2=$3
  make_cert
  fairway_jar
  start_tls_haproxy "$alpn" "$b1" "$b2"
  start_tls_nginx "$alpn" "$b1" "$b2"
  start_tls_fairway "$alpn" "$b1" "$b2"
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

start_tls_fairway() {
  local p timeouts=""
  p=$(free_port); PORT[fairway]=$p
  [[ -n ${TLS_IDLE:-} ]] && printf -v timeouts 'proxy_timeouts {\n        keepalive %s\n        idle %s\n    }' "$TLS_IDLE" "$TLS_IDLE"
  cat >"$WORK/keepalived.conf" <<CONF
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
  # shellcheck disable=SC2046
  FAIRWAY_RUNTIME_DIR="$WORK/run" java $(fairway_jvm_opts) -jar "$JAR" run --userspace -f "$WORK/keepalived.conf" \
    >"$WORK/fairway.out" 2>&1 &
  PID[fairway]=$!; PIDS+=("${PID[fairway]}"); wait_port "$p" 60
}
