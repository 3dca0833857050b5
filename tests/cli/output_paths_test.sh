#!/usr/bin/env bash
# `ttsim simulate`, `model`, `baseline`, `calibrate`, `dataset-lengths`, `inspect-report`,
# `compare-rules` and `accuracy-grid` refuse outputs that clash with each other or with an
# input (or lie inside an input folder), and unwritable output folders, and every command refuses arguments that are not
# UTF-8, with exit 2 before any work and without touching existing files.
set -uo pipefail

TTSIM="${TEST_SRCDIR}/ttsim/cli/ttsim"
CONFIGS="${TEST_SRCDIR}/ttsim/configs"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Copies: a wrong refusal must never overwrite a shipped config.
cp "$CONFIGS/models/atis_2enc.json" "$TMP/model.json"
cp "$CONFIGS/arch/u50_paper.json" "$TMP/arch.json"
cp "$CONFIGS/devices/u50.json" "$TMP/device.json"
for f in model arch device; do cp "$TMP/$f.json" "$TMP/$f.orig"; done
echo "blocker" > "$TMP/blocker"
echo "old" > "$TMP/k.json"

expect_exit2() {  # expect_exit2 WHAT PATTERN ARGS...
  local what="$1" pattern="$2"; shift 2
  "$TTSIM" "$@" > "$TMP/out" 2> "$TMP/err"
  local rc=$?
  [ $rc -eq 2 ] || fail "$what: exit $rc, expected 2"
  grep -q -- "$pattern" "$TMP/err" || { fail "$what: stderr lacks '$pattern'"; cat "$TMP/err"; }
}
SIM=(simulate --model "$TMP/model.json" --arch "$TMP/arch.json" --device "$TMP/device.json")

expect_exit2 "simulate --json = --trace" "name the same file" "${SIM[@]}" --json "$TMP/k.json" --trace "$TMP/./k.json"
expect_exit2 "simulate --json = --model" "names the input --model" "${SIM[@]}" --json "$TMP/model.json"
expect_exit2 "simulate --trace = --device" "names the input --device" "${SIM[@]}" --trace "$TMP/device.json"
expect_exit2 "simulate unwritable --trace" "blocker" "${SIM[@]}" --json "$TMP/k.json" --trace "$TMP/blocker/t.json"
[ "$(cat "$TMP/k.json")" = "old" ] || fail "--json output replaced although --trace could not be written"
expect_exit2 "model --json CONFIG" "names the input CONFIG" model "$TMP/model.json" --json "$TMP/model.json"
expect_exit2 "model unwritable --json" "blocker" model "$TMP/model.json" --json "$TMP/blocker/r.json"
# An empty path would read as the option not given (nothing written, exit 0): refused.
expect_exit2 "simulate --json ''" "\-\-json: expected a value, found an empty text" "${SIM[@]}" --json ""
expect_exit2 "simulate --trace ''" "\-\-trace: expected a value" "${SIM[@]}" --trace ""
expect_exit2 "memplan --json ''" "\-\-json: expected a value" memplan --model "$TMP/model.json" --arch "$TMP/arch.json" --device "$TMP/device.json" --json ""
expect_exit2 "explore --out ''" "\-\-out: expected a value" explore "$CONFIGS/sweeps/smoke.json" --out ""
mkfifo "$TMP/pipe"
expect_exit2 "simulate --json a FIFO" "expected a regular file" "${SIM[@]}" --json "$TMP/pipe"
[ -p "$TMP/pipe" ] || fail "the FIFO named by --json was replaced"
ln -s "$TMP/k.json" "$TMP/link.json"
expect_exit2 "simulate --json a symbolic link" "found a symbolic link" "${SIM[@]}" --json "$TMP/link.json"
[ -L "$TMP/link.json" ] || fail "the symbolic link named by --json was replaced"
mkdir -p "$TMP/reports"
expect_exit2 "calibrate --out inside --reports" "outside the --reports folder" calibrate --reports "$TMP/reports" \
  --arch "$TMP/arch.json" --device "$TMP/device.json" --model "$TMP/model.json" --out "$TMP/reports/c.json"
