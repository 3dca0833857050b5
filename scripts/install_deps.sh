#!/usr/bin/env bash
# Installs the Debian packages ttsim needs, only those missing, with apt-get
# (through sudo when not root). Safe to run repeatedly.
#   scripts/install_deps.sh          what building and running ./ttsim needs (the wrapper calls it)
#   scripts/install_deps.sh --test   that and what only the tests and benchmarks need (test.sh
#                                    calls it): GoogleTest, RapidCheck, Google Benchmark, Tcl for
#                                    the run_hls.tcl test, Chromium for the report browser test,
#                                    GNU parallel for the sharded-explore test
set -euo pipefail

PACKAGES=(
  bazel-bootstrap g++ libsystemc-dev libboost-program-options-dev nlohmann-json3-dev
  libfmt-dev libpugixml-dev libeigen3-dev libtbb-dev gnuplot-nox
)
TEST_PACKAGES=(libgtest-dev librapidcheck-dev libbenchmark-dev tcl chromium parallel)

case "${1:-}" in
  "") ;;
  --test) PACKAGES+=("${TEST_PACKAGES[@]}") ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "ttsim: need root or sudo to install: ${missing[*]}" >&2; exit 1
  fi
fi
echo "ttsim: installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2 || true
$SUDO apt-get install -y -qq "${missing[@]}" >&2
