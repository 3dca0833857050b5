#!/usr/bin/env bash
# `ttsim memplan`: the arrays of a design that fits (exit 0, JSON written); a design over the
# device printed and written, then refused with exit 2 naming the resources; a bad
# --planner value or a folder as --json refused with exit 2 before anything is printed.
set -uo pipefail
R="${TEST_SRCDIR}/ttsim"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
T="$R/cli/ttsim"
args=(--arch "$R/configs/arch/u50_paper.json" --device "$R/configs/devices/u50.json")
fail() { echo "FAIL: $*"; exit 1; }

"$T" memplan --model "$R/configs/models/atis_2enc.json" "${args[@]}" --json "$TMP/fits.json" >"$TMP/out" 2>"$TMP/err" ||
  fail "a fitting design exited $?: $(cat "$TMP/err")"
grep -q "fits: yes" "$TMP/out" || fail "no 'fits: yes'"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['fits'] is True, d['fits']" "$TMP/fits.json" || fail "fits.json"

"$T" memplan --model "$R/configs/models/atis_12enc_r64.json" "${args[@]}" --json "$TMP/over.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "a design over the device exited $rc, expected 2"
grep -q "fits: NO" "$TMP/out" || fail "the table of a design over the device was not printed"
grep -q "does not fit u50" "$TMP/err" && grep -q "BRAM36 7,361 needed, 1,276 usable (1,344 on the device at /resources/bram36, 5 % headroom)" "$TMP/err" ||
  fail "error does not name the resources: $(cat "$TMP/err")"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['fits'] is False and d['over_device'], d" "$TMP/over.json" ||
  fail "over.json"

"$T" memplan --model "$R/configs/models/atis_2enc.json" "${args[@]}" --planner bogus >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "--planner bogus exited $rc"
[ ! -s "$TMP/out" ] || fail "--planner bogus printed before refusing: $(head -2 "$TMP/out")"
grep -q -- '--planner: expected one of naive, grouped, ideal' "$TMP/err" || fail "message: $(cat "$TMP/err")"
grep -q -- '/memory/strategy' "$TMP/err" || fail "message names no arch key: $(cat "$TMP/err")"
# --uram-min-depth sets the planner analysis's threshold: without --planner it would do nothing.
"$T" memplan --model "$R/configs/models/atis_2enc.json" "${args[@]}" --uram-min-depth 100 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "--uram-min-depth without --planner exited $rc"
grep -q -- '--uram-min-depth: .*expected --planner' "$TMP/err" || fail "message: $(cat "$TMP/err")"

mkdir -p "$TMP/folder"
"$T" memplan --model "$R/configs/models/atis_2enc.json" "${args[@]}" --json "$TMP/folder" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "--json FOLDER exited $rc"
[ ! -s "$TMP/out" ] || fail "--json FOLDER printed before refusing"
grep -q -- '--json' "$TMP/err" || fail "message: $(cat "$TMP/err")"
echo PASS
