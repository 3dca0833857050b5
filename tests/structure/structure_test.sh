#!/usr/bin/env bash
# Runs scripts/structure.py CHECK [ARGS] on the checkout (see tests/structure/BUILD).
set -euo pipefail
exec python3 "scripts/structure.py" "$@"