expect_exit2 "calibrate --out = --arch" "names the input --arch" calibrate --reports "$TMP/reports" \
  --arch "$TMP/arch.json" --device "$TMP/device.json" --model "$TMP/model.json" --out "$TMP/arch.json"
expect_exit2 "baseline --json = --model" "names the input --model" baseline --model "$TMP/model.json" \
  --arch "$TMP/arch.json" --device "$TMP/device.json" --gpu "$CONFIGS/devices/rtx3090.json" \
  --card "$CONFIGS/devices/u50_card.json" --dataset-lengths "$CONFIGS/datasets/atis_lengths.json" --json "$TMP/model.json"
mkdir -p "$TMP/data" "$TMP/rep"
echo "x" > "$TMP/data/intent_label.txt"
echo "<x/>" > "$TMP/rep/a_csynth.xml"
cp "$TMP/data/intent_label.txt" "$TMP/label.orig"
expect_exit2 "dataset-lengths --out inside --data" "outside the --data folder" dataset-lengths --data "$TMP/data" \
  --out "$TMP/data/intent_label.txt"
expect_exit2 "inspect-report --json = PATH" "names the input PATH" inspect-report "$TMP/rep/a_csynth.xml" \
  --json "$TMP/rep/a_csynth.xml"
expect_exit2 "compare-rules --json inside DIR" "outside the DIR folder" compare-rules "$TMP/rep" --json "$TMP/rep/r.json"
echo '{}' > "$TMP/grid.json"
cp "$TMP/grid.json" "$TMP/grid.orig"
expect_exit2 "accuracy-grid --out = --grid" "names the input --grid" accuracy-grid --grid "$TMP/grid.json" \
  --data "$TMP/data" --runs "$TMP/runs" --out "$TMP/grid.json"
cmp -s "$TMP/data/intent_label.txt" "$TMP/label.orig" || fail "dataset file was modified"
cmp -s "$TMP/grid.json" "$TMP/grid.orig" || fail "grid file was modified"
[ "$(cat "$TMP/rep/a_csynth.xml")" = "<x/>" ] || fail "report file was modified"
# Nothing to read, or a flag value that means nothing: refused, not an empty success.
mkdir -p "$TMP/norep"
expect_exit2 "inspect-report of a folder of no report" "no report of a known kind" inspect-report "$TMP/norep"
expect_exit2 "compare-rules --threshold -5" "expected a percentage >= 0" compare-rules "$TMP/rep" --threshold -5
expect_exit2 "accuracy-grid --progress-seconds 0" "expected seconds > 0" accuracy-grid --grid "$TMP/grid.json" \
  --data "$TMP/data" --runs "$TMP/runs" --out "$TMP/table.json" --progress-seconds 0
# A path that is not UTF-8 cannot be recorded in the JSON outputs: refused before any work.
bad="$TMP/$(printf 'sw_\xff')"
cp "$CONFIGS/sweeps/smoke.json" "$bad.json"
expect_exit2 "explore a non-UTF-8 sweep path" "expected UTF-8 text" explore "$bad.json" --out "$TMP/run"
[ -e "$TMP/run" ] && fail "explore of a non-UTF-8 sweep path created its --out folder"
expect_exit2 "simulate --json a non-UTF-8 path" "expected UTF-8 text" "${SIM[@]}" --json "$bad.out.json"
rm -f "$bad.json"
for f in model arch device; do
  cmp -s "$TMP/$f.json" "$TMP/$f.orig" || fail "input $f.json was modified"
done
ls "$TMP" | grep -q "tmp\." && fail "temporary files left behind: $(ls "$TMP")"

if [ $fails -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
