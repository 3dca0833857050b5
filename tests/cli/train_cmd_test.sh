#!/usr/bin/env bash
# End-to-end test of `ttsim train` (HLS kernels and dense reference) and
# `ttsim dataset-lengths` on a small synthetic dataset in the JointBERT layout, with a
# small TT model: table and JSON per epoch, same seed same numbers, checkpoint resume
# equal to the uninterrupted run, exit code 2 with the file and line on bad input.
set -uo pipefail

TTSIM="${TEST_SRCDIR}/ttsim/cli/ttsim"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# --- synthetic dataset -------------------------------------------------------------
DATA="$TMP/toy"
mkdir -p "$DATA/train" "$DATA/dev" "$DATA/test"
printf 'UNK\nflight\nairfare\n' > "$DATA/intent_label.txt"
printf 'PAD\nUNK\nO\nB-from\nI-from\nB-to\n' > "$DATA/slot_label.txt"
gen() {  # gen N SEED -> lines "words|tags|intent"
  awk -v n="$1" -v seed="$2" 'BEGIN {
    srand(seed); split("boston denver dallas miami", c, " ");
    for (i = 0; i < n; i++) {
      kw = (rand() < 0.5) ? "flights" : "fares"; it = (kw == "flights") ? "flight" : "airfare";
      if (rand() < 0.3) { from = "new york"; ft = "B-from I-from" } else { from = c[int(rand()*4)+1]; ft = "B-from" }
      to = c[int(rand()*4)+1];
      printf "show %s from %s to %s|O O O %s O B-to|%s\n", kw, from, to, ft, it } }'
}
write_split() {  # write_split SPLIT N SEED
  gen "$2" "$3" > "$TMP/lines"
  cut -d'|' -f1 "$TMP/lines" > "$DATA/$1/seq.in"
  cut -d'|' -f2 "$TMP/lines" > "$DATA/$1/seq.out"
  cut -d'|' -f3 "$TMP/lines" > "$DATA/$1/label"
}
write_split train 40 1; write_split dev 12 2; write_split test 12 3

# --- small TT model (HLS kernels need a TTM embedding with >= 2 cores) --------------
MODEL="$TMP/tiny.json"
cat > "$MODEL" <<'JSON'
{"name": "tiny_tt", "encoders": 1, "d_model": 16, "heads": 2, "ffn_dim": 16, "seq_len": 8,
 "batch": 1, "vocab": 32, "intents": 4, "slot_tags": 8,
 "token_embedding": {"format": "ttm", "vocab_factors": [4, 8], "dim_factors": [4, 4], "rank": 2},
 "layers": {
   "attention": {"format": "tt", "in_factors": [4, 4], "out_factors": [4, 4], "rank": 2},
   "ffn_in": {"format": "tt", "in_factors": [4, 4], "out_factors": [4, 4], "rank": 2},
   "ffn_out": {"format": "tt", "in_factors": [4, 4], "out_factors": [4, 4], "rank": 2},
   "intent_head": {"format": "dense"}, "slot_head": {"format": "dense"}}}
JSON

rows() { awk '$1 ~ /^[0-9]+$/ && NF >= 8 { print $1, $2, $5, $6, $7, $8 }' "$1"; }

# --- dataset-lengths ----------------------------------------------------------------
"$TTSIM" dataset-lengths --data "$DATA" --out "$TMP/lengths.json" > "$TMP/lengths.out"
[ $? -eq 0 ] || fail "dataset-lengths exited non-zero"
python3 - "$TMP/lengths.json" <<'PY' || fail "lengths JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["splits"]["train"]["count"] == 40 and d["splits"]["dev"]["count"] == 12
assert sum(d["splits"]["train"]["histogram"].values()) == 40
assert set(d["splits"]["train"]["histogram"]) == {"6", "7"}, d  # "show X from C [C] to C"
assert d["max_length"] == max(int(k) for s in d["splits"].values() for k in s["histogram"])
PY

# --- train with the HLS kernels: two runs, same seed, same numbers ------------------
for engine in hls dense; do
  flag=""; [ "$engine" = dense ] && flag="--dense"
  "$TTSIM" train --data "$DATA" --model "$MODEL" --epochs 3 --lr 0.05 --seed 3 $flag \
    --json "$TMP/$engine.json" > "$TMP/$engine.a" 2> "$TMP/$engine.err"
  [ $? -eq 0 ] || { fail "$engine train exited non-zero"; cat "$TMP/$engine.err"; }
  grep -q "samples/s" "$TMP/$engine.err" || fail "$engine: no progress on stderr"
  "$TTSIM" train --data "$DATA" --model "$MODEL" --epochs 3 --lr 0.05 --seed 3 $flag \
    > "$TMP/$engine.b" 2>/dev/null
  [ "$(rows "$TMP/$engine.a" | cut -d' ' -f1,2)" = "$(rows "$TMP/$engine.b" | cut -d' ' -f1,2)" ] ||
    fail "$engine: same seed gave different losses"
  [ "$(rows "$TMP/$engine.a" | wc -l)" -eq 3 ] || fail "$engine: expected 3 epoch rows"
  python3 - "$TMP/$engine.json" "$engine" <<'PY' || fail "$engine JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["engine"] == sys.argv[2] and len(d["epochs"]) == 3
