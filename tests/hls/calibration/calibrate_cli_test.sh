#!/usr/bin/env bash
# End-to-end: synthetic csynth / power reports → ttsim calibrate → ttsim simulate
# --calibration (cycles change, the output names the calibration), refusal of another
# part or clock (exit 2 naming both), ttsim compare (table, MAPE, leave-one-out).
# The reports are synthetic (written from known parameters), not Vitis outputs.
set -uo pipefail

R="${TEST_SRCDIR}/ttsim"
TTSIM="$R/cli/ttsim"
WRITE="$R/tests/hls/calibration/write_synthetic_reports"
ARCH="$R/configs/arch/u50_paper.json"
DEV="$R/configs/devices/u50.json"
U280="$R/configs/devices/u280.json"
MODEL="$R/configs/models/atis_2enc.json"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$WRITE" "$TMP/reports" >/dev/null || fail "writing the synthetic reports"

out="$("$TTSIM" calibrate --reports "$TMP/reports" --arch "$ARCH" --device "$DEV" --model "$MODEL" \
        --out "$TMP/calib.json")"
rc=$?
[ $rc -eq 0 ] || fail "calibrate exited $rc: $out"
for needle in "part xcu50-fsvh2104-2-e" "contraction" "softmax" "layernorm" "fadd 4 cycles" \
              "power (1 report_power file)" "wrote $TMP/calib.json"; do
  grep -qF -- "$needle" <<<"$out" || fail "calibrate output lacks \"$needle\""
done
python3 - "$TMP/calib.json" <<'PY' || fails=$((fails + 1))
import json, sys
c = json.load(open(sys.argv[1]))
assert c["format"] == "ttsim-calibration" and c["version"] == 2
p = c["provenance"]
assert p["part"] == "xcu50-fsvh2104-2-e" and abs(p["target_clock_ns"] - 10.0) < 1e-9, p
assert p["tool_version"] == "2023.2" and len(p["reports"]) == 11, p
k = c["kernels"]
assert set(k) == {"contraction", "softmax", "layernorm"}, k.keys()
for name, loops in [("contraction", 4), ("softmax", 3), ("layernorm", 3)]:
    assert "ii" not in k[name], k[name]
    assert len(k[name]["loops"]) == loops, k[name]
    for loop, l in k[name]["loops"].items():
        assert abs(l["depth_adjust"] - 2) < 0.02, (name, loop, l)
        assert l["report_ii"] == l["model_ii"] >= 1, (name, loop, l)
        assert abs(l["report_depth"] - (l["model_depth"] + 3)) < 1e-9, (name, loop, l)
    assert abs(k[name]["overhead"] - (3 * loops + 1)) < 0.01 * (3 * loops + 1), k[name]
assert c["op_latency"]["fadd"] == 4
assert abs(c["power"]["dsp_watts_per_mhz"] - 7e-6) < 7e-8, c["power"]
PY

"$TTSIM" simulate --model "$MODEL" --arch "$ARCH" --device "$DEV" --json "$TMP/un.json" >"$TMP/un.txt" \
  || fail "uncalibrated simulate failed"
"$TTSIM" simulate --model "$MODEL" --arch "$ARCH" --device "$DEV" --calibration "$TMP/calib.json" \
  --json "$TMP/cal.json" >"$TMP/cal.txt" || fail "calibrated simulate failed"
grep -qF "calibration: uncalibrated defaults from u50_paper/u50" "$TMP/un.txt" || fail "uncalibrated run does not say so"
grep -qF "calibration: $TMP/calib.json (part xcu50-fsvh2104-2-e" "$TMP/cal.txt" || fail "calibrated run does not name its calibration"
if grep -qF "DIFFERS" <<<"$("$TTSIM" compare --reports "$TMP/reports" --arch "$ARCH" --device "$DEV" \
      --calibration "$TMP/calib.json")"; then
  fail "compare flags a loop of reports written from the specification"
fi
# An old (version 1) calibration with a fitted II is refused with exit 2 naming the reason.
python3 - "$TMP/calib.json" "$TMP/calib_v1.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["version"] = 1
for k in c["kernels"].values(): k["ii"] = 1.0
json.dump(c, open(sys.argv[2], "w"))
PY
"$TTSIM" simulate --model "$MODEL" --arch "$ARCH" --device "$DEV" --calibration "$TMP/calib_v1.json" \
  >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc -eq 2 ] || fail "version 1 calibration: exit $rc, expected 2"
