#!/usr/bin/env bash
# Runs the Tcl test of hls/scripts/run_hls.tcl in tclsh (package tcl).
set -euo pipefail
exec tclsh tests/hls/run_hls_tcl_test.tcl
