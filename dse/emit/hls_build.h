#pragma once
// The build description `ttsim emit` renders: a design (build_design.h), where it comes
// from and what was predicted for it, and the kernel tree's sources the build copies. Made
// in memory by explore for its chosen design (dse/run_setup.cc) and from a chosen.json by
// `ttsim emit --design` (hls_build_from_chosen); both render the same bytes.

#include <optional>
#include <string>
#include <vector>

#include "core/atomic_tree.h"
#include "core/json_view.h"
#include "dse/emit/build_design.h"

namespace ttsim::dse {

/// One file of an emitted build: its path in the build folder and its bytes.
using RenderedFile = TreeFile;

/// The testbenches a build copies and runs, as paths under hls/: csim_tb trains a few
/// steps; reference_tb compares one step with the Eigen reference's (reference_step.bin).
extern const char* const kCsimTestbench;       // "tb/csim_tb.cc"
extern const char* const kReferenceTestbench;  // "tb/reference_tb.cc"

/// The kernel tree a build copies, read from a ttsim checkout.
struct KernelTree {
  std::string root;  ///< folder holding hls/ (find_hls_root)
  /// The synthesized sources as paths under hls/ ("kernels/top.cc"): hls_sources(root).
  std::vector<std::string> sources;
  /// Copied verbatim, in this order: hls/kernels/*.{h,cc}, hls/include/*.{h,cc} (not the
  /// rendered design_config.h nor the test helper spec_check.*), each sorted by name, then
  /// hls/<kCsimTestbench> and hls/<kReferenceTestbench>; paths relative to the build folder.
  std::vector<RenderedFile> copies;
};

/// Where a design comes from and what was predicted for it: what the build says about the
/// design besides its machine.
struct DesignProvenance {
  /// Names the design's origin in messages, README.md and the folder's marker: the path
  /// of its chosen.json ("out/chosen.json").
  std::string source;
  std::string label;            ///< names the design in the build ("" = the model name)
  std::string fidelity = "?";   ///< of the predicted figures ("analytic", "systemc")
  std::string why;              ///< why it was chosen ("" = not said)
  /// Headroom of the fit rule the design was chosen under (chosen.json
  /// /resource_headroom_pct, the sweep's; the default of hw/resource_fit.h when absent).
  double resource_headroom_pct = kDefaultResourceHeadroomPct;
  /// The predicted figures as chosen.json's /metrics: an object of metric name → number,
  /// null where unavailable (keys in name order); nullopt = none given.
  std::optional<Json> metrics;
  /// Said in README.md and reported to the user (the device fallback of an older
  /// chosen.json).
  std::vector<std::string> notes;
  /// A sweep point with axis values (chosen.json's or a front entry's /values non-empty): its
  /// configs are the base files with those values written in (BuildDesign::sweep_point).
  bool sweep_point = false;
};

/// Everything render_hls_build needs: no file is read while rendering.
struct HlsBuild {
  BuildDesign design;
  DesignProvenance provenance;
  KernelTree kernels;
};

/// The synthesized sources of the kernel tree under `hls_root`: hls/kernels/*.cc then
/// hls/include/*.cc except spec_check.cc (a test helper), each sorted, as paths under
/// hls/ ("kernels/attention.cc"). Throws InputError when hls/kernels is missing.
std::vector<std::string> hls_sources(const std::string& hls_root);

/// Reads the kernel tree under `hls_root` (a folder holding hls/, as find_hls_root
/// returns). Throws InputError when hls/kernels is missing or a file cannot be read
/// ("<path>: cannot read").
KernelTree read_kernel_tree(const std::string& hls_root);

/// The folder holding the HLS kernel tree (hls/kernels/top.cc): `given` (--hls-root) when
/// not empty; else the working directory; else the nearest ancestor folder of the running
/// binary (/proc/self/exe) holding it — a Bazel build's execroot links the checkout's
/// hls/, so a binary built from a checkout finds it from any working directory.
/// Throws InputError naming where it looked.
std::string find_hls_root(const std::string& given);

/// The build description of (model, arch, device): make_build_design(model, arch, device,
/// about.label, about.source), the kernel tree under `hls_root` (read_kernel_tree), and
/// `about`. Throws as make_build_design and read_kernel_tree, and InputError
/// "<source>: /configs/arch/clock_mhz: expected at most the device's <max> MHz (<device>),
/// found <clock>" when the arch's clock exceeds the device's. `described`: as
/// make_build_design's (the machine the caller simulated the design on), or null.
HlsBuild make_hls_build(ModelSpec model, ArchSpec arch, DeviceSpec device, DesignProvenance about,
                        const std::string& hls_root, const machine::Machine* described = nullptr);

/// The build description of `chosen` (chosen.json's document, read from `chosen_file`).
/// The model and arch are /configs/model and /configs/arch; the device is /configs/device
/// (the resolved device config explore writes); for an older chosen.json without it,
/// configs/devices/u50.json of the checkout when /device/part is an xcu50 part (said in
/// DesignProvenance::notes), else InputError. /name, /fidelity, /why and /metrics are the
/// provenance. `hls_root` is the folder holding the tree's hls/ sources ("" = the default
/// search of find_hls_root).
/// Throws InputError for a chosen.json without a design, missing sources, and every
/// refusal of make_hls_build (a design the tree cannot express, check_buildable's
/// ConfigError, a machine beyond the device, a clock above the device's); ConfigError
/// (file, JSON pointer, expected vs found) for a member of the wrong type (e.g.
/// /device/part = 5), the choice of an interrupted run (/interrupted), a name written into
/// the build files with characters outside [A-Za-z0-9_.+-], a /device/part or
/// /device/platform other than /configs/device's, a /metrics member that is no metric name or
/// not a number >= 0 or null, and a /metrics/dsp, /bram36, /uram288, /onchip_bytes or /lut
/// other than the figure of the machine /configs describe (edited configs, or another
/// design's metrics: the build's README would print figures it does not have).
HlsBuild hls_build_from_chosen(const Json& chosen, const std::string& chosen_file, const std::string& hls_root = "");

/// The front design `id` of an explore run's results.json (`file` in messages) as a
/// chosen.json document for hls_build_from_chosen: its /front entry (name, id, values,
/// configs, metrics, fidelity) with the run's /sweep, its resolved /device as
/// /configs/device (a front entry names its device only) and its part and platform, the
/// sweep's /sweep_doc/constraints/resource_headroom_pct and a /why naming the pick — so
/// that any Pareto design, not only the chosen one, can be emitted.
/// Throws ConfigError at /front when no front design has that id (listing how many the
/// front holds) and at /interrupted for an interrupted run's results; at the member's
/// pointer for a wrong type.
Json front_design_as_chosen(const Json& results, const std::string& file, std::int64_t id);

}  // namespace ttsim::dse