e = d["epochs"]
for x in e:
    for s in ("dev", "test"):
        assert 0 <= x[s]["intent_accuracy"] <= 1 and 0 <= x[s]["slot_f1"] <= 1
        assert x[s]["samples"] == 12
assert e[2]["train_loss"] < e[0]["train_loss"], [x["train_loss"] for x in e]
PY
  # Resume: 1 epoch with a checkpoint, then up to 3, equals the uninterrupted run.
  rm -f "$TMP/$engine.ckpt"
  "$TTSIM" train --data "$DATA" --model "$MODEL" --epochs 1 --lr 0.05 --seed 3 $flag \
    --checkpoint "$TMP/$engine.ckpt" > /dev/null 2>&1 || fail "$engine: checkpoint run failed"
  "$TTSIM" train --data "$DATA" --model "$MODEL" --epochs 3 --lr 0.05 --seed 3 $flag \
    --checkpoint "$TMP/$engine.ckpt" > "$TMP/$engine.c" 2>/dev/null || fail "$engine: resume failed"
  [ "$(rows "$TMP/$engine.a")" = "$(rows "$TMP/$engine.c")" ] ||
    fail "$engine: resumed run differs: $(rows "$TMP/$engine.c")"
  grep -q "(checkpoint)" "$TMP/$engine.c" || fail "$engine: loaded epoch not marked"
  # A checkpoint of another seed is refused.
  "$TTSIM" train --data "$DATA" --model "$MODEL" --epochs 4 --lr 0.05 --seed 4 $flag \
    --checkpoint "$TMP/$engine.ckpt" > /dev/null 2> "$TMP/err"
  [ $? -eq 2 ] || fail "$engine: foreign checkpoint not refused with exit 2"
  grep -q "its seed is 3, this run's is 4" "$TMP/err" || fail "$engine: $(cat "$TMP/err")"
done

# --- bad input: exit 2 naming file and line -----------------------------------------
cp -r "$DATA" "$TMP/bad"
sed -i '5s/ B-to$//' "$TMP/bad/dev/seq.out"
"$TTSIM" train --data "$TMP/bad" --model "$MODEL" > /dev/null 2> "$TMP/err"
[ $? -eq 2 ] || fail "mismatched tags: expected exit 2"
grep -qE "bad/dev/seq.out:5: expected [67] slot tags \(one per token of seq.in\), found [56]" \
  "$TMP/err" || fail "mismatch: $(cat "$TMP/err")"
rm "$TMP/bad/train/label"
"$TTSIM" dataset-lengths --data "$TMP/bad" > /dev/null 2> "$TMP/err"
[ $? -eq 2 ] || fail "missing label: expected exit 2"
grep -q "bad/train/label: cannot open" "$TMP/err" || fail "missing: $(cat "$TMP/err")"
# A model too small for the dataset is refused.
sed 's/"slot_tags": 8/"slot_tags": 4/' "$MODEL" > "$TMP/small.json"
"$TTSIM" train --data "$DATA" --model "$TMP/small.json" > /dev/null 2> "$TMP/err"
[ $? -eq 2 ] || fail "small model: expected exit 2"
grep -q "small.json: /slot_tags: expected at least 6" "$TMP/err" || fail "small: $(cat "$TMP/err")"
# Unwritable or clashing outputs are refused before the first epoch (no table row).
echo "file" > "$TMP/blocker"
for bad in "--checkpoint $TMP/blocker/ck" "--json $TMP/blocker/r.json" \
           "--json $TMP/same --checkpoint $TMP/same" "--json $MODEL"; do
  "$TTSIM" train --data "$DATA" --model "$MODEL" $bad > "$TMP/out" 2> "$TMP/err"
  [ $? -eq 2 ] || fail "outputs '$bad': expected exit 2"
  grep -qE "^ +1 " "$TMP/out" && fail "outputs '$bad': an epoch ran before the refusal"
  grep -qE "blocker|same file|names the input --model" "$TMP/err" || fail "outputs '$bad': $(cat "$TMP/err")"
done
grep -q '"name": "tiny_tt"' "$MODEL" || fail "model config overwritten"

[ $fails -eq 0 ] && echo "all checks passed"
exit $fails
