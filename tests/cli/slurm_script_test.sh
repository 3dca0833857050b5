#!/usr/bin/env bash
# scripts/slurm_explore.sbatch with a stand-in `sbatch` that runs each submitted job at once
# (every task of an --array, with the SLURM_* variables a job sees; a job with an afterok
# dependency only when that job succeeded): the script submits the shards as a job array
# and the merge as a dependent job, and the merged folder equals one unsharded run byte for
# byte. Also: bad arguments are exit 2, an existing OUT is refused.
set -uo pipefail

R="${TEST_SRCDIR}/ttsim"
TTSIM="$R/cli/ttsim"
SCRIPT="$R/scripts/slurm_explore.sbatch"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mkdir -p "$TMP/bin"
cat >"$TMP/bin/sbatch" <<'SH'
#!/usr/bin/env bash
# Stand-in sbatch: runs the job now. Records each call in $SBATCH_LOG.
set -uo pipefail
echo "sbatch $*" >>"$SBATCH_LOG"
array="" dep="" chdir="$PWD" exports=()
while [ $# -gt 0 ]; do
  case "$1" in
    --array=*) array="${1#--array=}" ;;
    --dependency=*) dep="${1#--dependency=}" ;;
    --chdir=*) chdir="${1#--chdir=}" ;;
    --export=*) IFS=, read -r -a exports <<<"${1#--export=}" ;;
    --*) ;;
    *) break ;;
  esac
  shift
done
script="$1"; shift
grep -q '^#SBATCH --cpus-per-task=' "$script" || { echo "no #SBATCH --cpus-per-task in $script" >&2; exit 1; }
# sbatch reads #SBATCH lines only before the first command.
awk '/^#SBATCH/ { if (cmd) { print "#SBATCH after a command: " $0; bad = 1 } next }
     /^[^#]/ && NF { cmd = 1 } END { exit bad }' "$script" >&2 || exit 1
id=$(( $(wc -l <"$SBATCH_LOG") + 100 ))
if [ -n "$dep" ]; then
  want="${dep#afterok:}"
  [ -f "$SBATCH_STATE/$want.ok" ] || { echo "dependency $dep not met" >&2; echo "$id"; exit 0; }
fi
env_args=()
for e in "${exports[@]}"; do [ "$e" = ALL ] || env_args+=("$e"); done
ok=1
if [ -n "$array" ]; then
  for i in $(seq "${array%-*}" "${array#*-}"); do
    (cd "$chdir" && env "${env_args[@]}" SLURM_JOB_ID="$id" SLURM_ARRAY_JOB_ID="$id" SLURM_ARRAY_TASK_ID="$i" \
      SLURM_CPUS_PER_TASK=1 bash "$script" "$@" >>"$SBATCH_STATE/$id.out" 2>&1) || ok=0
  done
else
  (cd "$chdir" && env "${env_args[@]}" SLURM_JOB_ID="$id" SLURM_CPUS_PER_TASK=1 bash "$script" "$@" \
    >>"$SBATCH_STATE/$id.out" 2>&1) || ok=0
fi
[ $ok -eq 1 ] && touch "$SBATCH_STATE/$id.ok"
echo "$id"
SH
chmod +x "$TMP/bin/sbatch"
export SBATCH_LOG="$TMP/sbatch.log" SBATCH_STATE="$TMP/jobs" PATH="$TMP/bin:$PATH" TTSIM_BIN="$TTSIM"
mkdir -p "$SBATCH_STATE"
: >"$SBATCH_LOG"

cd "$R" || exit 1
SWEEP=configs/sweeps/smoke.json
# Both runs write the folder "$TMP/run" (file contents name it: summary.md, hls_build/).
"$TTSIM" explore "$SWEEP" --out "$TMP/run" --threads 1 --no-progress >"$TMP/whole.log" 2>&1 ||
  fail "unsharded explore failed: $(cat "$TMP/whole.log")"
mv "$TMP/run" "$TMP/whole"

bash "$SCRIPT" "$SWEEP" "$TMP/run" 3 >"$TMP/submit.out" 2>&1 || fail "submission failed: $(cat "$TMP/submit.out")"
grep -q -- "--array=1-3" "$SBATCH_LOG" || fail "no job array of 3 shards submitted: $(cat "$SBATCH_LOG")"
grep -q -- "--dependency=afterok:" "$SBATCH_LOG" || fail "no merge job after the shards: $(cat "$SBATCH_LOG")"
grep -q "submitted explore shards as array job" "$TMP/submit.out" || fail "no summary line: $(cat "$TMP/submit.out")"
for i in 1 2 3; do [ -f "$TMP/run.shards/s$i/state.json" ] || fail "shard $i wrote no state"; done
if [ -d "$TMP/run" ]; then
  for f in results.csv results.jsonl results.json pareto.csv chosen.json summary.md state.json evaluations.jsonl report.html; do
    cmp -s "$TMP/whole/$f" "$TMP/run/$f" || fail "$f of the merge differs from the unsharded run's"
  done
  diff -r "$TMP/whole/hls_build" "$TMP/run/hls_build" >/dev/null || fail "hls_build/ differs"
else
  fail "no merged folder: $(cat "$SBATCH_STATE"/*.out)"
fi

# A folder that exists is refused before anything is submitted; bad arguments are exit 2.
: >"$SBATCH_LOG"
bash "$SCRIPT" "$SWEEP" "$TMP/run" 3 >"$TMP/again.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "an existing OUT gave exit $rc, expected 2: $(cat "$TMP/again.out")"
[ -s "$SBATCH_LOG" ] && fail "submitted although OUT exists"
bash "$SCRIPT" "$SWEEP" "$TMP/x" zero >/dev/null 2>&1
[ $? -eq 2 ] || fail "SHARDS \"zero\" not refused with exit 2"
bash "$SCRIPT" >/dev/null 2>&1
[ $? -eq 2 ] || fail "no arguments not refused with exit 2"

[ $fails -eq 0 ] && echo "PASS" || { echo "$fails failure(s)"; exit 1; }
