#!/usr/bin/env bash
# Rank–accuracy table of the 2-encoder ATIS model for the DSE: trains
# configs/models/atis_2enc_r{4,8,16}.json and atis_2enc.json (rank 12) with the compressed
# Eigen reference (engine "reference": the same TT/TTM model and initialization as the
# HLS kernels, faster in C++), SGD batch 1, same seed, learning rate and epochs for
# every rank, two ranks at a time, and writes configs/datasets/atis_rank_accuracy.json
# (accuracies as fractions 0–1; "seconds" = summed training wall time of the epochs).
#
# usage: scripts/rank_accuracy.sh [DATA_DIR]      (default: ../shared/data/atis)
# env:   TTSIM_BIN  ttsim binary (default: build //cli:ttsim with $BAZEL, default "bazel")
#        EPOCHS (2)  LR (0.004)  SEED (1)  LIMIT (0 = whole train split)
#        OUT (configs/datasets/atis_rank_accuracy.json)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${1:-$ROOT/../shared/data/atis}"
EPOCHS="${EPOCHS:-2}" LR="${LR:-0.004}" SEED="${SEED:-1}" LIMIT="${LIMIT:-0}"
OUT="${OUT:-$ROOT/configs/datasets/atis_rank_accuracy.json}"
[ -d "$DATA" ] || { echo "rank_accuracy: no ATIS folder at $DATA" >&2; exit 2; }
cd "$ROOT"
if [ -z "${TTSIM_BIN:-}" ]; then
  BAZEL="${BAZEL:-bazel}"
  $BAZEL build -c opt //cli:ttsim >&2
  TTSIM_BIN="$($BAZEL info -c opt bazel-bin 2>/dev/null)/cli/ttsim"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

model_of() { if [ "$1" = 12 ]; then echo configs/models/atis_2enc.json; else echo "configs/models/atis_2enc_r$1.json"; fi; }
run() {
  "$TTSIM_BIN" train --engine reference --data "$DATA" --model "$(model_of "$1")" \
    --epochs "$EPOCHS" --lr "$LR" --seed "$SEED" --limit "$LIMIT" --json "$work/r$1.json" \
    > "$work/r$1.out" 2> "$work/r$1.err" || { cat "$work/r$1.err" >&2; return 1; }
  cat "$work/r$1.out"
}
for pair in "4 8" "12 16"; do
  set -- $pair
  run "$1" & p1=$!
  run "$2" & p2=$!
  wait $p1; wait $p2
done

limit_json=null; [ "$LIMIT" != 0 ] && limit_json="$LIMIT"
command="EPOCHS=$EPOCHS LR=$LR SEED=$SEED LIMIT=$LIMIT scripts/rank_accuracy.sh ATIS_DIR"
jq -n --arg cmd "$command" --argjson epochs "$EPOCHS" --argjson lr "$LR" --argjson seed "$SEED" \
  --argjson limit "$limit_json" \
  --slurpfile r4 "$work/r4.json" --slurpfile r8 "$work/r8.json" \
  --slurpfile r12 "$work/r12.json" --slurpfile r16 "$work/r16.json" '
  def row(rank; j): (j.epochs | last) as $e | {
      rank: rank,
      test_intent_accuracy: $e.test.intent_accuracy, test_slot_f1: $e.test.slot_f1,
      dev_intent_accuracy: $e.dev.intent_accuracy, dev_slot_f1: $e.dev.slot_f1,
      final_train_loss: $e.train_loss,
      seconds: (j.epochs | map(.train_seconds) | add) };
  { source: ("ttsim train --engine reference (compressed Eigen reference, FP32, BTT, gain-balanced TT init) on ATIS (JointBERT layout), batch-1 SGD, after the last epoch; dev/test fully scored"),
    command: $cmd,
    model: "configs/models/atis_2enc.json",
    epochs: $epochs, lr: $lr, seed: $seed, limit: $limit,
    ranks: [row(4; $r4[0]), row(8; $r8[0]), row(12; $r12[0]), row(16; $r16[0])] }' > "$work/table.json"
mkdir -p "$(dirname "$OUT")"
mv "$work/table.json" "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
echo "rank_accuracy: wrote $OUT"
