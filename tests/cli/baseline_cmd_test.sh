#!/usr/bin/env bash
# `ttsim baseline --json` lists every constant the GPU and FPGA power models use with its
# value and source (or "assumption"), the published figures beside the ratios and a
# three-row sensitivity table; a malformed GPU file is exit 2 naming file and pointer.
set -uo pipefail
R="${TEST_SRCDIR}/ttsim"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
args=(--model "$R/configs/models/atis_2enc.json" --arch "$R/configs/arch/u50_paper.json"
      --device "$R/configs/devices/u50.json" --card "$R/configs/devices/u50_card.json"
      --dataset-lengths "$R/configs/datasets/atis_lengths.json")
"$R/cli/ttsim" baseline "${args[@]}" --gpu "$R/configs/devices/rtx3090.json" --json "$TMP/b.json" >"$TMP/out.txt" \
  || { echo "FAIL: baseline exited $?"; exit 1; }
grep -q "published 30-51x" "$TMP/out.txt" || { echo "FAIL: no published memory figure"; cat "$TMP/out.txt"; exit 1; }
grep -q "sensitivity" "$TMP/out.txt" || { echo "FAIL: no sensitivity table"; exit 1; }
python3 - "$TMP/b.json" "$R/configs/devices/rtx3090.json" "$R/configs/devices/u50_card.json" <<'PY' || { echo "FAIL"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
for src, key in ((sys.argv[2], "gpu"), (sys.argv[3], "fpga_card")):
    names = json.load(open(src))["constants"].keys()
    got = d[key]["constants"]
    assert set(names) == set(got), (key, set(names) ^ set(got))
    for n, c in got.items():
        assert isinstance(c["value"], (int, float)) and c["source"], (n, c)
        assert c["kind"] != "assumption" or "assumption" in c["source"], (n, c)
ops = d["gpu_op_model"]
assert ops["kernels_per_op"] and all(v["source"] for k, v in ops.items() if k != "kernels_per_op"), ops
pm = d["fpga_power_model"]
assert pm["default_scenario"] == "clocked" and "busy_scaled" in pm["named_scenarios"], pm
le = pm["lut_estimate"]
assert all(o["source"] for o in le["operator_core_luts"].values()), pm
c = le["control_luts_per_pipelined_loop"]
assert c["source"] and c["low"] < c["value"] < c["high"], pm
assert le["bank_network_luts"]["source"] and le["binding_multiplexer_luts"]["source"], pm
assert d["device"]["power"]["source"], d["device"]["power"]
m = d["models"][0]
assert m["published_memory_reduction"] == [30, 51] and m["published_energy_ratio"] == [3.6, 4.0], m
assert len(m["sensitivity"]) > 3, m["sensitivity"]  # every sourced constant, the LUT control figure among them
assert "control_luts_per_pipelined_loop" in [s["constant"] for s in m["sensitivity"]], m["sensitivity"]
sw = [abs(s["energy_ratio_vs_gpu_tt"][1] - s["energy_ratio_vs_gpu_tt"][0]) for s in m["sensitivity"]]
assert sw == sorted(sw, reverse=True), sw
# Each constant moves the ratio monotonically: the default ratio lies between its two ends.
for s in m["sensitivity"]:
    for key, default in (("energy_ratio_vs_gpu_tt", m["energy_ratio_vs_gpu_tt"]),
                         ("energy_ratio_vs_gpu_btt", m["energy_ratio_vs_gpu_btt"])):
        lo, hi = s[key]
        assert min(lo, hi) - 1e-9 <= default <= max(lo, hi) + 1e-9, (s, key, default)
p = m["power_scenarios_watts"]
assert p["busy_scaled"]["total"] <= p["clocked"]["total"] <= p["card"], p
assert m["gpu"]["tt"]["step"]["power_watts"] >= d["gpu"]["constants"]["p2_idle_watts"]["value"], m["gpu"]["tt"]["step"]
PY
# A malformed GPU file: exit 2, the message names the file and the JSON pointer.
python3 - "$R/configs/devices/rtx3090.json" "$TMP/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["constants"]["sync_us"]["range"] = [1, 2]
json.dump(d, open(sys.argv[2], "w"))
PY
"$R/cli/ttsim" baseline "${args[@]}" --gpu "$TMP/bad.json" >"$TMP/bad.txt" 2>&1
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: malformed GPU file exited $rc"; cat "$TMP/bad.txt"; exit 1; }
grep -q "bad.json" "$TMP/bad.txt" && grep -q "/constants/sync_us/range" "$TMP/bad.txt" \
  || { echo "FAIL: error does not name file and pointer"; cat "$TMP/bad.txt"; exit 1; }
# A card file whose repeated figure differs from the device file: exit 2 naming both.
python3 - "$R/configs/devices/u50_card.json" "$TMP/card.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["constants"]["dsp_watts_per_mhz"]["value"] = 8e-06
json.dump(d, open(sys.argv[2], "w"))
PY
"$R/cli/ttsim" baseline --model "$R/configs/models/atis_2enc.json" --arch "$R/configs/arch/u50_paper.json" \
  --device "$R/configs/devices/u50.json" --card "$TMP/card.json" --gpu "$R/configs/devices/rtx3090.json" \
  --dataset-lengths "$R/configs/datasets/atis_lengths.json" >"$TMP/card.txt" 2>&1
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: mismatching card file exited $rc"; cat "$TMP/card.txt"; exit 1; }
grep -q "card.json: /constants/dsp_watts_per_mhz/value" "$TMP/card.txt" && grep -q "u50.json" "$TMP/card.txt" \
  || { echo "FAIL: error does not name both files"; cat "$TMP/card.txt"; exit 1; }

# A device file without power coefficients: exit 2 naming the device file and /power.
python3 - "$R/configs/devices/u50.json" "$TMP/nopower.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("power")
json.dump(d, open(sys.argv[2], "w"))
PY
"$R/cli/ttsim" baseline --model "$R/configs/models/atis_2enc.json" --arch "$R/configs/arch/u50_paper.json" \
  --device "$TMP/nopower.json" --gpu "$R/configs/devices/rtx3090.json" \
  --dataset-lengths "$R/configs/datasets/atis_lengths.json" >"$TMP/nopower.txt" 2>&1
rc=$?
[ "$rc" = 2 ] || { echo "FAIL: a device without power exited $rc"; cat "$TMP/nopower.txt"; exit 1; }
grep -q "nopower.json: /power: expected the device's power coefficients" "$TMP/nopower.txt" \
  || { echo "FAIL: error does not name the device file and /power"; cat "$TMP/nopower.txt"; exit 1; }
echo PASS
