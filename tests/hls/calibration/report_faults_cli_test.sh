#!/usr/bin/env bash
# Report commands under odd inputs: compare-rules with nothing evaluated says n/a (text)
# and null (JSON); a missed timing target is a warning in inspect-report, compare and
# calibrate, and the calibration carries the achievable clock with a note; co-simulation
# latency is the ground truth where csynth prints undef (compare, calibrate); calibrate
# and compare list every file with what they did with it; a foreign design's
# report_power is not fitted unless named with --power; a report of another design among
# ttsim's is rejected naming its top (--keep fits it); a "?" latency skips one kernel
# sample; a "?" in one real file leaves its folder read; per-module files are modules of
# their top. Real reports through TTSIM_SHARED (copied into the test's temporary folder);
# the rest is synthetic.
set -uo pipefail

R="${TEST_SRCDIR}/ttsim"
TTSIM="$R/cli/ttsim"
WRITE="$R/tests/hls/calibration/write_synthetic_reports"
ARCH="$R/configs/arch/u50_paper.json"
DEV="$R/configs/devices/u50.json"
MODEL="$R/configs/models/atis_2enc.json"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { grep -qF -- "$2" <<<"$1" || fail "$3 lacks \"$2\""; }

# 1. compare-rules where nothing can be evaluated: n/a, never 0.00 %.
mkdir -p "$TMP/none"
cat >"$TMP/none/csynth.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<profile><ReportVersion><Version>2023.2</Version></ReportVersion>
<UserAssignments><Part>xcu50-fsvh2104-2-e</Part><TopModelName>odd</TopModelName><TargetClockPeriod>10.00</TargetClockPeriod></UserAssignments>
<PerformanceEstimates><SummaryOfTimingAnalysis><unit>ns</unit><EstimatedClockPeriod>12.755</EstimatedClockPeriod></SummaryOfTimingAnalysis>
<SummaryOfOverallLatency><Best-caseLatency>undef</Best-caseLatency><Average-caseLatency>undef</Average-caseLatency><Worst-caseLatency>undef</Worst-caseLatency><Interval-min>undef</Interval-min><Interval-max>undef</Interval-max></SummaryOfOverallLatency></PerformanceEstimates>
<AreaEstimates><Resources><BRAM_18K>0</BRAM_18K><DSP>0</DSP><FF>10</FF><LUT>20</LUT><URAM>0</URAM></Resources></AreaEstimates></profile>
XML
out="$("$TTSIM" compare-rules "$TMP/none" --json "$TMP/none.json")" || fail "compare-rules exited $?"
has "$out" "0 modules evaluated, MAPE n/a" "compare-rules output"
grep -qF "MAPE 0.00" <<<"$out" && fail "compare-rules prints MAPE 0.00 with nothing evaluated"
has "$out" "warning: $TMP/none/csynth.xml: odd: estimated clock 12.755 ns above the 10.000 ns target" "compare-rules output"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["mape_pct"] is None and d["modules_evaluated"] == 0, d' \
  "$TMP/none.json" || fail "compare-rules JSON mape_pct is not null"

# 2. inspect-report: timing warning.
out="$("$TTSIM" inspect-report "$TMP/none/csynth.xml" --json "$TMP/insp.json")" || fail "inspect-report exited $?"
has "$out" "warning: $TMP/none/csynth.xml: odd: estimated clock 12.755 ns above the 10.000 ns target" "inspect-report"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["csynth"][0]; assert c["timing_met"] is False and c["warnings"], c' \
  "$TMP/insp.json" || fail "inspect-report JSON has no timing warning"