grep -qF "kernel_spec.h" "$TMP/e" || fail "version 1 calibration message: $(cat "$TMP/e")"
python3 - "$TMP/un.json" "$TMP/cal.json" <<'PY' || fails=$((fails + 1))
import json, sys
u, c = (json.load(open(f)) for f in sys.argv[1:3])
assert u["calibration"] is None and c["calibration"].endswith("calib.json")
assert u["step_cycles"] != c["step_cycles"], (u["step_cycles"], c["step_cycles"])
bu = {k["name"]: k["busy_cycles"] for k in u["kernels"]}
bc = {k["name"]: k["busy_cycles"] for k in c["kernels"]}
assert any(bu[n] != bc[n] for n in bu if n.startswith("contraction")), "contraction busy cycles unchanged"
PY

# Another part: refused with exit 2, naming both parts.
"$TTSIM" simulate --model "$MODEL" --arch "$ARCH" --device "$U280" --calibration "$TMP/calib.json" \
  >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc -eq 2 ] || fail "part mismatch: exit $rc, expected 2"
grep -qF "xcu50-fsvh2104-2-e" "$TMP/e" && grep -qF "xcu280" "$TMP/e" || fail "part mismatch message: $(cat "$TMP/e")"
# Another clock: refused with exit 2, naming both clocks.
python3 - "$TMP/calib.json" "$TMP/calib300.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["provenance"]["target_clock_ns"] = 3.33
json.dump(c, open(sys.argv[2], "w"))
PY
"$TTSIM" simulate --model "$MODEL" --arch "$ARCH" --device "$DEV" --calibration "$TMP/calib300.json" \
  >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc -eq 2 ] || fail "clock mismatch: exit $rc, expected 2"
grep -qF "3.33 ns" "$TMP/e" && grep -qF "100 MHz" "$TMP/e" || fail "clock mismatch message: $(cat "$TMP/e")"

# Nothing maps: exit 2.
mkdir -p "$TMP/empty"
"$TTSIM" calibrate --reports "$TMP/empty" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/x.json" \
  >"$TMP/o" 2>"$TMP/e"
[ $? -eq 2 ] || fail "empty folder: expected exit 2"
grep -qF "no csynth module maps" "$TMP/e" || fail "empty folder message: $(cat "$TMP/e")"

out="$("$TTSIM" compare --reports "$TMP/reports" --arch "$ARCH" --device "$DEV" --calibration "$TMP/calib.json" \
        --json "$TMP/cmp.json")"
rc=$?
[ $rc -eq 0 ] || fail "compare exited $rc"
for needle in "kernel contraction" "kernel softmax" "kernel layernorm" "MAPE over 12 samples" \
              "leave-one-out MAPE over 12 predictions" "loop class" "contract_dot" "softmax_exp_sum"; do
  grep -qF -- "$needle" <<<"$out" || fail "compare output lacks \"$needle\""
done
python3 - "$TMP/cmp.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mape_calibrated_pct"] < 0.01, d["mape_calibrated_pct"]
assert d["mape_uncalibrated_pct"] > d["mape_calibrated_pct"]
assert d["leave_one_out"]["mape_pct"] < 0.01
rows = [r for k in d["kernels"] for r in k["samples"]]
assert len(rows) == 12
for r in rows:
    assert r["simulated_calibrated"] is not None and r["resources_model"]["DSP"] > 0
    assert abs(r["simulated_calibrated"] - r["report_latency"]) <= 1, r
loops = [l for k in d["kernels"] for l in k["loops"]]
assert len(loops) == 10, len(loops)
for l in loops:
    assert l["model_ii"] >= 1 and l["report_ii"] == [l["model_ii"]] and not l["ii_differs"], l
    assert abs(l["depth_error_pct"]) > 0 and l["calibrated_depth"] == l["model_depth"] + 2, l
    assert l["loop_mape_calibrated_pct"] < 0.01, l
PY

[ $fails -eq 0 ] && echo "PASS" || { echo "$fails failure(s)"; exit 1; }
