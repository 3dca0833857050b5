#!/usr/bin/env bash
# Compares every figure two ttsim binaries print, for a refactoring that must not change any:
#   scripts/same_figures.sh [--renames FILE] BEFORE_BINARY AFTER_BINARY [WORK_DIR]
# Runs, with each binary, from the repository root:
#   - simulate (stdout, stderr, exit code, --json, --trace, --loops) of the three presets
#     (atis_2enc / atis_4enc / atis_6enc on u50_paper with the ATIS lengths) on the U50 and on
#     the U280;
#   - memplan and model of the 2-encoder preset;
#   - explore of the shipped sweep (configs/sweeps/atis_u50.json): every file of the out folder
#     (the emitted HLS build included), and the command's stdout.
# and diffs the two trees byte for byte. Only what is not a figure of the design is masked:
# explore's wall-clock seconds on its summary line and the out folder's own path.
# With --renames, FILE lists moved source files ("old/path.h new/path.h" per line, e.g.
# scripts/moved_paths.txt): the before outputs' mentions of the old paths (notes and
# descriptions that name a source file) are read as the new ones. Both binaries copy the
# kernel sources of this checkout into the emitted build: a change to hls/kernels is not
# seen here (tests/dse:emitted_machine_test checks the emitted sources).
# Exit 0 when identical, 1 with the diff otherwise. Build the before binary from a commit with
#   git worktree add /tmp/before <commit> && (cd /tmp/before && bazel build //cli:ttsim)
set -uo pipefail
renames=""
if [ "${1:-}" = "--renames" ]; then renames="$(realpath "$2")"; shift 2; fi
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_BINARY AFTER_BINARY [WORK_DIR]" >&2; exit 2; }
before="$(realpath "$1")"; after="$(realpath "$2")"
work="${3:-$(mktemp -d)}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

run_all() {  # binary outdir
  local bin="$1" out="$2"
  rm -rf "$out"; mkdir -p "$out"
  for device in u50 u280; do
    for enc in 2 4 6; do
      local o="$out/simulate_${enc}enc_${device}"
      "$bin" simulate --model "configs/models/atis_${enc}enc.json" --arch configs/arch/u50_paper.json \
        --device "configs/devices/${device}.json" --dataset-lengths configs/datasets/atis_lengths.json \
        --loops --json "$o.json" --trace "$o.trace.json" >"$o.stdout" 2>"$o.stderr"
      echo "exit $?" >>"$o.stdout"
    done
  done
  "$bin" memplan --model configs/models/atis_2enc.json --arch configs/arch/u50_paper.json \
    --device configs/devices/u50.json --buffers --planner >"$out/memplan.stdout" 2>&1; echo "exit $?" >>"$out/memplan.stdout"
  "$bin" model configs/models/atis_2enc.json >"$out/model.stdout" 2>&1; echo "exit $?" >>"$out/model.stdout"
  "$bin" explore configs/sweeps/atis_u50.json --out "$out/explore" >"$out/explore.stdout" 2>"$out/explore.stderr"
  echo "exit $?" >>"$out/explore.stdout"
  rm -f "$out/explore.stderr"  # progress line only
  # Mask what is not a figure of the design.
  find "$out" -type f -print0 |
    xargs -0 sed -i -E \
      -e "s#$out#OUT#g" \
      -e 's/(SystemC-evaluated\), )[0-9]+(\.[0-9]+)? s$/\1T s/'
}

run_all "$before" "$work/before"
if [ -n "$renames" ]; then
  script="$(awk 'NF == 2 && $1 !~ /^#/ { gsub(/[.]/, "\\.", $1); printf "s#%s#%s#g;", $1, $2 }' "$renames")"
  find "$work/before" -type f -print0 | xargs -0 sed -i -E "$script"
fi
run_all "$after" "$work/after"
if diff -r "$work/before" "$work/after" >"$work/diff.txt"; then
  echo "identical: $(find "$work/before" -type f | wc -l) files ($work)"
  exit 0
fi
echo "DIFFERENT ($work/diff.txt):"
head -80 "$work/diff.txt"
exit 1
