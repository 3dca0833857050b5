#!/usr/bin/env bash
# Ctrl-C while gnuplot draws the plots of `explore`: the run exits 130 (not 0 with a
# plot missing) and the plot is noted as interrupted, not as "not installed". A stand-in
# gnuplot on PATH sends SIGINT to ttsim (its parent) and is then killed by a signal.
set -uo pipefail

R="${TEST_SRCDIR}/ttsim"
TTSIM="$R/cli/ttsim"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$TMP/bin"
cat >"$TMP/bin/gnuplot" <<'SH'
#!/bin/sh
kill -INT "$PPID"
kill -TERM "$$"
SH
chmod +x "$TMP/bin/gnuplot"

cd "$R" || exit 1
PATH="$TMP/bin:$PATH" "$TTSIM" explore configs/sweeps/smoke.json --out "$TMP/out" --threads 1 --no-progress \
  >"$TMP/o" 2>"$TMP/e"
rc=$?
[ $rc -eq 130 ] || fail "explore interrupted in gnuplot exited $rc, expected 130: $(cat "$TMP/e")"
grep -qF "interrupted while writing the outputs" "$TMP/e" || fail "no interruption message: $(cat "$TMP/e")"
grep -qF "gnuplot was interrupted" "$TMP/out/report.html" || fail "the missing plot is not noted as interrupted"
grep -qF "gnuplot failed or is not installed" "$TMP/out/report.html" && fail "an interrupted gnuplot is reported as not installed"

[ $fails -eq 0 ] && echo "PASS" || { echo "$fails failure(s)"; exit 1; }