# 3. Synthetic set + a missed timing target in one kernel report + one kernel whose csynth
#    latency is undef but co-simulated.
"$WRITE" "$TMP/rep" >/dev/null || fail "writing the synthetic reports"
c0="$TMP/rep/ttsim_contraction_0/syn/report/csynth.xml"
lat=$(grep -o '<Worst-caseLatency>[0-9]*<' "$c0" | head -1 | tr -dc 0-9)
sed -i "s/>$lat</>undef</g" "$c0"
mkdir -p "$TMP/rep/ttsim_contraction_0/sim/report"
cat >"$TMP/rep/ttsim_contraction_0/sim/report/ttsim_contraction_cosim.rpt" <<RPT
Synthetic co-simulation report (test); not a Vitis output.
+----------+----------+-----------------------------------------------+-----------------------------------------------+----------------------+
|   RTL    |  Status  |      min      |      avg      |      max      |      min      |      avg      |      max      |  Total Execution Time|
+----------+----------+-----------------------------------------------+-----------------------------------------------+----------------------+
|      VHDL|        NA|             NA|             NA|             NA|             NA|             NA|             NA|                    NA|
|   Verilog|      Pass|          $lat|          $lat|          $lat|             NA|             NA|             NA|                  $lat|
+----------+----------+-----------------------------------------------+-----------------------------------------------+----------------------+
RPT
s1="$TMP/rep/ttsim_softmax_4/syn/report/csynth.xml"
sed -i '0,/<EstimatedClockPeriod>[0-9.]*</s//<EstimatedClockPeriod>12.755</' "$s1"
echo "notes" >"$TMP/rep/README.txt"
out="$("$TTSIM" compare --reports "$TMP/rep" --arch "$ARCH" --device "$DEV" --json "$TMP/cmp.json")" || fail "compare exited $?"
has "$out" "(report latency = co-simulation, csynth undef)" "compare output"
has "$out" "warning: $s1: ttsim_softmax: estimated clock 12.755 ns above the 10.000 ns target" "compare output"
has "$out" "not read  README.txt: not a report kind" "compare output"
has "$out" "used      ttsim_contraction_0/sim/report/ttsim_contraction_cosim.rpt: co-simulation latency as ground truth" "compare output"
python3 - "$TMP/cmp.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["files"]) == 15, [f["path"] for f in d["files"]]
assert d["timing_violations"][0]["estimated_clock_ns"] == 12.755
rows = [r for k in d["kernels"] for r in k["samples"] if r["report_latency_source"] == "cosim"]
assert rows and rows[0]["module"] == "ttsim_contraction", rows
PY

# 4. calibrate: the same, plus a foreign design on the same part with its own report_power
#    (the real U50 KNN build) when TTSIM_SHARED is set: listed as rejected, not fitted;
#    --power takes it.
if [ -n "${TTSIM_SHARED:-}" ] && [ -d "$TTSIM_SHARED/data/hls_reports/ahls_knn" ]; then
  cp -r "$TTSIM_SHARED/data/hls_reports/ahls_knn" "$TMP/rep/knn" && chmod -R u+w "$TMP/rep/knn"
  foreign=1
else
  echo "TTSIM_SHARED not set: the foreign-design part of this test is skipped"
  foreign=0
fi
# A foreign design's co-simulation report: skipped because its csynth top is no ttsim
# kernel module (not "no kernel whose csynth latency is undef").
mkdir -p "$TMP/rep/dut"
sed -e 's/<TopModelName>odd</<TopModelName>dut</' -e 's/12\.755/9.000/' "$TMP/none/csynth.xml" >"$TMP/rep/dut/csynth.xml"
cp "$TMP/rep/ttsim_contraction_0/sim/report/ttsim_contraction_cosim.rpt" "$TMP/rep/dut/dut_cosim.rpt"
# A copy of a report_power in a sibling folder with no build of its own: the other
# folders' ttsim builds are not its design; rejected, pointing to --power.
mkdir -p "$TMP/rep/stray"
cp "$TMP/rep/ttsim_contraction_0/impl/design_power_routed.rpt" "$TMP/rep/stray/copied_power_routed.rpt"
out="$("$TTSIM" calibrate --reports "$TMP/rep" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c.json")"
rc=$?
has "$out" "rejected  stray/copied_power_routed.rpt: no csynth report of its design" "calibrate output"
has "$out" 'name it with `calibrate --power FILE`' "calibrate output"
has "$out" "skipped   dut/dut_cosim.rpt: co-simulation of dut, whose csynth top ($TMP/rep/dut/csynth.xml) is not a ttsim kernel module" "calibrate output"
[ $rc -eq 0 ] || fail "calibrate exited $rc: $out"
has "$out" "warning: $s1: ttsim_softmax: estimated clock 12.755 ns above the 10.000 ns target" "calibrate output"
has "$out" "note: $s1: ttsim_softmax: estimated clock 12.755 ns above the 10.000 ns target (timing not met); calibration uses the achievable clock 12.755 ns (78.4 MHz)" "calibrate output"
has "$out" "csynth latency undef; co-simulation latency from" "calibrate output"
has "$out" "power (1 report_power file)" "calibrate output"
has "$out" "used      ttsim_contraction_0/impl/design_power_routed.rpt: power fit" "calibrate output"
if [ $foreign -eq 1 ]; then
  has "$out" "rejected  knn/bd_0_wrapper_power_routed.rpt: report_power of another design" "calibrate output"
  has "$out" "skipped   knn/csynth.xml: no ttsim_<op> kernel module (top md_kernel)" "calibrate output"
  has "$out" "not read  knn/md_kernel_csynth.rpt" "calibrate output"
  has "$out" "files under $TMP/rep: 14 used, 6 skipped, 2 rejected, 3 not read" "calibrate output"
