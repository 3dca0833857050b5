#!/usr/bin/env bash
# How `ttsim simulate` grows with the encoder count: for each N of the arguments (default
# 12 24 48 96), the ATIS model of configs/models/atis_2enc.json with N encoders is simulated
# on u50_paper, and the wall seconds, CPU seconds and peak resident memory of the whole
# command (GNU time) are printed. Designs of more than 2–4
# encoders do not fit the U50: simulate evaluates the whole step, then refuses with exit 2
# naming the resources, which this bench accepts. Run from the workspace root.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ -x /usr/bin/time ] || { echo "simulate_scaling.sh: needs GNU time (Debian package time: apt-get install time)" >&2; exit 1; }
bazel build -c opt //cli:ttsim >/dev/null 2>&1
bin="$(bazel info -c opt bazel-bin 2>/dev/null)/cli/ttsim"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(12 24 48 96)
printf '%9s %9s %9s %10s\n' encoders wall_s cpu_s peak_MiB
for n in "${counts[@]}"; do
  sed -e "s/\"encoders\": 2,/\"encoders\": $n,/" -e "s/\"name\": \"atis_2enc\"/\"name\": \"atis_${n}enc\"/" \
    configs/models/atis_2enc.json > "$tmp/model.json"
  rc=0
  /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$bin" simulate --model "$tmp/model.json" \
    --arch configs/arch/u50_paper.json --device configs/devices/u50.json > "$tmp/out" 2> "$tmp/err" || rc=$?
  if [ "$rc" -ne 0 ] && ! grep -q "does not fit" "$tmp/err"; then cat "$tmp/err" >&2; exit 1; fi
  read -r wall user sys kb < <(tail -1 "$tmp/time")  # GNU time notes a non-zero exit on a line before
  awk -v n="$n" -v w="$wall" -v u="$user" -v s="$sys" -v kb="$kb" 'BEGIN { printf "%9s %9.2f %9.2f %10.1f\n", n, w, u + s, kb / 1024 }'
done
