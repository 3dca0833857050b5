#!/usr/bin/env bash
# `simulate --json` names every default the run used: the device's figures (operator
# latencies at the run's clock, power coefficients, resource totals), the memory model's
# ports and word width, the LUT estimate's constants and the HLS storage thresholds, the
# device figures' units and the device file's sources.
set -uo pipefail
R="${TEST_SRCDIR}/ttsim"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
"$R/cli/ttsim" simulate --model "$R/configs/models/atis_2enc.json" --arch "$R/configs/arch/u50_paper.json" \
  --device "$R/configs/devices/u50.json" --json "$TMP/s.json" >"$TMP/out.txt" || { echo "FAIL: simulate exited $?"; exit 1; }
# The tables say what their columns mean: the kernel table's total (one call at a time on this
# machine) and the instance table's lane starts.
grep -q "sum to 1.000× the step: the built top runs one call at a time" "$TMP/out.txt" || { echo "FAIL: kernel table footnote"; exit 1; }
grep -q '^(starts: "aligned"' "$TMP/out.txt" || { echo "FAIL: instance table footnote"; exit 1; }
grep -q "^(calls: the module's kernel calls per step; call sites: " "$TMP/out.txt" || { echo "FAIL: calls footnote"; exit 1; }
python3 - "$TMP/s.json" "$R/configs/devices/u50.json" <<'PY' || { echo "FAIL"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))["defaults_used"]
dev = json.load(open(sys.argv[2]))
assert d["clock_mhz"] == 100, d["clock_mhz"]
ops = d["device"]["operator_latency_cycles"]
assert {"fadd", "fmul"} <= set(ops) and all(isinstance(v, int) and v >= 0 for v in ops.values()), ops
p = d["device"]["power"]
for k in ["static_watts", "dsp_watts_per_mhz", "bram36_watts_per_mhz", "uram_watts_per_mhz",
          "logic_watts_per_kilolut_mhz", "clock_watts_per_kilolut_mhz", "source"]:
    assert k in p, k
r = d["device"]["resources"]
assert r["bram36"] > 0 and r["uram288"] > 0 and r["dsp"] > 0 and r["lut"] > 0, r
m = d["memory_model"]
assert m["ports_per_bank"] == 2 and m["word_bits"] == 32, m
l = d["lut_estimate"]
assert l["operator_core_luts"]["fadd"]["value"] == 220 and l["operator_core_luts"]["fmul"]["value"] == 78, l
assert all(o["source"] for o in l["operator_core_luts"].values()), l
c = l["control_luts_per_pipelined_loop"]
assert c["value"] == 296 and c["low"] == 52 and c["high"] == 476 and "hls_reports" in c["source"], l
assert l["binding_multiplexer_luts"]["rule"] and l["bank_network_luts"]["rule"], l
h = d["hls_storage"]
assert h["complete_partition_threshold_elements"]["value"] == 4 and h["lutram_max_bits"]["value"] == 1024, h
assert h["uram_min_bank_words"]["value"] == 2048 and all(v["unit"] and v["source"] for v in h.values()), h
f = d["fit_rule"]["resource_headroom_pct"]
assert f["value"] == 5 and f["unit"] and f["source"], d["fit_rule"]
# The device's figures carry their units and the device file's own sources.
u = d["device"]["units"]
assert u["card.idle_watts"] == "W" and u["clocks.*_mhz"] == "MHz" and "cycles" in u["float_ops.*.latency.cycles"], u
assert d["device"]["sources"] == dev["sources"] and d["device"]["sources"], d["device"]["sources"]
PY

# Under a calibration (fitted fadd latency and static power, timing not met): defaults_used
# lists the figures the run used, the calibration's op_latency with its source, the fitted
# power and the achievable clock.
cat >"$TMP/cal.json" <<'JSON'
{"format": "ttsim-calibration", "version": 2,
 "provenance": {"tool_version": "2023.2", "part": "xcu50-fsvh2104-2-e", "target_clock_ns": 10.0,
                "achievable_clock_ns": 12.755, "arch": "u50_paper", "device": "u50", "model": "atis_2enc",
                "reports": ["synthetic/csynth.xml"]},
 "kernels": {},
 "op_latency": {"fadd": 7},
 "power": {"static_watts": 4.25, "reports": ["synthetic/power.rpt"]}}
JSON
"$R/cli/ttsim" simulate --model "$R/configs/models/atis_2enc.json" --arch "$R/configs/arch/u50_paper.json" \
  --device "$R/configs/devices/u50.json" --calibration "$TMP/cal.json" --json "$TMP/c.json" >"$TMP/c.txt" \
  || { echo "FAIL: simulate --calibration exited $?"; exit 1; }
grep -qF "on arch u50_paper (78.4 MHz) (achievable clock from calibration: timing not met), device u50" "$TMP/c.txt" \
  || { echo "FAIL: simulate does not print the rounded achievable clock: $(grep MHz "$TMP/c.txt")"; exit 1; }
python3 - "$TMP/c.json" "$TMP/cal.json" <<'PY' || { echo "FAIL (calibrated)"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))["defaults_used"]
assert abs(d["clock_mhz"] - 1000 / 12.755) < 1e-9, d["clock_mhz"]
dev = d["device"]
assert dev["operator_latency_cycles"]["fadd"] == 7, dev["operator_latency_cycles"]
assert dev["operator_latency_source"]["fadd"] == "calibration " + sys.argv[2], dev["operator_latency_source"]
assert dev["operator_latency_source"]["fmul"].startswith("device "), dev["operator_latency_source"]
assert dev["power"]["static_watts"] == 4.25, dev["power"]
assert "calibration" in dev["power"]["source"], dev["power"]["source"]
PY
echo PASS
