#pragma once
// `ttsim emit`: turns a chosen design (chosen.json of an explore run) into a
// self-contained Vitis HLS build folder:
//   hls/include/design_config.h   generated for the design (the format and names of the
//                                 tree's hls/include/design_config.h)
//   hls/kernels/*, hls/include/* (kernel_spec.h, loop_counter.*, access_probe.*; not the
//                                 test helper spec_check.*), hls/tb/csim_tb.cc   copied from the tree
//   run_hls.tcl                   Vitis HLS Tcl flow: csim, csynth, cosim, export (.xo)
//   hls_config.cfg                the same for the unified `v++ -c --mode hls` flow
//   link.cfg                      v++ link config for the device's platform
//   Makefile                      `make csim` builds and runs the C simulation with g++
//   README.md                     the design, its predicted figures and how to build it

#include <string>

#include "core/json_view.h"

namespace ttsim::dse {

/// design_config.h text for the model/arch in `configs` ({"model": ..., "arch": ...},
/// resolved documents as in chosen.json). Throws InputError when the HLS tree cannot
/// express the design: a flow other than BTT or sequential TT on every TT layer kind,
/// mixed flows, dense or per-layer-overridden encoder layers, or a model make_layout
/// rejects (more than 12 encoders or 6 factors); ConfigError when the model or arch name
/// has characters outside [A-Za-z0-9_.+-].
/// `design_name` (chosen.json's "name", e.g. "atis_2enc-r4-btt-96lanes-grouped") names
/// the design in the header comment; "" = the model and arch names only.
std::string design_config_header(const Json& configs, const std::string& file,
                                 const std::string& design_name = "");

/// The folder holding the HLS kernel tree (hls/kernels/top.cc): `given` (--hls-root) when
/// not empty; else the working directory; else the nearest ancestor folder of the running
/// binary (/proc/self/exe) holding it — a Bazel build's execroot links the checkout's
/// hls/, so a binary built from a checkout finds it from any working directory.
/// Throws InputError naming where it looked.
std::string find_hls_root(const std::string& given);

/// Writes the build folder `out_dir` for `chosen` (chosen.json's document, read from
/// `chosen_file`). `hls_root` is the folder holding the tree's hls/ sources ("" = the
/// default search of find_hls_root). Throws InputError for a design the
/// tree cannot express, a chosen.json without a design, or missing sources; ConfigError
/// (file, JSON pointer) for a member of the wrong type (e.g. /device/part = 5) and for a
/// name written into the build files (/name, /configs/model/name, /configs/arch/name,
/// /device/part, /device/platform) with characters outside [A-Za-z0-9_.+-].
void emit_design(const Json& chosen, const std::string& chosen_file, const std::string& out_dir,
                 const std::string& hls_root = "");

}  // namespace ttsim::dse