fi
python3 - "$TMP/c.json" <<'PY' || fails=$((fails + 1))
import json, sys
p = json.load(open(sys.argv[1]))["provenance"]
assert p["achievable_clock_ns"] == 12.755, p
assert any("achievable clock" in n for n in p["notes"]), p
PY
if [ $foreign -eq 1 ]; then
  # A foreign report_power alone in a sibling folder: not fitted (the sibling ttsim builds
  # are not its design).
  mkdir -p "$TMP/rep2" && cp -r "$TMP/rep/ttsim_"* "$TMP/rep2/"
  mkdir -p "$TMP/rep2/knn_power" && cp "$TMP/rep/knn/bd_0_wrapper_power_routed.rpt" "$TMP/rep2/knn_power/"
  out="$("$TTSIM" calibrate --reports "$TMP/rep2" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c4.json")" \
    || fail "calibrate (foreign power in a sibling folder) exited $?"
  has "$out" "rejected  knn_power/bd_0_wrapper_power_routed.rpt: no csynth report of its design" "calibrate output"
  has "$out" "power (1 report_power file)" "calibrate output"
  # Named explicitly, the foreign power report is fitted.
  out="$("$TTSIM" calibrate --reports "$TMP/rep" --arch "$ARCH" --device "$DEV" --model "$MODEL" \
         --out "$TMP/c2.json" --power "$TMP/rep/knn/bd_0_wrapper_power_routed.rpt")" || fail "calibrate --power exited $?"
  has "$out" "power (2 report_power files)" "calibrate --power output"
  has "$out" "used      knn/bd_0_wrapper_power_routed.rpt: power fit" "calibrate --power output"
  # A report_power of another part named explicitly: exit 2 naming it, nothing written.
  mkdir -p "$TMP/xcu250"
  cp "$TTSIM_SHARED/data/hls_reports/ece5404_pca/"bd_0_wrapper_*.rpt "$TMP/xcu250/" && chmod u+w "$TMP/xcu250/"*
  "$TTSIM" calibrate --reports "$TMP/rep" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c3.json" \
    --power "$TMP/xcu250/bd_0_wrapper_power_routed.rpt" >"$TMP/o" 2>"$TMP/e"
  rc=$?
  [ $rc -eq 2 ] || fail "explicit --power of another part: exit $rc, expected 2"
  grep -qF "xcu250/bd_0_wrapper_power_routed.rpt" "$TMP/e" || fail "explicit --power error: $(cat "$TMP/e")"
  [ -e "$TMP/c3.json" ] && fail "a calibration was written despite the error"
fi

# 5. A report of another design among ttsim's (a synthetic kernel report whose top was
#    renamed): rejected naming its top, its build's report_power with it; --keep fits it.
"$WRITE" "$TMP/rep3" >/dev/null || fail "writing the synthetic reports"
f3="$TMP/rep3/ttsim_contraction_0/syn/report/csynth.xml"
sed -i 's/<TopModelName>ttsim_contraction</<TopModelName>other_design_top</' "$f3"
out="$("$TTSIM" calibrate --reports "$TMP/rep3" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c5.json")" \
  || fail "calibrate (foreign top) exited $?"
