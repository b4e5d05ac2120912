#!/usr/bin/env bash
# The shape of Fairway's main code: the longest methods, each module's longest method and largest
# classes, classes over 600 lines, package import cycles, simple class names in more than one module
# (bench/shape-check.java), files that bind a native library (one: fairway-os's LibC). Exits 1 when a
# goal is missed; --report prints without failing.
# Usage: bench/shape-check.sh [--report]
set -euo pipefail
cd "$(dirname "$0")/.."
exec java bench/shape-check.java "$@"
