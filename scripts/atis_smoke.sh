#!/usr/bin/env bash
# Smoke stage on the real ATIS data: trains the 2-encoder rank-12 model with the HLS
# kernels (compiled natively) for 2 epochs over the first 200 train utterances, scores the
# first 100 dev and test utterances, and fails unless the epoch-2 train loss is below the
# epoch-1 train loss. About a minute or two on one core.
#
# usage: scripts/atis_smoke.sh [DATA_DIR]      (default: ../shared/data/atis)
# env:   TTSIM_BIN    use this ttsim binary instead of building //cli:ttsim with Bazel
#        BAZEL        Bazel command with startup options (default "bazel")
#        SMOKE_ARGS   extra `ttsim train` flags (e.g. "--dense")
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${1:-$ROOT/../shared/data/atis}"
if [ ! -d "$DATA" ]; then
  echo "atis_smoke: no ATIS folder at $DATA" >&2
  exit 2
fi
cd "$ROOT"
if [ -z "${TTSIM_BIN:-}" ]; then
  BAZEL="${BAZEL:-bazel}"
  $BAZEL build //cli:ttsim >&2
  TTSIM_BIN="$($BAZEL info bazel-bin 2>/dev/null)/cli/ttsim"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

start=$(date +%s)
# shellcheck disable=SC2086
"$TTSIM_BIN" train --data "$DATA" --model "$ROOT/configs/models/atis_2enc.json" \
  --epochs 2 --limit 200 --eval-limit 100 --seed 1 --json "$work/smoke.json" \
  ${SMOKE_ARGS:-} | tee "$work/stdout"
elapsed=$(( $(date +%s) - start ))

# Rows of the per-epoch table: "<epoch> <train_loss> ...".
read -r loss1 loss2 < <(awk '$1 ~ /^[0-9]+$/ && NF >= 8 { l[$1] = $2 }
                             END { print (1 in l ? l[1] : "nan"), (2 in l ? l[2] : "nan") }' \
                        "$work/stdout")
if awk -v a="$loss1" -v b="$loss2" 'BEGIN { exit !(a == a + 0 && b == b + 0 && b < a) }'; then
  echo "atis_smoke: OK: train loss fell from $loss1 (epoch 1) to $loss2 (epoch 2) in ${elapsed}s"
else
  echo "atis_smoke: FAIL: train loss did not fall: epoch 1 $loss1, epoch 2 $loss2" >&2
  exit 1
fi
