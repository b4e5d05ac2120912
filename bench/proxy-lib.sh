# Shared helpers for bench/proxy-*.sh: nginx backends, the Fairway data plane, wrk parsing.
# Everything listens on 127.0.0.1 only, on ports the kernel says are free.
# KEEP_WORK=DIR copies the run's files (wrk.log, the proxies' logs and configs) there at exit.

ROOT="${FAIRWAY_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
WORK="$(mktemp -d /tmp/fairway-bench.XXXXXX)"
PIDS=()

cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [[ -n ${KEEP_WORK:-} ]]; then mkdir -p "$KEEP_WORK" && cp -r "$WORK"/. "$KEEP_WORK"/; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

wait_port() { # port [seconds]
  local deadline=$((SECONDS + ${2:-${WAIT_PORT_SECONDS:-60}}))
  until (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; do
    ((SECONDS < deadline)) || { echo "port $1 did not open" >&2; return 1; }
    sleep 0.1
  done
}

# haproxy_tcp_listen PORT BACKEND_PORT... -> the HAProxy `listen` section both benchmarks compare
# Fairway's L4 relay with: TCP mode, round robin over the nginx backends on loopback
haproxy_tcp_listen() {
  local port=$1 i=0 b; shift
  printf 'listen tcp\n  bind 127.0.0.1:%s\n  mode tcp\n  balance roundrobin\n' "$port"
  for b in "$@"; do i=$((i + 1)); printf '  server n%d 127.0.0.1:%s%s\n' "$i" "$b" "${SERVER_LIMIT:+ maxconn $SERVER_LIMIT}"; done
}

# haproxy_http_listen PORT BACKEND_PORT... -> the HAProxy `listen` section Fairway's HTTP proxy is
# compared with: HTTP mode, keep-alive on both sides, backend connections reused
haproxy_http_listen() {
  local port=$1 i=0 b; shift
  printf 'listen http\n  bind 127.0.0.1:%s\n  mode http\n  option http-keep-alive\n  http-reuse safe\n  balance roundrobin\n' "$port"
  for b in "$@"; do i=$((i + 1)); printf '  server n%d 127.0.0.1:%s%s\n' "$i" "$b" "${SERVER_LIMIT:+ maxconn $SERVER_LIMIT}"; done
}

haproxy_globals() { # the global and defaults sections every benchmark's HAProxy uses
  cat <<CFG
global
  maxconn ${HAPROXY_MAXCONN:-4000}
  nbthread 2
defaults
  timeout connect 3s
  timeout client 60s
  timeout server 60s
CFG
}

# wait_clients READY PID SECONDS NAME N: waits until the holding clients (process PID) create file
# READY, their N connections open; exits the script when they die or SECONDS pass.
wait_clients() {
  local deadline=$((SECONDS + $3))
  until [[ -e $1 ]]; do
    kill -0 "$2" 2>/dev/null || { echo "$4: the clients failed" >&2; exit 1; }
    ((SECONDS < deadline)) || { echo "$4: $5 connections not served within $3 s" >&2; exit 1; }
    sleep 0.2
  done
}

# nginx_main DIR WORKERS CONNECTIONS: the top of every bench nginx.conf (its logs and pid in DIR).
nginx_main() {
  cat <<CONF
worker_processes $2;
error_log $1/logs/error.log warn;
pid $1/nginx.pid;
events { worker_connections $3; }
CONF
}

# nginx_http_common DIR: the lines every bench nginx's http block starts with: no access log, its
# temporary files in DIR, keep-alive connections that serve a whole run.
nginx_http_common() {
  cat <<CONF
  access_log off;
  client_body_temp_path $1/body; proxy_temp_path $1/proxy;
  fastcgi_temp_path $1/fcgi; uwsgi_temp_path $1/uwsgi; scgi_temp_path $1/scgi;
  keepalive_requests 1000000;
CONF
}

# start_nginx NAME PORT -> pid in NGINX_PID
start_nginx() {
  local name=$1 port=$2 dir="$WORK/nginx-$1"
  mkdir -p "$dir/logs"
  cat >"$dir/nginx.conf" <<CONF
$(nginx_main "$dir" 1 "${NGINX_WORKER_CONNECTIONS:-4096}")
http {
$(nginx_http_common "$dir")
  keepalive_timeout 120s;
  sendfile on;
  server {
    listen 127.0.0.1:$port reuseport;
    location / { default_type text/plain; return 200 '$name\n'; }
    # Static files for the large-transfer scenario (make_files), served with sendfile.
    location /files/ { alias $WORK/www/; default_type application/octet-stream; }
  }
}
CONF
  /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' &
  NGINX_PID=$!
  PIDS+=("$NGINX_PID")
  wait_port "$port"
}

# The data plane's classpath (built from this checkout, nothing installed). Not offline (-o): on a
# fresh machine the dependency plugin's own dependencies have never been downloaded.
build_fairway() {
  (cd "$ROOT" && mvn -q -B -ntp -pl fairway-proxy -am test-compile dependency:build-classpath \
      -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test >&2)
  FAIRWAY_CP="$ROOT/fairway-proxy/target/test-classes:$ROOT/fairway-proxy/target/classes:$(cat "$ROOT/fairway-proxy/target/cp.txt")"
}

# make_files: $WORK/www/64k and $WORK/www/1m (random bytes), served by start_nginx under /files/.
make_files() {
  chmod 755 "$WORK" # nginx's worker (nobody, when started as root) must read them
  mkdir -p "$WORK/www"
  head -c 65536 /dev/urandom >"$WORK/www/64k"
  head -c 1048576 /dev/urandom >"$WORK/www/1m"
}

# The JVM flags `fairway run` gets from the launcher (./fairway), so that the benchmark measures
# what operators run; FAIRWAY_JAVA_OPTS replaces them, as it does for the launcher.
fairway_jvm_opts() {
  if [[ -n ${FAIRWAY_JAVA_OPTS:-} ]]; then
    echo "$FAIRWAY_JAVA_OPTS"
  else
    sed -n 's/^default_opts="\(.*\)"$/\1/p' "$ROOT/fairway"
  fi
}

# start_nginx_proxy NAME PORT MODE BACKEND_PORT... -> nginx as the second peer proxy, 2 workers:
# MODE tcp is the stream module (libnginx-mod-stream), http is proxy_pass with upstream keepalive.
# pid in NGINX_PID
start_nginx_proxy() {
  local name=$1 port=$2 mode=$3 dir="$WORK/nginx-$1" b servers=""; shift 3
  for b in "$@"; do servers+="    server 127.0.0.1:$b${SERVER_LIMIT:+ max_conns=$SERVER_LIMIT};"$'\n'; done
  mkdir -p "$dir/logs"
  {
    [[ $mode == tcp ]] && echo "load_module /usr/lib/nginx/modules/ngx_stream_module.so;"
    nginx_main "$dir" 2 "${NGINX_PROXY_WORKER_CONNECTIONS:-8192}"
    if [[ $mode == tcp ]]; then
      printf 'stream {\n  upstream b {\n%s  }\n  server { listen 127.0.0.1:%s; proxy_pass b; }\n}\n' "$servers" "$port"
    else
      cat <<CONF
http {
$(nginx_http_common "$dir")
  upstream b {
$servers    keepalive 64;
  }
  server {
    listen 127.0.0.1:$port;
    location / { proxy_pass http://b; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF
    fi
  } >"$dir/nginx.conf"
  /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' &
  NGINX_PID=$!
  PIDS+=("$NGINX_PID")
  wait_port "$port"
}

# start_fairway MODE PORT SCHED BACKENDS... ; commands go to fd 7, output in $WORK/fairway-PORT.out
# MODE is http, tcp or tcp-splice. SERVER_LIMIT=N (as for HAProxy's maxconn and nginx's max_conns
# above) gives every backend max_conns N (live connections, as theirs count), or uthreshold N with
# FAIRWAY_LIMIT=uthreshold (the kernel's: closed connections count until they expire).
start_fairway() {
  local mode=$1 port=$2; shift 2
  mkfifo "$WORK/fairway-$port.in"
  # shellcheck disable=SC2046
  java $(fairway_jvm_opts) -Dfairway.threads="${FAIRWAY_THREADS:-2}" -Dfairway.spliceThreshold="${SPLICE_THRESHOLD:-0}" \
    -Dfairway.${FAIRWAY_LIMIT:-maxConns}="${SERVER_LIMIT:-0}" \
    -cp "$FAIRWAY_CP" io.fairway.proxy.ProxyMain "$mode" "$port" "$@" \
    <"$WORK/fairway-$port.in" >"$WORK/fairway-$port.out" 2>&1 &
  PIDS+=($!)
  FAIRWAY_PID=$!
  exec 7>"$WORK/fairway-$port.in"
  wait_port "$port"
}

# cpu_ticks PID [FIELDS] -> user+system CPU time of the process and its live children so far
# (nginx's workers), in clock ticks; FIELDS, an awk sum of /proc/PID/stat fields, picks another part
cpu_ticks() {
  local p total=0
  for p in "$1" $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    total=$((total + $(awk "{ print ${2:-\$14 + \$15} }" "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
# cpu_sys_ticks PID -> the part of cpu_ticks the kernel spent on the process's behalf (stime)
cpu_sys_ticks() { cpu_ticks "$1" '$15'; }
CLK_TCK=$(getconf CLK_TCK)

fairway_cmd() { echo "$*" >&7; }

# Memory readings for the idle-connection benchmarks (proxy-idle-memory*.sh).
pids_of() { # pid -> the pid and its children (nginx's workers)
  echo "$1" $(cat /proc/"$1"/task/*/children 2>/dev/null)
}
kb() { # field pid... -> sum of that field (kB) of /proc/PID/smaps_rollup (Pss, Rss)
  local f=$1 p t=0; shift
  for p in "$@"; do t=$((t + $(awk -v f="$f:" '$1 == f { print $2 }' "/proc/$p/smaps_rollup"))); done
  echo "$t"
}
live_heap() { # pid -> the Java heap in use after a full GC, in kB: what the connections retain
  jcmd "$1" GC.run >/dev/null
  jcmd "$1" GC.heap_info | awk '/garbage-first heap|heap total/ { for (i = 1; i < NF; i++) if ($i == "used") { v = $(i + 1); sub(/K,?$/, "", v); print v; exit } }'
}

# wrk_run URL SECONDS CONNECTIONS -> prints "rps p50 p90 p99 errors non2xx requests bytes"
# (WRK_HEADER="Name: value" adds a request header, e.g. "Connection: close")
# (latencies in ms)
wrk_run() {
  local out
  out=$(wrk -t"${WRK_THREADS:-2}" -c"$3" -d"$2"s --latency ${WRK_HEADER:+-H "$WRK_HEADER"} "$1" 2>&1)
  echo "$out" >>"$WORK/wrk.log"
  echo "$out" | awk '
    function ms(v) { if (v ~ /us$/) return v/1000; if (v ~ /ms$/) return v+0; if (v ~ /s$/) return v*1000; return v }
    /Requests\/sec/ { rps=$2 }
    /^ +50%/ { p50=ms($2) } /^ +90%/ { p90=ms($2) } /^ +99%/ { p99=ms($2) }
    /Socket errors/ { gsub(",", ""); err=$4+$6+$8+$10 }
    /Non-2xx/ { non2xx=$5 }
    / requests in / { reqs=$1; b=$5; bytes=b+0
      if (b ~ /KB$/) bytes*=1024; else if (b ~ /MB$/) bytes*=1048576; else if (b ~ /GB$/) bytes*=1073741824 }
    END { printf "%s %.3f %.3f %.3f %d %d %d %.0f\n", rps, p50, p90, p99, err, non2xx, reqs, bytes }'
}
