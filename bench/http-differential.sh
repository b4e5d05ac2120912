#!/usr/bin/env bash
# HTTP parsing differential (issue 16): starts nginx and HAProxy as origins on loopback, and
# Fairway's HTTP proxy (ProxyMain http) in front of a second nginx, then sends every request of
# bench/http-differential.py's corpus to all three. Output: one line per request, then the
# disagreements (Fairway forwards what a peer refuses; Fairway refuses what both accept).
# Results and reasons: docs/proxy.md ("Differential against HAProxy and nginx").
#
#   bench/http-differential.sh > target/http-differential.tsv
set -euo pipefail
# shellcheck source=bench/proxy-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/proxy-lib.sh"

NGINX=$(free_port); ORIGIN=$(free_port); HAPROXY=$(free_port); FAIRWAY=$(free_port)
start_nginx direct "$NGINX"
start_nginx origin "$ORIGIN"
cat >"$WORK/haproxy.cfg" <<CFG
$(haproxy_globals)
frontend direct
  mode http
  bind 127.0.0.1:$HAPROXY
  http-request return status 200 content-type text/plain string ok
CFG
haproxy -f "$WORK/haproxy.cfg" -db >"$WORK/haproxy.log" 2>&1 &
PIDS+=($!)
wait_port "$HAPROXY"
build_fairway
start_fairway http "$FAIRWAY" rr "127.0.0.1:$ORIGIN"
echo "# nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), $(haproxy -v | head -1 | awk '{print "HAProxy", $3}'), Fairway $(git -C "$ROOT" rev-parse --short HEAD)"
python3 "$ROOT/bench/http-differential.py" "$FAIRWAY" "$NGINX" "$HAPROXY"
fairway_cmd quit
