#!/usr/bin/env bash
# NSGA-II against the exhaustive grid on one sweep (default configs/sweeps/atis_u50_per_layer.json:
# per-layer TT ranks, 262,144 designs): runs `ttsim explore` on the same space with "grid" once,
# then for each seed (default 1..5) with the sweep's NSGA-II search and with random search given
# the same number of evaluations (population x (generations + 1)). Prints per run the points
# evaluated, wall and CPU seconds, the chosen design's figure (the sweep's "choose" metric) and
# its gap to the exhaustive best, then how many seeds of each search came within 1 %.
#
#   bench/nsga2_vs_grid.sh [SWEEP [SEEDS]]      e.g. bench/nsga2_vs_grid.sh configs/sweeps/atis_u50_per_layer.json "1 2 3"
#
# Run from the workspace root; needs python3 (to edit the sweep) and GNU time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -x /usr/bin/time ] || { echo "nsga2_vs_grid.sh: needs GNU time (Debian package time: apt-get install time)" >&2; exit 1; }
sweep="${1:-configs/sweeps/atis_u50_per_layer.json}"
seeds="${2:-1 2 3 4 5}"
bazel build -c opt //cli:ttsim >/dev/null 2>&1
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/cli/ttsim"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# variant SEARCH_JSON OUT: the sweep with its paths absolute and "search" replaced (a value
# "random" = random search with the NSGA-II budget and the NSGA-II seed of SEARCH_JSON).
variant() {
  python3 - "$sweep" "$1" "$2" <<'PY'
import json, os, sys
s = json.load(open(sys.argv[1]))
root = os.getcwd()
s["base"] = {k: os.path.join(root, v) for k, v in s["base"].items()}
if "dataset" in s: s["dataset"]["lengths"] = os.path.join(root, s["dataset"]["lengths"])
if "accuracy_table" in s: s["accuracy_table"] = os.path.join(root, s["accuracy_table"])
search = json.loads(sys.argv[2])
if search.get("strategy") == "random":
    n = s["search"]
    search = {"strategy": "random", "count": n["population"] * (n["generations"] + 1), "seed": search["seed"]}
elif search.get("strategy") == "nsga2":
    search = dict(s["search"], seed=search["seed"])
s["search"] = search
json.dump(s, open(sys.argv[3], "w"))
PY
}
# run NAME SWEEP_FILE: one explore; prints its line and writes the chosen figure to NAME.best.
run() {
  /usr/bin/time -f '%e %U %S' -o "$tmp/$1.time" "$bin" explore "$2" --out "$tmp/$1" --no-progress > "$tmp/$1.out"
  python3 - "$tmp/$1/chosen.json" "$tmp/$1.out" "$tmp/$1.time" "$1" "$2" "$tmp/grid.best" <<'PY'
import json, os, sys
c = json.load(open(sys.argv[1]))
metric = json.load(open(sys.argv[5])).get("choose", {}).get("minimize", "epoch_seconds")
points = open(sys.argv[2]).readline().split()[0]
wall, user, sysc = open(sys.argv[3]).read().split()[-3:]
best = c["metrics"][metric]
gap = ""
if os.path.exists(sys.argv[6]):
    g = float(open(sys.argv[6]).read())
    gap = f"{100 * (best - g) / g:7.2f} %"
print(f"{sys.argv[4]:>10} {points:>8} {float(wall):8.1f} {float(user) + float(sysc):8.1f} {best:14.4f} {gap:>9}  id {c['id']}")
open(sys.argv[1].rsplit("/", 2)[0] + "/" + sys.argv[4] + ".best", "w").write(repr(best))
PY
}
printf '%10s %8s %8s %8s %14s %9s\n' search points wall_s cpu_s best gap
variant '{"strategy": "grid"}' "$tmp/grid.json"
run grid "$tmp/grid.json"
for seed in $seeds; do
  variant "{\"strategy\": \"nsga2\", \"seed\": $seed}" "$tmp/nsga2_$seed.json"
  run "nsga2_$seed" "$tmp/nsga2_$seed.json"
  variant "{\"strategy\": \"random\", \"seed\": $seed}" "$tmp/random_$seed.json"
  run "random_$seed" "$tmp/random_$seed.json"
done
python3 - "$tmp" "$seeds" <<'PY'
import sys
tmp, seeds = sys.argv[1], sys.argv[2].split()
g = float(open(f"{tmp}/grid.best").read())
for search in ("nsga2", "random"):
    gaps = [100 * (float(open(f"{tmp}/{search}_{s}.best").read()) - g) / g for s in seeds]
    within = sum(1 for x in gaps if x <= 1.0)
    print(f"{search}: within 1 % of the exhaustive best in {within} of {len(gaps)} seeds "
          f"(exact in {sum(1 for x in gaps if x == 0)}), worst gap {max(gaps):.2f} %")
PY
