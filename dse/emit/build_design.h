#pragma once
// A design as the emitted HLS build renders it: its model, arch and device specs, the
// kernel tree's dimensions and its machine description, computed once and checked against
// what the kernel tree can build and what the device holds.

#include <string>

#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "machine/hls_dims.h"
#include "machine/machine.h"
#include "models/model_spec.h"

namespace ttsim::dse {

/// The default design the tree's checked-in build files render (paths relative to the
/// checkout): configs/models/atis_2enc.json on configs/arch/u50_paper.json and
/// configs/devices/u50.json.
extern const char* const kDefaultModelFile;
extern const char* const kDefaultArchFile;
extern const char* const kDefaultDeviceFile;

/// A design as the emitted build renders it: its inputs and its machine description.
struct BuildDesign {
  std::string label;  ///< names the design in the scripts (project ttsim_<label>, reports/<board>/<label>)
  ModelSpec model;
  ArchSpec arch;
  DeviceSpec device;
  machine::HlsDesign hls;    ///< machine::hls_design(model, arch)
  machine::Machine machine;  ///< machine::describe(model, arch, device, padded step graph)
  /// LUTs: the machine's LUT estimate (sim/machine_luts.h machine_lut_terms of the padded
  /// step), the figure the fit rule took and `simulate` prints.
  double lut_estimate = 0;
  /// A sweep point with axis values (DesignProvenance::sweep_point): its configs are the
  /// sweep's base files with the point's axis values written in.
  bool sweep_point = false;
};

/// Describes (model, arch, device) for the build: machine::check_buildable, the padded
/// step graph (build_training_graph(model, graph_options(arch, 0))), machine::describe,
/// then the one fit rule (machine::over_device with the machine's LUT estimate,
/// sim/machine_luts.h, and `headroom_pct`: the sweep's for a chosen design, else the default). `label` ("" = the model name) and the model, arch and
/// device names and the part and platform are written into the build files: each must be
/// a non-empty name of [A-Za-z0-9_.+-]. `file` names the source in messages.
/// Throws ConfigError from check_buildable (the arch's JSON pointer) and for an unsafe
/// name (pointers /name, /configs/model/name, /configs/arch/name, /configs/device/name,
/// /configs/device/part, /configs/device/platform of `file`); InputError from
/// hls_design / describe (a design the kernel tree cannot express) and when the machine
/// exceeds the device, naming each resource ("DSP 6182 needed, 5952 available").
/// `described`: the machine of (model, arch, device) when the caller already has it (explore's
/// chosen design, simulated on it), used instead of describing the padded step again; every
/// check above still runs.
/// The design's configs as the build files name them: "model atis_2enc, arch u50_paper" for
/// a design that is its configs (the default tree), "model atis_2enc, arch u50_paper with the
/// sweep point's axis values written in" for a sweep point (BuildDesign::sweep_point) — its
/// configs keep their base files' names while its axis values change them.
std::string configs_phrase(const BuildDesign& d);

BuildDesign make_build_design(ModelSpec model, ArchSpec arch, DeviceSpec device, std::string label,
                              const std::string& file, const machine::Machine* described = nullptr,
                              double headroom_pct = kDefaultResourceHeadroomPct);

/// The default design (kDefault*File under `root`, label = the model name). Throws as
/// the spec loaders and make_build_design.
BuildDesign default_design(const std::string& root);

/// Throws ConfigError at (file, pointer) unless `name` may be pasted into the emitted files
/// (Tcl, cfg, Markdown, C++ comments) without breaking out of its line or quoting: not
/// empty, of the characters [A-Za-z0-9_.+-] only.
void check_emit_name(const std::string& name, const std::string& file, const std::string& pointer);

}  // namespace ttsim::dse
