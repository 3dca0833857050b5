#!/usr/bin/env bash
# `simulate --dataset-lengths` says how many samples are longer than the model's sequence
# length (priced at seq_len tokens, truncated as training truncates them), counted from the
# lengths file, and says nothing when none is.
set -uo pipefail
R="${TEST_SRCDIR}/ttsim"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
LENGTHS="$R/configs/datasets/atis_lengths.json"
fails=0
for seq in 32 12 64; do
  python3 - "$R/configs/models/atis_2enc.json" "$TMP/m$seq.json" "$seq" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["seq_len"] = int(sys.argv[3]); json.dump(m, open(sys.argv[2], "w"))
PY
  out=$("$R/cli/ttsim" simulate --model "$TMP/m$seq.json" --arch "$R/configs/arch/u50_paper.json" \
        --device "$R/configs/devices/u50.json" --dataset-lengths "$LENGTHS")
  rc=$?
  [ $rc -eq 0 ] || { echo "FAIL: seq_len $seq: exit $rc"; fails=$((fails + 1)); continue; }
  want=$(python3 -c "import json,sys; h=json.load(open('$LENGTHS'))['splits']['train']['histogram']; print(sum(v for k, v in h.items() if int(k) > $seq))")
  note=$(echo "$out" | grep "longer than the model's $seq tokens")
  if [ "$want" -eq 0 ]; then
    [ -z "$note" ] || { echo "FAIL: seq_len $seq: a truncation note with no longer sample: $note"; fails=$((fails + 1)); }
  else
    grouped=$(python3 -c "print(f'{$want:,}')")
    echo "$note" | grep -q "note: $grouped of the samples" ||
      { echo "FAIL: seq_len $seq: expected $want samples named, found: ${note:-no note}"; fails=$((fails + 1)); }
  fi
done
[ $fails -eq 0 ] && echo PASS
exit $fails