has "$out" "rejected  ttsim_contraction_0/syn/report/csynth.xml: report of another design: its top other_design_top is not a ttsim module" "calibrate output"
has "$out" "not fitted (\`--keep $f3\` uses it)" "calibrate output"
has "$out" "rejected  ttsim_contraction_0/impl/design_power_routed.rpt: report_power of another design" "calibrate output"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["provenance"]; assert sys.argv[2] not in p["reports"], p["reports"]' \
  "$TMP/c5.json" "$f3" || fail "the foreign report was fitted"
out="$("$TTSIM" calibrate --reports "$TMP/rep3" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c6.json" \
       --keep "$f3")" || fail "calibrate --keep exited $?"
has "$out" "used      ttsim_contraction_0/syn/report/csynth.xml: kernel samples of ttsim_contraction; kept (--keep) despite: report of another design" "calibrate --keep output"
"$TTSIM" calibrate --reports "$TMP/rep3" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c7.json" \
  --keep "$TMP/rep3/nothing_csynth.xml" >"$TMP/o" 2>"$TMP/e"
[ $? -eq 2 ] || fail "--keep of no report: expected exit 2"
grep -qF -- "--keep $TMP/rep3/nothing_csynth.xml: not one of the csynth reports read" "$TMP/e" || fail "--keep message: $(cat "$TMP/e")"
[ -e "$TMP/c7.json" ] && fail "a calibration was written despite the error"

# 6. A "?" latency in one kernel report: that kernel sample skipped naming the field, the rest fitted (exit 0).
"$WRITE" "$TMP/rep4" >/dev/null || fail "writing the synthetic reports"
f4="$TMP/rep4/ttsim_softmax_5/syn/report/csynth.xml"
lat=$(grep -o '<Worst-caseLatency>[0-9]*<' "$f4" | tail -1 | tr -dc 0-9)
sed -i "s/<Worst-caseLatency>$lat</<Worst-caseLatency>?</g" "$f4"
out="$("$TTSIM" calibrate --reports "$TMP/rep4" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c8.json")" \
  || fail "calibrate with a ? latency exited $?"
has "$out" "skipped   ttsim_softmax_5/syn/report/csynth.xml: skipped ttsim_softmax: latency or a loop's trip count / latency is unknown (ttsim_softmax: PerformanceEstimates/SummaryOfOverallLatency/Worst-caseLatency = ?)" "calibrate output"
has "$out" "wrote $TMP/c8.json" "calibrate output"

