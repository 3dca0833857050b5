#!/usr/bin/env bash
# compare-rules and inspect-report on every real report set (shared/data/hls_reports,
# through TTSIM_SHARED): each set and the whole folder exit 0, with the modules read, the
# unknown values counted and a per-set MAPE (n/a where nothing is evaluable); no set is
# rejected whole, no real report has an identity problem or contradicts itself. Then the
# whole folder copied with every "undef" written as Vitis HLS 2024.x writes an unbounded
# value (2^60) and as "?": compare-rules prints the same figures. Skipped without
# TTSIM_SHARED.
set -uo pipefail

R="${TEST_SRCDIR}/ttsim"
TTSIM="$R/cli/ttsim"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
if [ -z "${TTSIM_SHARED:-}" ] || [ ! -d "$TTSIM_SHARED/data/hls_reports" ]; then
  echo "TTSIM_SHARED not set: the real report sets in shared/data/hls_reports are unavailable; skipped"
  exit 0
fi
DATA="$TTSIM_SHARED/data/hls_reports"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

sets=0
for d in "$DATA"/*/; do
  set=$(basename "$d")
  ls "$d"*csynth.xml >/dev/null 2>&1 || continue
  sets=$((sets + 1))
  out="$("$TTSIM" inspect-report "$d" 2>&1)" || fail "inspect-report $set exited $?: $out"
  line=$(grep -E "^[0-9]+ csynth files?, [0-9]+ designs?(, [0-9]+ files? not placed under a top)?: [0-9]+ modules? read, [0-9]+ unknown values?, 0 identity problems, 0 contradictions$" <<<"$out")
  [ -n "$line" ] || fail "inspect-report $set: no totals line with 0 identity problems and 0 contradictions"
  out="$("$TTSIM" compare-rules "$d" --json "$TMP/$set.json" 2>&1)" || fail "compare-rules $set exited $?: $out"
  python3 - "$TMP/$set.json" "$set" <<'PY' || fail "compare-rules $set JSON"
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sets"]
assert len(s) == 1 and s[0]["modules_read"] >= 1 and s[0]["contradictions"] == 0, s
assert (s[0]["mape_pct"] is None) == (s[0]["modules_evaluated"] == 0), s
print(f'{sys.argv[2]}: {s[0]["modules_read"]} modules read, {s[0]["unknowns"]} unknown values, '
      f'{s[0]["modules_evaluated"]} evaluated, MAPE {"n/a" if s[0]["mape_pct"] is None else "%.2f %%" % s[0]["mape_pct"]}')
PY
done
[ "$sets" -ge 16 ] || fail "only $sets sets found"

out="$("$TTSIM" compare-rules "$DATA" --json "$TMP/all.json")" || fail "compare-rules on every set exited $?"
n=$(sed -n '/^per set:/,$p' <<<"$out" | grep -cE '^  [A-Za-z0-9_.]+ +[0-9]+ +[0-9]+ +[0-9]+ +0 +[0-9]+  ')
[ "$n" -eq "$sets" ] || fail "per set: $n lines for $sets sets"

# The same folder with undef written as 2^60 and as "?": the same figures.
for form in 1152921504606846976 '?'; do
  rm -rf "$TMP/edited" && cp -r "$DATA" "$TMP/edited" && chmod -R u+w "$TMP/edited"
  find "$TMP/edited" -name '*csynth.xml' -exec sed -i "s/>undef</>$form</g" {} +
  grep -rq ">$form<" "$TMP/edited" || fail "no value written as $form"
  out2="$("$TTSIM" compare-rules "$TMP/edited" --json "$TMP/edited.json")" || fail "compare-rules ($form) exited $?"
  python3 - "$TMP/all.json" "$TMP/edited.json" <<'PY' || fail "compare-rules with undef written as $form differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["mape_pct"] == b["mape_pct"] and a["modules_evaluated"] == b["modules_evaluated"], (a["mape_pct"], b["mape_pct"])
assert [s["unknowns"] for s in a["sets"]] == [s["unknowns"] for s in b["sets"]]
assert [s["modules_read"] for s in a["sets"]] == [s["modules_read"] for s in b["sets"]]
PY
  "$TTSIM" inspect-report "$TMP/edited" >/dev/null || fail "inspect-report ($form) exited $?"
done

# A "?" in a Vivado report_utilization: compare-rules (which does not use it) reads the
# folder; inspect-report rejects that report naming file, line, row and column (a needed
# row) or lists the value as unknown (an optional row).
knn="$DATA/ahls_knn"
for row in "CLB LUTs" "URAM"; do
  rm -rf "$TMP/viv" && cp -r "$knn" "$TMP/viv" && chmod -R u+w "$TMP/viv"
  U="$TMP/viv/bd_0_wrapper_utilization_placed.rpt"
  line=$(grep -n "^| $row  *| *[0-9][0-9]* |" "$U" | head -1 | cut -d: -f1)
  [ -n "$line" ] || { fail "no row $row in $U"; continue; }
  sed -i "${line}s/^\(| $row  *| *\)[0-9][0-9]* |/\1? |/" "$U"
  out="$("$TTSIM" compare-rules "$TMP/viv" 2>&1)" || fail "compare-rules with ? in $row exited $?: $out"
  out="$("$TTSIM" inspect-report "$TMP/viv" 2>&1)" || fail "inspect-report with ? in $row exited $?: $out"
  if [ "$row" = "URAM" ]; then
    grep -qF "unknown (read as absent): line $line: row \"URAM\" column Used = ?" <<<"$out" || fail "URAM ? not listed: $out"
  else
    grep -qF "rejected     $U" <<<"$out" || fail "utilization not rejected: $out"
    grep -qF "$U: line $line: row \"CLB LUTs\": expected a number in column Used, found \"?\" (unknown)" <<<"$out" \
      || fail "rejection does not name line, row and column: $out"
    grep -q "^power " <<<"$out" || fail "the power report beside it was not read: $out"
  fi
done

# The rejected report named directly: the reader's refusal is the input's error, exit 2 with
# the reader's message (a folder lists it as rejected and reads on, above).
rm -rf "$TMP/viv" && cp -r "$knn" "$TMP/viv" && chmod -R u+w "$TMP/viv"
U="$TMP/viv/bd_0_wrapper_utilization_placed.rpt"
line=$(grep -n "^| CLB LUTs  *| *[0-9][0-9]* |" "$U" | head -1 | cut -d: -f1)
sed -i "${line}s/^\(| CLB LUTs  *| *\)[0-9][0-9]* |/\1? |/" "$U"
out="$("$TTSIM" inspect-report "$U" 2>&1)"
rc=$?
[ $rc -eq 2 ] || fail "inspect-report of a rejected utilization report exited $rc, not 2: $out"
grep -qF "$U: line $line: row \"CLB LUTs\": expected a number in column Used" <<<"$out" \
  || fail "the direct rejection does not name line, row and column: $out"
# A folder holding only that report lists it as rejected, as any folder does (exit 0).
mkdir -p "$TMP/only" && cp "$U" "$TMP/only/"
out="$("$TTSIM" inspect-report "$TMP/only" 2>&1)" || fail "inspect-report of a folder with one rejected report exited $?: $out"
grep -qF "rejected     $TMP/only/" <<<"$out" || fail "the folder's rejected report is not listed: $out"

[ $fails -eq 0 ] && echo "PASS" || { echo "$fails failure(s)"; exit 1; }
