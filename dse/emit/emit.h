#pragma once
// `ttsim emit`: renders the machine description of a design (machine/machine.h) as a
// self-contained Vitis HLS build folder, laid out like the ttsim tree:
//   hls/include/design_config.h   the design: shapes, lanes, arenas (words, partition,
//                                 storage), m_axi depth, ALLOCATION limits — every value
//                                 from the Machine (render_design_config)
//   hls/scripts/run_hls.tcl       Vitis HLS Tcl flow: csim, csynth, cosim, export (.xo),
//                                 reports copied to reports/<board>/<design>/
//   hls/scripts/hls_config.cfg    the same for the unified `v++ -c --mode hls` flow
//   hls/scripts/<board>_link.cfg  v++ link config for the device's platform
//                                 (the three: render_scripts)
//   hls/kernels/*, hls/include/* (kernel_spec.h, loop_counter.*, access_probe.*; not the
//                                 test helper spec_check.*), hls/tb/csim_tb.cc   copied
//   Makefile                      `make csim` builds and runs the C simulation with g++
//   README.md                     the design, its instances and memories, its predicted
//                                 figures and how to build it
// The tree's own hls/include/design_config.h and hls/scripts/* are the same renderings of
// the default design (default_tree_files; `ttsim emit --default-tree` rewrites them).

#include <string>
#include <utility>
#include <vector>

#include "core/json_view.h"
#include "machine/hls_dims.h"
#include "machine/machine.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"

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
};

/// Describes (model, arch, device) for the build: machine::check_buildable, the padded
/// step graph (build_training_graph(model, graph_options(arch, 0))), machine::describe,
/// then machine::over_device. `label` ("" = the model name) and the model, arch and
/// device names and the part and platform are written into the build files: each must be
/// a non-empty name of [A-Za-z0-9_.+-]. `file` names the source in messages.
/// Throws ConfigError from check_buildable (the arch's JSON pointer) and for an unsafe
/// name (pointers /name, /configs/model/name, /configs/arch/name, /configs/device/name,
/// /configs/device/part, /configs/device/platform of `file`); InputError from
/// hls_design / describe (a design the kernel tree cannot express) and when the machine
/// exceeds the device, naming each resource ("DSP 6182 needed, 5952 available").
BuildDesign make_build_design(ModelSpec model, ArchSpec arch, DeviceSpec device, std::string label,
                              const std::string& file);

/// design_config.h of `d`, every value from d.machine and d.hls.dims:
///  - model shape, TT/TTM shapes and kUseBtt from d.hls (the ModelDims the top builds);
///  - k<Unit>Lanes from Machine::instances[].lanes (kContractLanes = ttsim_contraction,
///    kSoftmaxLanes = ttsim_softmax / ttsim_softmax_grad, kLayerNormLanes, kGeluLanes,
///    kAddLanes = ttsim_add / ttsim_add_accumulate / ttsim_column_sum, kLossLanes, kSgdLanes:
///    the constants hls/kernels/modules.cc instantiates each module with);
///  - per Machine::memories entry <stem>_mem: k<Stem>Words (words), k<Stem>Partition
///    (partition) and the macro TTSIM_<STEM>_STORAGE (to_string(storage));
///  - TTSIM_PARAM_WORDS (Machine::param_words, the m_axi depth) and one
///    TTSIM_INSTANCES_<MODULE> (KernelInstance::count, the ALLOCATION limit) per instance.
/// Throws InputError when modules that share a lane constant have different lanes, or a
/// memory's storage has no BIND_STORAGE impl (registers).
std::string render_design_config(const BuildDesign& d);

/// The Vitis scripts of a build, rendered from the same design.
struct HlsScripts {
  std::string run_hls_tcl;     ///< hls/scripts/run_hls.tcl
  std::string hls_config_cfg;  ///< hls/scripts/hls_config.cfg
  std::string link_cfg_name;   ///< "<device name>_link.cfg"
  std::string link_cfg;        ///< hls/scripts/<link_cfg_name>
};

/// run_hls.tcl, hls_config.cfg and the v++ link config of `d`: part and platform from
/// d.device, clock from d.arch.clock_mhz, board label d.device.name, design label d.label,
/// top ttsim_train_step; `sources` (paths under hls/, e.g. "kernels/top.cc", as
/// hls_sources returns) are the synthesized files, hls/tb/csim_tb.cc the testbench. The
/// link config pins no SLR (see its comment).
HlsScripts render_scripts(const BuildDesign& d, const std::vector<std::string>& sources);

/// The synthesized sources of the kernel tree under `hls_root`: hls/kernels/*.cc then
/// hls/include/*.cc except spec_check.cc (a test helper), each sorted, as paths under
/// hls/ ("kernels/attention.cc"). Throws InputError when hls/kernels is missing.
std::vector<std::string> hls_sources(const std::string& hls_root);

/// The default design (kDefault*File under `root`, label = the model name).
BuildDesign default_design(const std::string& root);

/// The tree's generated build files for the default design, as (path relative to the
/// checkout, content): hls/include/design_config.h and hls/scripts/{run_hls.tcl,
/// hls_config.cfg, u50_link.cfg}. The checked-in files must equal these byte for byte.
std::vector<std::pair<std::string, std::string>> default_tree_files(const std::string& root);

/// Writes default_tree_files(root) into `root` (`ttsim emit --default-tree`); returns the
/// paths written.
std::vector<std::string> write_default_tree(const std::string& root);

/// The folder holding the HLS kernel tree (hls/kernels/top.cc): `given` (--hls-root) when
/// not empty; else the working directory; else the nearest ancestor folder of the running
/// binary (/proc/self/exe) holding it — a Bazel build's execroot links the checkout's
/// hls/, so a binary built from a checkout finds it from any working directory.
/// Throws InputError naming where it looked.
std::string find_hls_root(const std::string& given);

/// What emit_design did.
struct EmitReport {
  std::vector<std::string> files;  ///< written, relative to the out folder
  std::vector<std::string> notes;  ///< e.g. the device fallback for an older chosen.json
  std::string link_cfg;            ///< file name of the v++ link config written, e.g. "u50_link.cfg"
};

/// Writes the build folder `out_dir` for `chosen` (chosen.json's document, read from
/// `chosen_file`). The model and arch are /configs/model and /configs/arch; the device is
/// /configs/device (the resolved device config explore writes); for an older chosen.json
/// without it, configs/devices/u50.json of the checkout when /device/part is an xcu50
/// part (reported in EmitReport::notes and README.md), else InputError. `hls_root` is the
/// folder holding the tree's hls/ sources ("" = the default search of find_hls_root).
/// Throws InputError for a chosen.json without a design, missing sources, and every
/// refusal of make_build_design (a design the tree cannot express, check_buildable's
/// ConfigError, a machine beyond the device); ConfigError (file, JSON pointer) for a
/// member of the wrong type (e.g. /device/part = 5), a name written into the build files
/// with characters outside [A-Za-z0-9_.+-], and a /device/part or /device/platform
/// other than /configs/device's.
EmitReport emit_design(const Json& chosen, const std::string& chosen_file, const std::string& out_dir,
                       const std::string& hls_root = "");

/// Throws ConfigError at (file, pointer) unless `name` may be pasted into the emitted files
/// (Tcl, cfg, Markdown, C++ comments) without breaking out of its line or quoting: not
/// empty, of the characters [A-Za-z0-9_.+-] only.
void check_emit_name(const std::string& name, const std::string& file, const std::string& pointer);

}  // namespace ttsim::dse
