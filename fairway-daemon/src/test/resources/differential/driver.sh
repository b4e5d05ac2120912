#!/bin/sh
# Runs the scenario in steps.sh once under keepalived and once under fairway run, inside user-mode
# Linux, writing the sorted `ipvsadm -Sn` after every step to /run/out/SUBJECT/step-N.txt.
# Usage: driver.sh SCENARIO_DIR SUBJECT...   (SUBJECT: keepalived | fairway)
S=$1
shift
OUT=/run/out
for a in 1 2 3 4 5 6 7 8 9 10 12; do ip addr add 10.16.1.$a/32 dev lo; done
PY=$(cat "$S/python")
. "$S/steps.sh"

listening() { ss -ltnH "src $1 sport = :$2" | grep -q .; }

backend_start() {
  [ -f "/run/pids/$1_$2" ] && return
  "$PY" "$S/backend.py" "$1" "$2" "/run/status/$1_$2" >/dev/null 2>&1 &
  echo $! > "/run/pids/$1_$2"
  i=0
  while ! listening "$1" "$2" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

backend_stop() {
  [ -f "/run/pids/$1_$2" ] || return
  kill "$(cat "/run/pids/$1_$2")"
  rm -f "/run/pids/$1_$2"
  i=0
  while listening "$1" "$2" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}

http_status() { echo "$3" > "/run/status/$1_$2"; }
misc() { echo "$2" > "/run/misc/$1"; }
track() { echo "$2" > "/run/track/$1"; }

reload() {
  cp "$S/$1" /run/keepalived.conf
  kill -HUP "$PID"
}

table() { ipvsadm -Sn | sort; }

# Waits until the table has not changed for 4 s (at most 60 s) and writes that table to $1:
# checks run every second and a stopped backend refuses at once, so every verdict of a step has
# landed by then. The stable table itself is written, not a later read that could catch a flap.
settle() {
  prev=$(table); same=0; polls=0
  while [ $polls -lt 120 ]; do
    sleep 0.5
    cur=$(table)
    if [ "$cur" = "$prev" ]; then same=$((same + 1)); else same=0; prev=$cur; fi
    if [ $same -ge 8 ]; then
      echo "$cur" > "$1"
      return 0
    fi
    polls=$((polls + 1))
  done
  echo "$1: table did not settle" >> "$OUT/$SUBJECT/notes.txt"
  echo "$cur" > "$1"
}

run_subject() {
  SUBJECT=$1
  mkdir -p "$OUT/$SUBJECT"
  for p in /run/pids/*; do [ -f "$p" ] && kill "$(cat "$p")"; done
  rm -rf /run/pids /run/status /run/misc /run/track
  mkdir -p /run/pids /run/status /run/misc /run/track
  printf '#!/bin/sh\nexit $(cat /run/misc/$1)\n' > /run/misc/check.sh
  chmod 755 /run/misc/check.sh
  ipvsadm -C
  initial_state
  cp "$S/conf-0.conf" /run/keepalived.conf
  case $SUBJECT in
    keepalived)
      keepalived -C -n -l -f /run/keepalived.conf -p /run/ka.pid -c /run/kc.pid \
        > "$OUT/$SUBJECT/log.txt" 2>&1 &
      ;;
    fairway)
      sh "$S/fairway.sh" run -f /run/keepalived.conf --admin off --drift-interval 5 \
        > "$OUT/$SUBJECT/log.txt" 2>&1 &
      ;;
  esac
  PID=$!
  # Started when the first service is in the table (a JVM in UML takes several seconds).
  waited=0
  while [ -z "$(table)" ] && [ $waited -lt 600 ]; do sleep 0.1; waited=$((waited + 1)); done
  settle "$OUT/$SUBJECT/step-0.txt"
  step=1
  while [ $step -le "$STEPS" ]; do
    "step_$step"
    settle "$OUT/$SUBJECT/step-$step.txt"
    step=$((step + 1))
  done
  kill -TERM "$PID"
  wait "$PID"
  echo $? > "$OUT/$SUBJECT/exit-code"
  table > "$OUT/$SUBJECT/after-stop.txt"
}

for subject in "$@"; do
  run_subject "$subject"
done
