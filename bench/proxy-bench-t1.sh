#!/usr/bin/env bash
# The second harness of issue 19, as the issue measured it: wrk with one thread and 50
# connections, 5 s runs, three rounds, against HAProxy (nbthread 2), nginx (2 workers) and
# Fairway's defaults, with the same two nginx backends. CLOSE=1 for a connection per request.
exec env WRK_THREADS=1 ROUNDS="${ROUNDS:-3}" "$(dirname "$0")/proxy-bench.sh" "${1:-5}" "${2:-50}"
