#!/usr/bin/env bash
# The per-class table of a bench/repeat-suites.sh result directory: for every test class that
# failed, erred or skipped in any run, in how many runs it did, and the first line of each
# distinct failure message; then the totals per module.
#
#   bench/repeat-suites-summary.sh OUT
set -euo pipefail
python3 - "$1" <<'EOF'
import sys, glob, os, collections, xml.etree.ElementTree as ET
out = sys.argv[1]
runs = collections.Counter()          # module -> jobs that produced reports
red = collections.Counter()           # module -> jobs with a failure or error
per_class = collections.defaultdict(lambda: collections.Counter())
messages = collections.defaultdict(set)
for d in sorted(glob.glob(out + "/run*-*")):
    module = os.path.basename(d).split("-", 1)[1]
    reports = glob.glob(d + "/surefire-reports*/TEST-*.xml")
    if not reports:
        continue
    runs[module] += 1
    job_red = False
    for p in reports:
        r = ET.parse(p).getroot()
        cls = r.get("name") + (" (epoll)" if "surefire-reports-epoll" in p else "")
        for tc in r.iter("testcase"):
            for kind in ("failure", "error", "skipped"):
                el = tc.find(kind)
                if el is not None:
                    per_class[cls][kind] += 1
                    if kind != "skipped":
                        job_red = True
                        msg = (el.get("message") or el.get("type") or "").splitlines()
                        messages[cls].add(tc.get("name") + ": " + (msg[0][:160] if msg else ""))
    red[module] += job_red
print("module\tjobs\tjobs with a failure")
for m in sorted(runs):
    print(f"{m}\t{runs[m]}\t{red[m]}")
print()
print("class\tfailures\terrors\tskipped")
for cls in sorted(per_class):
    c = per_class[cls]
    print(f"{cls}\t{c['failure']}\t{c['error']}\t{c['skipped']}")
    for m in sorted(messages[cls]):
        print(f"    {m}")
EOF
