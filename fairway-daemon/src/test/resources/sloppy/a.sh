#!/bin/sh
# Director A (user-mode Linux on the switch, eth0 10.99.0.1, the VIP on lo): its agent runs
# Fairway and answers the conductor on B until it is told to stop.
# Usage: a.sh SCENARIO_DIR
S=$1
set -x
ip link set eth0 up
ip addr add 10.99.0.1/24 dev eth0
ip addr add 10.99.0.100/32 dev lo
exec python3 "$S/agent.py" serve 10.99.0.1 a "$S"
