#!/bin/sh
# fairway run inside user-mode Linux on the host's root mounted read-only, with no writable /tmp
# and no JVM temp-directory options: where JNA unpacks its native library decides whether it
# starts. Usage: readonly.sh SCENARIO_DIR
S=$1
OUT=/run/out
PY=$(cat "$S/python")
FW="sh $S/fairway.sh"

# The root (and so /tmp and ~/.cache) is read-only here: record it, the test checks.
if touch /tmp/pkg-readonly-probe 2>/dev/null; then echo writable; else echo read-only; fi > "$OUT/tmp.txt"

# 1. No runtime directory: one line that says what JNA needs, exit 1.
$FW run -f "$S/kernel.conf" --admin off > "$OUT/nort.out" 2> "$OUT/nort.err"
echo $? > "$OUT/nort.code"

# 2. The kernel's IPVS, with the runtime directory systemd would give (RuntimeDirectory=).
mkdir -p /run/fairway
ip addr add 10.16.1.1/32 dev lo
"$PY" -m http.server --bind 10.16.1.1 80 > /dev/null 2>&1 &
K_BACKEND=$!
RUNTIME_DIRECTORY=/run/fairway $FW run -f "$S/kernel.conf" --admin off > /dev/null 2> "$OUT/kernel.log" &
PID=$!
i=0
while [ -z "$(ipvsadm -Sn | grep -- -a)" ] && [ $i -lt 600 ] && kill -0 $PID 2>/dev/null; do
  sleep 0.2; i=$((i + 1))
done
ipvsadm -Sn | sort > "$OUT/kernel-table.txt"
kill -TERM $PID
wait $PID
echo $? > "$OUT/kernel.code"
kill $K_BACKEND

# 3. The userspace proxy serves a request, same conditions.
"$PY" -m http.server --bind 127.0.0.1 --directory "$S" 9001 > /dev/null 2>&1 &
U_BACKEND=$!
RUNTIME_DIRECTORY=/run/fairway $FW run --userspace -f "$S/userspace.conf" --admin off > /dev/null 2> "$OUT/user.log" &
PID=$!
i=0
while [ $i -lt 300 ] && kill -0 $PID 2>/dev/null; do
  if "$PY" -c "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:8080/hello.txt', timeout=2).read().decode())" > "$OUT/served.txt" 2>/dev/null; then
    break
  fi
  sleep 0.2; i=$((i + 1))
done
kill -TERM $PID
wait $PID
echo $? > "$OUT/user.code"
kill $U_BACKEND
