#!/bin/sh
# Inside user-mode Linux (booted by bench/check-vs-keepalived.java), or in a host network namespace
# (NETNS=1, see bench/check-vs-keepalived.sh): keepalived 2.2.7's checker and `fairway run` in turn
# on the same keepalived.conf, against the same listeners, ROUNDS times each.
# Usage: check-vs-keepalived-inside.sh BENCH_DIR JAR JAVA "JVM_OPTS" ROUNDS TCP HTTP TCP_VICTIMS HTTP_VICTIMS WARM WINDOW "FAIRWAY_ARGS" [OUT SHIM]
# With OUT and SHIM (the namespace): results go to OUT, keepalived runs with the fake-IPVS shim
# (bench/fake-ipvs.c) and Fairway with --userspace: the host kernel has no ip_vs.
# DAEMONS (default "keepalived fairway"): fairway-halfopen is `fairway run --tcp-check=half-open`;
# FW_METRICS=1 runs both Fairway daemons with the admin listener on 127.0.0.1:9107, for their own
# count of check attempts (measure reads it just outside the window).
# Writes OUT/run-R-DAEMON.json (bench/check-vs-keepalived.py measure) and the daemons' logs.
set -eu
B=$1 JAR=$2 JAVA=$3 JVM_OPTS=$4 ROUNDS=$5 TCP=$6 HTTP=$7 TV=$8 HV=$9
shift 9
WARM=$1 WINDOW=$2 FW_ARGS=${3:-} OUT=${4:-/run/out} SHIM=${5:-}
if [ -n "$SHIM" ]; then W=$(mktemp -d /tmp/fwcvk.XXXXXX); else W=/run; fi
mkdir -p "$W/tmp"
JVM_OPTS="$JVM_OPTS -XX:-UsePerfData -Djava.io.tmpdir=$W/tmp -Djna.tmpdir=$W/tmp"
PY="/usr/bin/python3 $B/check-vs-keepalived.py"
total=$((TCP + HTTP))

ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
# 11,000 connections a second: the checkers' ephemeral ports and the listeners' accept queues.
sysctl -q -w net.ipv4.ip_local_port_range="1024 65000" net.core.somaxconn=8192 \
  net.ipv4.tcp_max_syn_backlog=8192 net.ipv4.tcp_tw_reuse=1
$PY conf "$TCP" "$HTTP" "$TV" "$HV" > "$W/k.conf"
cp "$W/k.conf" "$OUT/keepalived.conf"

# The listeners of every live real server: one nginx worker answers every 127.x.y.z of 127/8
# (all of it is local). TCP_CHECKs are accepted and closed by the reset; HTTP_GETs get a 200.
mkdir -p "$W/nginx"
cat > "$W/nginx/nginx.conf" <<CONF
worker_processes 1;
pid $W/nginx/nginx.pid;
error_log $W/nginx/error.log warn;
events { worker_connections 16384; multi_accept on; }
http {
  access_log off;
  client_body_temp_path $W/nginx/body; proxy_temp_path $W/nginx/proxy;
  fastcgi_temp_path $W/nginx/fcgi; uwsgi_temp_path $W/nginx/uwsgi; scgi_temp_path $W/nginx/scgi;
  server { listen 9000 backlog=8192; return 444; }
  server { listen 8080 backlog=8192; location / { default_type text/plain; return 200 "ok\n"; } }
  server { listen 127.0.0.1:8999; location / { stub_status; } }
}
CONF
nginx -p "$W/nginx" -e "$W/nginx/error.log" -c "$W/nginx/nginx.conf"
# nginx daemonizes (its own session): an interrupted run must not leave it behind.
trap 'kill "$(cat "$W/nginx/nginx.pid")" 2>/dev/null; [ -z "$SHIM" ] || rm -rf "$W"' EXIT
trap 'exit 1' INT TERM

stop() { # PID: TERM, then wait for it (keepalived's checker child may outlive the parent a moment)
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  i=0
  while [ -s "$W/checkers.pid" ] && kill -0 "$(cat "$W/checkers.pid")" 2>/dev/null && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
  done
  rm -f "$W/checkers.pid" "$W/keepalived.pid"
}

r=1
while [ $r -le "$ROUNDS" ]; do
  for d in ${DAEMONS:-keepalived fairway}; do
    [ -n "$SHIM" ] || ipvsadm -C
    $PY victims > "$W/victims.log" 2>&1 &
    vpid=$!
    i=0; while ! grep -q ready "$W/victims.log" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    log="$OUT/run-$r-$d.log"
    # keepalived logs to stderr only (-l -G), as Fairway logs to stdout: without a syslog daemon
    # glibc's syslog() falls back to /dev/console, a few ms a line (the 11,000 "Activating
    # healthchecker" lines stalled its checker for a minute).
    if [ $d = keepalived ]; then
      if [ -n "$SHIM" ]; then
        table="log:keepalived:$OUT/run-$r-$d.ipvs"
        FAKE_IPVS_LOG="$OUT/run-$r-$d.ipvs" LD_PRELOAD="$SHIM" \
          keepalived -C -n -l -G -f "$W/k.conf" -p "$W/keepalived.pid" -c "$W/checkers.pid" > "$log" 2>&1 &
      else
        table=ipvs
        keepalived -C -n -l -G -f "$W/k.conf" -p "$W/keepalived.pid" -c "$W/checkers.pid" > "$log" 2>&1 &
      fi
      pid=$!
      i=0; while [ ! -s "$W/checkers.pid" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
      counted="checker=@$W/checkers.pid parent=$pid"
      METRICS_URL=
      export METRICS_URL
    else
      if [ -n "$SHIM" ]; then mode=--userspace table="log:fairway:$log"; else mode= table=ipvs; fi
      if [ $d = fairway-halfopen ]; then probe=--tcp-check=half-open; else probe=; fi
      if [ "${FW_METRICS:-0}" = 1 ]; then
        admin="--admin 127.0.0.1:9107" METRICS_URL=http://127.0.0.1:9107/metrics
        mkdir -p "$W/rt"
      else
        admin="--admin off" METRICS_URL=
      fi
      export METRICS_URL
      # shellcheck disable=SC2086
      RUNTIME_DIRECTORY=$W/rt "$JAVA" $JVM_OPTS -jar "$JAR" run $mode -f "$W/k.conf" $admin $probe $FW_ARGS > "$log" 2>&1 &
      pid=$!
      counted="jvm=$pid"
    fi
    echo "$(date -u +%T) round $r $d pid $pid load $(cut -d' ' -f1-3 /proc/loadavg)"
    # shellcheck disable=SC2086
    $PY measure "$OUT/run-$r-$d" $d $total "$WARM" "$WINDOW" $vpid "$table" $counted || echo "$d: measure failed"
    stop $pid
    wait $vpid 2>/dev/null || true
  done
  r=$((r + 1))
done
[ -n "$SHIM" ] || ipvsadm -C
