#!/usr/bin/env bash
# Peak heap of parsing hostile and large keepalived.conf files (issue 16), each in a fresh JVM
# with a small heap. A bomb must end in its one-line budget error; a real configuration must load.
#
#   bench/config-bombs.sh [XMX_MB]     (default 96)
#
# Prints, per file: the first line of the result (loaded N virtual servers | the error) and the
# JVM's peak heap (sum of the heap pools' peaks) and wall time. Results: docs/benchmarks-config.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
xmx="${1:-96}"
cd "$here"
mvn ${MVN_FLAGS:--B} -q -pl fairway-config test-compile >&2
cp="fairway-config/target/classes:fairway-config/target/test-classes"
dir="$(mktemp -d /tmp/fairway-bombs.XXXXXX)"
trap 'rm -rf "$dir"' EXIT

# 1. The one-line triple repeater of issue 16: 8,000,000 virtual servers (56,000,000 lines).
echo '~SEQ(a,1,200) ~SEQ(b,1,200) ~SEQ(c,1,200) virtual_server 10.${a}.${b}.${c} 80 { real_server 127.0.0.1 8080 { weight 1 } }' >"$dir/seq-8M.conf"
# 2. Three repeaters of 1,000: 10^9 virtual servers.
echo '~SEQ(a,1,1000) ~SEQ(b,1,1000) ~SEQ(c,1,1000) virtual_server 10.${a}.${b}.${c} 80 { real_server 127.0.0.1 8080 { weight 1 } }' >"$dir/seq-1G.conf"
# 3. Ten levels of ten uses of a multi-line definition: 10^10 real servers.
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
lines = ["$L0=real_server 127.0.0.1 80 {\\", "  weight 1\\", "}"]
for i in range(1, 11):
    lines.append(f"$L{i}=\\")
    lines += [f"$L{i-1}\\"] * 9 + [f"$L{i-1}"]
lines += ["virtual_server 10.0.0.1 80 {", "  lb_algo rr", "$L10", "}"]
open(f"{d}/macro-1e10.conf", "w").write("\n".join(lines) + "\n")
# 4. Thirty levels of doubling an empty definition: 2^30 empty lines (nothing is ever emitted).
lines = ["$E=", "$L0=\\", "$E\\", "$E"]
for i in range(1, 31):
    lines += [f"$L{i}=\\", f"$L{i-1}\\", f"$L{i-1}"]
lines.append("$L30")
open(f"{d}/empty-2e30.conf", "w").write("\n".join(lines) + "\n")
# 5. An include fan-out: each of 30 files includes the next twice (2^30 reads).
for i in range(30):
    open(f"{d}/fan{i}.conf", "w").write(f"include fan{i+1}.conf\ninclude fan{i+1}.conf\n")
open(f"{d}/fan30.conf", "w").write("global_defs {\n}\n")
# 6-7. Real configurations: 10,000 and 50,000 real servers (ConfigParseBenchmark's shape).
def gen(n):
    out = ["global_defs {\n    router_id BENCH\n}\n"]
    v = 0
    while v * 100 < n:
        out.append(f"virtual_server 10.{v//250}.{v%250}.1 80 {{\n    delay_loop 5\n    lb_algo wlc\n    lb_kind NAT\n    protocol TCP\n")
        for i in range(100):
            k = v * 100 + i
            if k >= n:
                break
            out.append(f"    real_server 172.{16+(k>>16&15)}.{k>>8&255}.{k&255} 8080 {{\n        weight {1+k%10}\n")
            if k % 2 == 0:
                out.append("        TCP_CHECK {\n            connect_timeout 3\n        }\n")
            else:
                out.append("        HTTP_GET {\n            url {\n                path /health\n                status_code 200\n            }\n            retry 2\n        }\n")
            out.append("    }\n")
        out.append("}\n")
        v += 1
    return "".join(out)
open(f"{d}/real-10k.conf", "w").write(gen(10000))
open(f"{d}/real-50k.conf", "w").write(gen(50000))
PY
for f in seq-8M seq-1G macro-1e10 empty-2e30 fan0 real-10k real-50k; do
  out="$(java -XX:+UseSerialGC -Xmx"${xmx}"m -cp "$cp" io.fairway.config.ParsePeakHeap "$dir/$f.conf" 2>&1 | head -2 | tr '\n' ' ' || true)"
  # The error without the offending text it quotes (the bomb's line): name, limit, peak heap.
  echo "$f (-Xmx${xmx}m): ${out//$dir\//}" | sed 's/  | .* \[/ [/'
done
