#!/usr/bin/env bash
# `ttsim accuracy-grid` killed with SIGKILL in the middle of a run (after the run's first
# epoch is checkpointed) and started again with the same command gives the same table as
# an uninterrupted run: finished runs are kept, the killed run resumes from its checkpoint.
# Tiny grid on the real ATIS data with --limit; skipped without TTSIM_SHARED.
set -uo pipefail

R="${TEST_SRCDIR}/ttsim"
TTSIM="$R/cli/ttsim"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

DATA="${TTSIM_SHARED:-}/data/atis"
if [ -z "${TTSIM_SHARED:-}" ] || [ ! -d "$DATA" ]; then
  echo "SKIP: TTSIM_SHARED/data/atis not found (set TTSIM_SHARED to the shared folder)"
  exit 0
fi

cat >"$TMP/grid.json" <<'JSON'
{"models": ["configs/models/atis_2enc.json"], "tt_ranks": [4], "seeds": [1, 2],
 "engine": "reference", "lr": 0.004, "max_epochs": 3, "patience": 3}
JSON
cd "$R" || exit 1
grid() {  # grid <runs folder> <table>
  "$TTSIM" accuracy-grid --grid "$TMP/grid.json" --data "$DATA" --limit 400 --eval-limit 40 --jobs 1 \
    --runs "$1" --out "$2"
}

grid "$TMP/whole" "$TMP/whole.json" >"$TMP/whole.log" 2>&1 || fail "uninterrupted run failed: $(tail -5 "$TMP/whole.log")"

grid "$TMP/killed" "$TMP/killed.json" >"$TMP/killed.log" 2>&1 &
pid=$!
ckpt=""
for _ in $(seq 1 1200); do  # up to 60 s
  ckpt=$(ls "$TMP/killed/runs/"*.ckpt 2>/dev/null | head -1)
  [ -n "$ckpt" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
if [ -z "$ckpt" ]; then
  fail "no checkpoint appeared before the grid ended: $(tail -5 "$TMP/killed.log")"
else
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null
  grid "$TMP/killed" "$TMP/killed.json" >"$TMP/resumed.log" 2>&1 || fail "resume failed: $(tail -5 "$TMP/resumed.log")"
  grep -q "resumed from its checkpoint after epoch" "$TMP/resumed.log" ||
    fail "the killed run did not resume from its checkpoint: $(head -3 "$TMP/resumed.log")"
  # Same table but for wall time, throughput and the command line (its paths).
  strip() { grep -vE '"(seconds|samples_per_second|command|git_commit)"' "$1"; }
  diff <(strip "$TMP/whole.json") <(strip "$TMP/killed.json") >"$TMP/diff" ||
    fail "the resumed table differs from the uninterrupted one: $(head -20 "$TMP/diff")"
fi

[ $fails -eq 0 ] && echo "PASS" || { echo "$fails failure(s)"; exit 1; }
