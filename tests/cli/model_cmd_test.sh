#!/usr/bin/env bash
# End-to-end test of `ttsim model`: table sections, JSON keys and values consistent with
# the table, --tokens, and exit code 2 on bad input.
set -uo pipefail

TTSIM="${TEST_SRCDIR}/ttsim/cli/ttsim"
CONFIG="${TEST_SRCDIR}/ttsim/configs/models/atis_2enc.json"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

out="$("$TTSIM" model "$CONFIG" --json "$TMP/report.json")"
rc=$?
[ $rc -eq 0 ] || fail "ttsim model exited $rc"
for needle in "Parameters (FP32" "Contractions per training step" "Step totals" \
              "Task graph (btt flow)" "MM vs TT vs BTT" "enc0.q" "slot_head" "30.4x"; do
  grep -qF -- "$needle" <<<"$out" || fail "output lacks \"$needle\""
done
# The comparison section prints K = 32, 128, 512 by default.
for k in 32 128 512; do
  grep -qE "^ +$k +[0-9,]+ +[0-9,]+ +[0-9,]+ " <<<"$out" || fail "no comparison row for K=$k"
done

python3 - "$TMP/report.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
for k in ["dense_bytes", "compressed_bytes", "compression_ratio", "layers", "task_graph", "model",
          "totals", "flow_comparison"]:
    assert k in d, "missing key " + k
assert abs(d["dense_bytes"] / 1e6 - 36.7) < 0.367, d["dense_bytes"]
assert abs(d["compression_ratio"] - 30.5) < 0.61, d["compression_ratio"]
assert sum(l["params_dense"] for l in d["layers"]) * 4 == d["dense_bytes"]
assert sum(l["params_compressed"] for l in d["layers"]) * 4 == d["compressed_bytes"]
q = next(l for l in d["layers"] if l["name"] == "enc0.q")
for k in ["name", "format", "params_dense", "params_compressed", "macs", "intermediate_words"]:
    assert k in q, "layer lacks " + k
assert q["format"] == "tt"
for f in ["mm", "tt", "btt"]:
    for s in ["forward", "grad_input", "grad_weights"]:
        assert s in q["macs"][f] and s in q["intermediate_words"][f], (f, s)
assert q["macs"]["btt"]["forward"] < q["macs"]["tt"]["forward"] < q["macs"]["mm"]["forward"]
tg = d["task_graph"]
# One SGD task per update group (12 linears, 2 heads, 4 encoder LayerNorms, the embedding's 2).
assert tg["tasks"] > 0 and tg["tasks_by_stage"]["update"] == 20, tg["tasks_by_stage"]
assert tg["buffers_by_class"]["parameter"] > tg["tasks_by_stage"]["update"]
assert tg["total_macs"] == d["totals"]["btt"]["macs"]["total"], (tg["total_macs"], d["totals"]["btt"])
pts = d["flow_comparison"]["points"]
assert [p["tokens"] for p in pts] == [32, 128, 512]
r = [p["btt"]["macs"] / p["tt"]["macs"] for p in pts]
assert r[0] > r[1] > r[2], r
assert d["model"]["encoders"] == 2
PY

out="$("$TTSIM" model "$CONFIG" --tokens 8,64)" || fail "--tokens 8,64 failed"
grep -qE "^ +64 " <<<"$out" || fail "no comparison row for K=64"

expect_exit2() {
  local what="$1"; shift
  "$TTSIM" model "$@" >"$TMP/stdout" 2>"$TMP/stderr"
  local rc=$?
  [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2"
  grep -q "error" "$TMP/stderr" || fail "$what: no error message on stderr"
}
cat >"$TMP/bad.json" <<'JSON'
{"name": "bad", "encoders": 1, "d_model": 768, "heads": 12, "ffn_dim": 768, "seq_len": 32,
 "vocab": 2500, "intents": 26, "slot_tags": 127,
 "token_embedding": {"format": "dense"},
 "layers": {"attention": {"format": "tt", "in_factors": [12, 8, 9], "out_factors": [8, 8, 12], "rank": 12},
            "ffn_in": {"format": "dense"}, "ffn_out": {"format": "dense"}}}
JSON
expect_exit2 "bad factor product" "$TMP/bad.json"
grep -q "in_factors" "$TMP/stderr" || fail "bad config error does not name the JSON pointer"
expect_exit2 "missing file" "$TMP/no_such.json"
expect_exit2 "bad --tokens" "$CONFIG" --tokens 32,x
expect_exit2 "--tokens beyond 64-bit counts" "$CONFIG" --tokens 32,16000000000000
grep -q "2^50" "$TMP/stderr" || fail "--tokens overflow error does not name the bound"
expect_exit2 "bad --flow" "$CONFIG" --flow bt
expect_exit2 "unknown option" "$CONFIG" --frobnicate
# A report that cannot be written (a full device) is not a success; a path the system
# refuses (too long) is bad input, not an internal error.
if [ -e /dev/full ]; then
  "$TTSIM" model "$CONFIG" > /dev/full 2> "$TMP/stderr"
  rc=$?
  [ $rc -eq 1 ] || fail "model > /dev/full exited $rc, not 1"
  grep -q "writing the standard output failed" "$TMP/stderr" || fail "no message for the failed write"
fi
long="$TMP/$(printf 'x%.0s' $(seq 1 300))"
expect_exit2 "a file name too long" "$long.json"
# A path the file system refuses where no config loader looks first (it was "internal error").
"$TTSIM" emit --default-tree --hls-root "$long/y" > /dev/null 2> "$TMP/stderr"
rc=$?
[ $rc -eq 2 ] || fail "emit --hls-root <too long>: exit $rc, expected 2"
grep -q "error" "$TMP/stderr" || fail "emit --hls-root <too long>: no error message"

if [ $fails -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