# 7. Real sets (TTSIM_SHARED): a "?" latency in one file of a folder leaves the folder read;
#    per-module files without csynth.xml are modules of their top.
if [ -n "${TTSIM_SHARED:-}" ] && [ -d "$TTSIM_SHARED/data/hls_reports/gnn_acc_pna_molhiv" ]; then
  cp -r "$TTSIM_SHARED/data/hls_reports/gnn_acc_pna_molhiv" "$TMP/gnn" && chmod -R u+w "$TMP/gnn"
  sed -i '0,/<Worst-caseLatency>[0-9]*</s//<Worst-caseLatency>?</' "$TMP/gnn/CONV_csynth.xml"
  out="$("$TTSIM" compare-rules "$TMP/gnn")" || fail "compare-rules with a ? latency exited $?"
  has "$out" "rules hls: 36 modules evaluated" "compare-rules output"
  out="$("$TTSIM" inspect-report "$TMP/gnn")" || fail "inspect-report with a ? latency exited $?"
  has "$out" "CONV: PerformanceEstimates/SummaryOfOverallLatency/Worst-caseLatency = ?" "inspect-report output"
  has "$out" "5 csynth files, 1 design:" "inspect-report output"
  cp -r "$TTSIM_SHARED/data/hls_reports/systolic_multiplier" "$TMP/sys" && chmod -R u+w "$TMP/sys"
  rm "$TMP/sys/csynth.xml"
  out="$("$TTSIM" inspect-report "$TMP/sys")" || fail "inspect-report of per-module files exited $?"
  has "$out" "multiplier_Pipeline_systolic1_csynth.xml  module multiplier_Pipeline_systolic1 of multiplier" "inspect-report output"
  has "$out" "3 csynth files, 1 design:" "inspect-report output"
  [ "$(grep -c '^csynth ' <<<"$out")" -eq 1 ] || fail "per-module files printed as tops: $out"
  # Per-module files printing no hierarchy, without the top's csynth.xml: not placed under a
  # top, their calls unknown: compare-rules skips them (never "straight-line code", never
  # a module scored without its calls).
  cp -r "$TTSIM_SHARED/data/hls_reports/gnn_acc_pna_molhiv" "$TMP/gnn2" && chmod -R u+w "$TMP/gnn2"
  rm "$TMP/gnn2/csynth.xml"
  out="$("$TTSIM" compare-rules "$TMP/gnn2")" || fail "compare-rules of per-module files exited $?"
  has "$out" "rules hls: 0 modules evaluated, MAPE n/a" "compare-rules output"
  has "$out" "skipped    4: calls unknown: per-module file without its design's hierarchy" "compare-rules output"
  grep -q "straight-line\|MISS" <<<"$out" && fail "per-module files scored or called straight-line: $out"
  out="$("$TTSIM" inspect-report "$TMP/gnn2")" || fail "inspect-report of per-module files exited $?"
  [ "$(grep -c "^  not placed under a top: per-module file without its design's hierarchy" <<<"$out")" -eq 4 ] \
    || fail "inspect-report does not say the 4 files could not be placed: $out"
  has "$out" "4 csynth files, 0 designs, 4 files not placed under a top:" "inspect-report output"
  grep -qF "4 csynth files, 4 designs" <<<"$out" && fail "inspect-report counts files not placed under a top as designs: $out"
else
  echo "TTSIM_SHARED not set: the real-set part of this test is skipped"
fi

# 8. A "?" in a needed figure of a report_utilization: that report rejected naming its line,
#    row and column, the report_power beside it with it; the kernels are fitted (exit 0).
"$WRITE" "$TMP/rep5" >/dev/null || fail "writing the synthetic reports"
u5="$TMP/rep5/ttsim_contraction_0/impl/design_utilization_placed.rpt"
sed -i 's/^| DSPs           | *[0-9]* |/| DSPs           |    ? |/' "$u5"
grep -q '^| DSPs           |    ? |' "$u5" || fail "no DSPs row edited in $u5"
line=$(grep -n '^| DSPs           |    ? |' "$u5" | cut -d: -f1)
out="$("$TTSIM" calibrate --reports "$TMP/rep5" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c9.json")" \
  || fail "calibrate with a ? in a report_utilization exited $?"
has "$out" "rejected  ttsim_contraction_0/impl/design_utilization_placed.rpt: $u5: line $line: row \"DSPs\": expected a number in column Used, found \"?\" (unknown)" "calibrate output"
has "$out" "rejected  ttsim_contraction_0/impl/design_power_routed.rpt: the report_utilization beside it is rejected" "calibrate output"
has "$out" "wrote $TMP/c9.json" "calibrate output"

# 9. Reports of another part and clock beside ttsim's: rejected in the file list naming both
#    values (not exit 2 after listing them as used); --keep still fits one.
"$WRITE" "$TMP/rep6/main" >/dev/null || fail "writing the synthetic reports"
"$WRITE" "$TMP/rep6/other" xcvu9p-flga2104-2L-e 4.0 >/dev/null || fail "writing the other part's reports"
out="$("$TTSIM" calibrate --reports "$TMP/rep6" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c10.json" 2>&1)" \
  || fail "calibrate with reports of another part exited $?: $out"
has "$out" "rejected  other/ttsim_contraction_0/syn/report/csynth.xml: report part xcvu9p-flga2104-2L-e differs from device u50 (" "calibrate output"
has "$out" "part xcu50-fsvh2104-2-e; report target clock 4.000 ns differs from arch u50_paper (" "calibrate output"
has "$out" "100 MHz) clock 10.000 ns" "calibrate output"
has "$out" "rejected  other/ttsim_contraction_0/impl/design_power_routed.rpt: device xcvu9p-flga2104-2L-e differs from the --device part xcu50-fsvh2104-2-e" "calibrate output"
has "$out" "wrote $TMP/c10.json" "calibrate output"
grep -q "^  used      other/.*csynth.xml" <<<"$out" && fail "a report of another part listed as used: $out"
k6="$TMP/rep6/other/ttsim_softmax_5/syn/report/csynth.xml"
out="$("$TTSIM" compare --reports "$TMP/rep6" --arch "$ARCH" --device "$DEV" --keep "$k6" 2>&1)" \
  || fail "compare --keep of another part's report exited $?: $out"
