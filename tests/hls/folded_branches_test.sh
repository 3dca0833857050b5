#!/usr/bin/env bash
# The glue's branches on a layer's flow fold at compile time in an emitted top
# (hls/kernels/model_step.h layer_tt .. layer_dx_by_add, design_config.h kFixedLayerForms): the
# checked-in tree (the default design: BTT, merges kept) compiled as its build compiles it
# calls neither the sequential TT flow nor the merge recomputation, so its top holds none of
# their call sites; compiled as the host tools compile it (TTSIM_ANY_LAYOUT: any model, the
# layer's fields read at run time) it calls all of them. Needs g++ (the kernels' C simulation
# compiler).
set -euo pipefail
command -v g++ >/dev/null || { echo "folded_branches_test: needs g++" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
calls() {  # the flow functions model_step.cc calls, compiled with the extra flags given
  g++ -std=c++14 -O1 -I. "$@" -c hls/kernels/model_step.cc -o "$tmp/model_step.o"
  nm -C -u "$tmp/model_step.o" | grep -oE "ttsim_hls::(tt_forward|tt_backward|btt_forward|btt_backward|btt_remerge)\(" |
    sed 's/ttsim_hls:://; s/($//' | sort | tr '\n' ' '
}
fixed="$(calls)"
any="$(calls -DTTSIM_ANY_LAYOUT -DTTSIM_MAX_ENCODERS=128)"
echo "emitted top calls: $fixed"
echo "host tools call:   $any"
[ "$fixed" = "btt_backward btt_forward " ] || { echo "FAIL: the default design's top calls other flows than BTT without recomputation" >&2; exit 1; }
[ "$any" = "btt_backward btt_forward btt_remerge tt_backward tt_forward " ] || { echo "FAIL: the host build does not branch on every flow" >&2; exit 1; }
echo PASS
