#!/bin/sh
# PID 1 inside user-mode Linux for SchedulerKernelAgreementTest: builds the IPVS services described in
# $FAIRWAY_OUT/plan.sh, opens one connection per line of $FAIRWAY_OUT/clients.txt, and copies the kernel's
# connection table to $FAIRWAY_OUT/ip_vs_conn.txt. Never leaves the UML instance: every address is on its lo.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /run
mkdir -p /run/out
mount -t hostfs none /run/out -o "$FAIRWAY_OUT"
exec > /run/out/init.log 2>&1
set -x
for m in ip_vs ip_vs_rr ip_vs_wrr ip_vs_lc ip_vs_wlc ip_vs_sed ip_vs_nq ip_vs_fo ip_vs_ovf ip_vs_sh ip_vs_dh ip_vs_mh; do
  modprobe $m
done
ip link set lo up
# IPVS refuses destinations that are "not unicast" unless they have a route.
ip route add 10.16.0.0/12 dev lo
ip -6 route add fd00:16::/32 dev lo
# Clients bind to addresses that are not configured anywhere.
sysctl -w net.ipv4.ip_nonlocal_bind=1 net.ipv6.ip_nonlocal_bind=1
ulimit -n 65536
sh /run/out/plan.sh
ipvsadm -Ln > /run/out/ipvsadm.txt
python3 /run/out/clients.py /run/out/clients.txt
cat /proc/net/ip_vs_conn > /run/out/ip_vs_conn.txt
echo done > /run/out/done
halt -f
