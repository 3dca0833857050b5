#!/usr/bin/env bash
# Installs what ttsim and its tests need (scripts/install_deps.sh --test), runs every test
# with Bazel and closes with the line "N passed, N failed" counted from the test cases' results.
# Tests that read ../shared (real datasets and reports) find it via TTSIM_SHARED and
# skip themselves, saying why, where it is absent.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"
"$ROOT/scripts/install_deps.sh" --test || exit 1

env_args=()
if [ -d "$ROOT/../shared" ]; then
  export TTSIM_SHARED="$(cd "$ROOT/../shared" && pwd)"
  env_args+=("--test_env=TTSIM_SHARED=$TTSIM_SHARED")
fi

# Progress, failing tests' logs and the count below; no compiler warnings, no per-target PASSED lines.
bazel test //... --keep_going --output_filter='^$' --test_summary=terse "${env_args[@]}" "$@"
rc=$?

passed=0; failed=0; skipped=0
testlogs="$(bazel info bazel-testlogs 2>/dev/null)"
for target in $(bazel query 'tests(//...)' 2>/dev/null); do
  path="${target#//}"; path="${path/://}"
  xml="$testlogs/$path/test.xml"
  if [ ! -f "$xml" ]; then failed=$((failed + 1)); continue; fi
  read -r p f s < <(awk '
    /<testcase /  { inside = 1; bad = 0; skip = 0; if ($0 ~ /result="skipped"|<skipped/) skip = 1;
                    if ($0 ~ /<failure|<error/) bad = 1;
                    # A case closed on its own line: self-closing, or (a target that crashed
                    # before any case ran) <testcase ...><error .../></testcase> on one line.
                    if ($0 ~ /\/>[[:space:]]*$/ || $0 ~ /<\/testcase>/) {
                      inside = 0; if (bad) f++; else if (skip) s++; else p++ }
                    next }
    inside && /<failure|<error/ { bad = 1 }
    inside && /<skipped/ { skip = 1 }
    inside && /<\/testcase>/ { inside = 0; if (bad) f++; else if (skip) s++; else p++ }
    END { print p + 0, f + 0, s + 0 }' "$xml")
  if [ $((p + f + s)) -eq 0 ]; then
    # A test target whose log has no test cases (not GoogleTest): count the target.
    if grep -Eq '<failure|<error' "$xml"; then f=1; else p=1; fi
  fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
[ "$skipped" -gt 0 ] && echo "$skipped skipped (see the test logs for the reason)"
echo "$passed passed, $failed failed"
if [ $rc -ne 0 ] || [ $failed -ne 0 ]; then exit 1; fi
exit 0
