#!/usr/bin/env bash
# NSGA-II against the exhaustive grid on one sweep (default configs/sweeps/atis_u50_per_layer.json:
# per-layer TT ranks, 4,096 designs): runs `ttsim explore` twice on the same space — once with the
# sweep's NSGA-II search, once with "grid" — and prints each run's points evaluated, wall and CPU
# seconds, the chosen design's figure (the sweep's "choose" metric) and NSGA-II's gap to the
# exhaustive best. Run from the workspace root; needs python3 (to edit the sweep) and GNU time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -x /usr/bin/time ] || { echo "nsga2_vs_grid.sh: needs GNU time (Debian package time: apt-get install time)" >&2; exit 1; }
sweep="${1:-configs/sweeps/atis_u50_per_layer.json}"
bazel build -c opt //cli:ttsim >/dev/null 2>&1
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/cli/ttsim"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 - "$sweep" "$tmp/grid.json" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
base = os.path.dirname(os.path.abspath(sys.argv[1]))
root = os.getcwd()
# Paths in the sweep are read from the working folder; keep them absolute in the copy.
s["base"] = {k: os.path.join(root, v) for k, v in s["base"].items()}
if "dataset" in s: s["dataset"]["lengths"] = os.path.join(root, s["dataset"]["lengths"])
if "accuracy_table" in s: s["accuracy_table"] = os.path.join(root, s["accuracy_table"])
s["search"] = {"strategy": "grid"}
json.dump(s, open(sys.argv[2], "w"))
PY
run() {  # name sweep
  /usr/bin/time -f '%e %U %S' -o "$tmp/$1.time" "$bin" explore "$2" --out "$tmp/$1" --no-progress > "$tmp/$1.out"
  python3 - "$tmp/$1/chosen.json" "$tmp/$1.out" "$tmp/$1.time" "$1" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
metric = json.load(open(sys.argv[5])).get("choose", {}).get("minimize", "epoch_seconds")
line = open(sys.argv[2]).readline().split()
wall, user, sysc = open(sys.argv[3]).read().split()[-3:]
print(f"{sys.argv[4]:>6} {line[0]:>8} {float(wall):8.1f} {float(user) + float(sysc):8.1f} "
      f"{c['metrics'][metric]:14.4f}  id {c['id']}")
open(sys.argv[1] + ".best", "w").write(repr(c["metrics"][metric]))
PY
}
printf '%6s %8s %8s %8s %14s\n' search points wall_s cpu_s best
run nsga2 "$sweep"
run grid "$tmp/grid.json"
python3 - "$tmp/nsga2/chosen.json.best" "$tmp/grid/chosen.json.best" <<'PY'
import sys
n, g = float(open(sys.argv[1]).read()), float(open(sys.argv[2]).read())
print(f"NSGA-II gap to the exhaustive best: {100 * (n - g) / g:.2f} %")
PY
