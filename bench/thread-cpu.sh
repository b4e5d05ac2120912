#!/usr/bin/env bash
# CPU time per thread of one process over SECONDS (utime + stime from /proc/PID/task/*/stat),
# grouped by thread name, most first. Usage: bench/thread-cpu.sh PID [SECONDS=20]
set -euo pipefail
pid=$1
secs=${2:-20}
hz=$(getconf CLK_TCK)
snap() {
  for t in /proc/"$pid"/task/*; do
    [[ -r $t/stat ]] || continue
    name=$(tr ' ' '_' < "$t/comm")
    # the fields after "(comm)": utime is the 14th field of stat, stime the 15th
    read -r -a f < <(sed 's/^.*) //' "$t/stat")
    echo "${t##*/} $name $((f[11] + f[12]))"
  done
}
snap > /tmp/thread-cpu.$$.a
sleep "$secs"
snap > /tmp/thread-cpu.$$.b
join <(sort /tmp/thread-cpu.$$.a) <(sort /tmp/thread-cpu.$$.b) | awk -v hz="$hz" -v s="$secs" '
  { d[$2] += $5 - $3 }
  END { for (n in d) if (d[n] > 0) printf "%8.2f %%  %s\n", 100 * d[n] / hz / s, n }' | sort -rn
rm -f /tmp/thread-cpu.$$.a /tmp/thread-cpu.$$.b
