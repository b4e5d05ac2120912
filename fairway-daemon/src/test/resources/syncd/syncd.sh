#!/bin/sh
# The kernel's connection sync daemon in user-mode Linux (one kernel): the netlink commands
# against ipvsadm, then `fairway run` starting and stopping the daemons: without a VRRP instance
# (master and backup), following a VRRP instance (backup, then master), with an interface that
# does not exist (--userspace: SyncUserspaceRunTest, on the host), and reloads that change the
# daemon's interface and id, then remove it. Usage: syncd.sh SCENARIO_DIR
S=$1
OUT=/run/out
FW="sh $S/fairway.sh"
daemons() { ipvsadm -L --daemon; }
get() { python3 -c 'import sys, urllib.request as u; print(u.urlopen("http://127.0.0.1:9107" + sys.argv[1]).read().decode())' "$1"; }
status() { get /status; }
until_status() { # FILE: wait until the admin endpoint answers (at most 60 s)
  i=0
  until status > "$1" 2>/dev/null || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
}
until_daemons() { # COUNT: wait until COUNT daemons run (at most 60 s)
  i=0
  while [ "$(daemons | wc -l)" -ne "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}
set -x
modprobe veth
ip link add syd0 type veth peer name syd1
ip addr add 10.99.0.1/24 dev syd0
ip link set syd0 up
ip link set syd1 up

# 1. The netlink commands, step by step against ipvsadm.
sh "$S/netlink.sh" syd0 > "$OUT/netlink.out" 2>&1
echo $? > "$OUT/netlink.code"

# 2. No VRRP instance: both daemons from start to SIGTERM.
$FW run -f "$S/both.conf" > "$OUT/both.out" 2> "$OUT/both.log" &
PID=$!
until_daemons 2
daemons > "$OUT/both-running.txt"
until_status "$OUT/both-status.txt"
kill -TERM $PID
wait $PID
echo $? > "$OUT/both.code"
daemons > "$OUT/both-after.txt"

# 3. Following VI_1: the backup daemon first, the master one once VI_1 is master.
$FW run -f "$S/vrrp.conf" > "$OUT/vrrp.out" 2> "$OUT/vrrp.log" &
PID=$!
until_daemons 1
daemons > "$OUT/vrrp-backup.txt"
i=0
while ! daemons | grep -q '^master' && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
daemons > "$OUT/vrrp-master.txt"
ip -4 addr show dev syd0 > "$OUT/vrrp-addr.txt"
until_status "$OUT/vrrp-status.txt"
kill -TERM $PID
wait $PID
echo $? > "$OUT/vrrp.code"
daemons > "$OUT/vrrp-after.txt"

# 4. An interface that does not exist: one line, exit 1, nothing left.
$FW run -f "$S/nosuch.conf" > "$OUT/nosuch.out" 2> "$OUT/nosuch.err"
echo $? > "$OUT/nosuch.code"
daemons > "$OUT/nosuch-daemons.txt"
ipvsadm -Ln > "$OUT/nosuch-table.txt"

# 5. Reloads (SIGHUP) of a run that starts with a virtual server alone: VRRP and the daemon
# following VI_1 added, lvs_sync_daemon moved to syd1 with id 62, removed, then VRRP removed.
ip addr add 10.98.0.1/24 dev syd1
until_master() { # IF ID: wait until the master daemon runs on IF with ID (at most 60 s)
  i=0
  while ! daemons | grep -q "^master sync daemon (mcast=$1, syncid=$2," && [ $i -lt 600 ]; do
    sleep 0.1; i=$((i + 1))
  done
}
cp "$S/reload-none.conf" /run/reload.conf
$FW run -f /run/reload.conf > "$OUT/reload.out" 2> "$OUT/reload.log" &
PID=$!
until_status "$OUT/reload-0-status.txt"
daemons > "$OUT/reload-0.txt"
cp "$S/reload.conf" /run/reload.conf
kill -HUP $PID
until_master syd0 61
daemons > "$OUT/reload-1.txt"
cp "$S/reload-changed.conf" /run/reload.conf
kill -HUP $PID
until_master syd1 62
daemons > "$OUT/reload-2.txt"
until_status "$OUT/reload-2-status.txt"
get /api/v1/vrrp > "$OUT/reload-2-vrrp.json"
cp "$S/reload-removed.conf" /run/reload.conf
kill -HUP $PID
until_daemons 0
daemons > "$OUT/reload-3.txt"
# The reload is applied whole before SIGHUP's thread returns; status reads the kernel again.
i=0
until status > "$OUT/reload-3-status.txt" && ! grep -q 'IPVS sync daemon' "$OUT/reload-3-status.txt" || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
get /api/v1/vrrp > "$OUT/reload-3-vrrp.json"
ip -4 addr show dev syd0 > "$OUT/reload-3-addr.txt"
ipvsadm -Ln > "$OUT/reload-3-table.txt"
cp "$S/reload-none.conf" /run/reload.conf
kill -HUP $PID
i=0
while ip -4 addr show dev syd0 | grep -q 10.99.0.100 && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
ip -4 addr show dev syd0 > "$OUT/reload-4-addr.txt"
i=0
until status > "$OUT/reload-4-status.txt" && ! grep -q VI_1 "$OUT/reload-4-status.txt" || [ $i -ge 300 ]; do sleep 0.2; i=$((i + 1)); done
ipvsadm -Ln > "$OUT/reload-4-table.txt"
kill -TERM $PID
wait $PID
echo $? > "$OUT/reload.code"
daemons > "$OUT/reload-after.txt"