has "$out" "used      other/ttsim_softmax_5/syn/report/csynth.xml: kernel samples of ttsim_softmax; kept (--keep) despite: report part xcvu9p-flga2104-2L-e" "compare --keep output"

# 10. A rejected build's report_power is rejected with its csynth report, naming why: a loop
#     that contradicts itself, or another target clock; --keep of the csynth fits both.
"$WRITE" "$TMP/rep7" >/dev/null || fail "writing the synthetic reports"
f7="$TMP/rep7/ttsim_contraction_0/syn/report/csynth.xml"
l7=$(grep -o '<Latency>[0-9]*<' "$f7" | head -1 | tr -dc 0-9)
sed -i "0,/<Latency>$l7</s//<Latency>5</" "$f7"
out="$("$TTSIM" calibrate --reports "$TMP/rep7" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c11.json" 2>&1)" \
  || fail "calibrate with a self-contradicting report exited $?: $out"
has "$out" "rejected  ttsim_contraction_0/syn/report/csynth.xml: " "calibrate output"
has "$out" "contradicts itself" "calibrate output"
has "$out" "rejected  ttsim_contraction_0/impl/design_power_routed.rpt: the csynth.xml of its build is rejected (" "calibrate output"
grep -q "^  used      ttsim_contraction_0/impl/design_power_routed.rpt" <<<"$out" && fail "a rejected build's report_power is fitted: $out"
out="$("$TTSIM" calibrate --reports "$TMP/rep7" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c12.json" \
       --keep "$f7" 2>&1)" || fail "calibrate --keep of a self-contradicting report exited $?: $out"
has "$out" "used      ttsim_contraction_0/impl/design_power_routed.rpt: power fit" "calibrate --keep output"
"$WRITE" "$TMP/rep8" >/dev/null || fail "writing the synthetic reports"
sed -i 's/<TargetClockPeriod>10.00</<TargetClockPeriod>4.00</' "$TMP/rep8/ttsim_contraction_0/syn/report/csynth.xml"
out="$("$TTSIM" calibrate --reports "$TMP/rep8" --arch "$ARCH" --device "$DEV" --model "$MODEL" --out "$TMP/c13.json" 2>&1)" \
  || fail "calibrate with a report of another clock exited $?: $out"
has "$out" "rejected  ttsim_contraction_0/impl/design_power_routed.rpt: the csynth.xml of its build is rejected (report target clock 4.000 ns differs" "calibrate output"

# 11. A loop pipeline style the fit does not model (frp): that kernel skipped naming the loop
#     and its style (calibrate and compare), the rest fitted.
"$WRITE" "$TMP/rep9" >/dev/null || fail "writing the synthetic reports"
f9="$TMP/rep9/ttsim_softmax_4/syn/report/csynth.xml"
sed -i '0,/<PipelineType>yes</s//<PipelineType>frp</' "$f9"
grep -q '<PipelineType>frp<' "$f9" || fail "no loop PipelineType edited in $f9"
for cmd in calibrate compare; do
  extra=(--model "$MODEL" --out "$TMP/c14.json")
  [ $cmd = compare ] && extra=()
  out="$("$TTSIM" $cmd --reports "$TMP/rep9" --arch "$ARCH" --device "$DEV" "${extra[@]}" 2>&1)" \
    || fail "$cmd with an frp loop exited $?: $out"
  has "$out" "skipped   ttsim_softmax_4/syn/report/csynth.xml: skipped ttsim_softmax: loop softmax_max (in ttsim_softmax_Pipeline_softmax_max): pipeline style frp not modelled" "$cmd output"
done

# 12. --keep help names every rejection it overrides, another part or target clock too.
for cmd in calibrate compare; do
  out="$("$TTSIM" $cmd --help 2>&1 | tr -s ' \n' ' ')"
  has "$out" "another part than --device or another target clock than --arch" "$cmd --help"
done

[ $fails -eq 0 ] && echo "PASS" || { echo "$fails failure(s)"; exit 1; }
