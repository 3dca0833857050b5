#!/usr/bin/env bash
# The explorer at scale: `ttsim explore configs/sweeps/atis_u50_million.json` (the shipped
# ATIS/U50 sweep — 2/4/6 encoders, TT and BTT, 16/64/128 lanes at one or two lanes per bank,
# its references — with per-layer TT ranks, 1,679,616 designs: every one analytic, the front again with SystemC;
# for the analytic stage alone, pass --sweep with a copy set to "fidelity": "analytic") with each binary given,
# and per binary the points evaluated, wall seconds, CPU seconds (user + system), points per
# CPU-second and peak resident memory (GNU time) of the whole command: evaluation, the
# evaluation log, results.csv / results.jsonl, the front, plots and report.html.
#
#   bench/million_points.sh [--shard I/N] [--sweep FILE] [BINARY ...]
#
# Without BINARY it builds and runs this workspace's `-c opt` ttsim. To compare before and
# after, build the older revision in a worktree and pass both binaries, e.g.
#   git worktree add /tmp/before <rev> && (cd /tmp/before && bazel build -c opt //cli:ttsim)
#   bench/million_points.sh --shard 1/16 /tmp/before/bazel-bin/cli/ttsim "$(bazel info -c opt bazel-bin)/cli/ttsim"
# --shard runs one shard of the space (a shard writes its evaluations only: no outputs).
# Run from the workspace root; needs GNU time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -x /usr/bin/time ] || { echo "million_points.sh: needs GNU time (Debian package time: apt-get install time)" >&2; exit 1; }
sweep=configs/sweeps/atis_u50_million.json
shard=()
bins=()
while [ $# -gt 0 ]; do
  case "$1" in
    --shard|--sweep)
      [ $# -ge 2 ] || { echo "million_points.sh: $1 needs a value" >&2; exit 2; }
      if [ "$1" = --shard ]; then shard=(--shard "$2"); else sweep="$2"; fi
      shift 2 ;;
    -*) echo "million_points.sh: unknown option $1" >&2; exit 2 ;;
    *) bins+=("$1"); shift ;;
  esac
done
if [ ${#bins[@]} -eq 0 ]; then
  bazel build -c opt //cli:ttsim >/dev/null 2>&1
  bins=("$(bazel info -c opt bazel-bin 2>/dev/null)/cli/ttsim")
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '%-50s %9s %8s %8s %12s %9s\n' binary points wall_s cpu_s points/cpu_s peak_MiB
i=0
for bin in "${bins[@]}"; do
  i=$((i + 1))
  out="$tmp/run$i"
  /usr/bin/time -f '%e %U %S %M' -o "$tmp/time$i" "$bin" explore "$sweep" --out "$out" --no-progress \
    "${shard[@]}" > "$tmp/stdout$i" 2> "$tmp/stderr$i" || { cat "$tmp/stderr$i" >&2; exit 1; }
  points=$(wc -l < "$out/evaluations.jsonl")
  read -r wall user sys kb < <(tail -1 "$tmp/time$i")
  awk -v b="$bin" -v p="$points" -v w="$wall" -v u="$user" -v s="$sys" -v kb="$kb" 'BEGIN {
    name = length(b) > 50 ? "..." substr(b, length(b) - 46) : b
    printf "%-50s %9d %8.1f %8.1f %12.0f %9.1f\n", name, p, w, u + s, p / (u + s), kb / 1024 }'
  if [ -f "$out/chosen.json" ]; then
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print("  chosen:", c.get("id"), c.get("name"), {k: c["metrics"][k] for k in ("epoch_seconds", "epoch_energy_joules") if k in c.get("metrics", {})})' "$out/chosen.json" 2>/dev/null || true
    du -sh "$out" | awk '{print "  output folder:", $1}'
  fi
done
