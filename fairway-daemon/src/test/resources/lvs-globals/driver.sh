#!/bin/sh
# Runs lvs_flush, lvs_timeouts and lvs_flush_on_stop [VS] under one subject inside user-mode
# Linux and writes what ipvsadm shows at each point to /run/out/SUBJECT/NAME.txt.
# Usage: driver.sh SCENARIO_DIR SUBJECT   (SUBJECT: keepalived | fairway)
S=$1
SUBJECT=$2
OUT=/run/out/$SUBJECT
mkdir -p "$OUT"

timeouts() { ipvsadm -L --timeout; }
table() { ipvsadm -Sn | sort; }
record() { { timeouts; table; } > "$OUT/$1.txt"; }

start() {
  cp "$S/$1" /run/keepalived.conf
  case $SUBJECT in
    keepalived)
      keepalived -C -n -l -f /run/keepalived.conf -p /run/ka.pid -c /run/kc.pid \
        >> "$OUT/log.txt" 2>&1 &
      ;;
    fairway)
      sh "$S/fairway.sh" run -f /run/keepalived.conf --admin off --drift-interval 0 \
        >> "$OUT/log.txt" 2>&1 &
      ;;
  esac
  PID=$!
  # Started when both real servers are in (a JVM in UML takes several seconds).
  waited=0
  while [ "$(ipvsadm -Ln -t 10.16.0.1:80 2>/dev/null | grep -c -- '->.*Masq')" != 2 ] && [ $waited -lt 900 ]; do
    sleep 0.1; waited=$((waited + 1))
  done
  sleep 1
}

# Sends SIGHUP with $1 in place and waits until the timeouts change (at most 30 s), then 1 s more.
reload() {
  before=$(timeouts)
  cp "$S/$1" /run/keepalived.conf
  kill -HUP "$PID"
  waited=0
  while [ "$(timeouts)" = "$before" ] && [ $waited -lt 300 ]; do sleep 0.1; waited=$((waited + 1)); done
  sleep 1
}

stop() {
  kill -TERM "$PID"
  wait "$PID"
  echo "exit $?" >> "$OUT/exit-codes.txt"
}

# a: lvs_flush removes a leftover service; lvs_timeouts sets tcp and udp, keeps tcpfin; reloads
# change and drop the keyword; the default stop leaves a service added by hand meanwhile.
ipvsadm -C
ipvsadm --set 800 100 200
ipvsadm -A -t 10.16.7.7:80 -s rr
start a-0.conf
record a-start
ipvsadm -A -t 10.16.7.8:80 -s rr
reload a-1.conf
record a-reload-tcpfin
reload a-2.conf
record a-reload-none
stop
record a-stop

# b: lvs_flush_on_stop flushes everything, the service added by hand included.
ipvsadm -C
start b.conf
ipvsadm -A -t 10.16.7.8:80 -s rr
stop
record b-stop

# c: lvs_flush_on_stop VS removes the configuration's services only.
ipvsadm -C
start c.conf
ipvsadm -A -t 10.16.7.8:80 -s rr
stop
record c-stop
