#pragma once
// The renderer of an emitted HLS build: pure functions of the build description
// (dse/emit/hls_build.h), no file read or written. render_hls_build gives every file of
// the folder; the others give one file each.

#include <string>
#include <vector>

#include "dse/emit/hls_build.h"

namespace ttsim::dse {

/// The Eigen reference's step of the design's model that the build's reference_tb checks
/// one step against: "reference_step.bin", at the build folder's root.
extern const char* const kReferenceStepFile;

/// design_config.h of `d`, every value from d.machine and d.hls.dims:
///  - model shape, TT/TTM shapes and kUseBtt from d.hls (the ModelDims the top builds);
///  - k<Unit>Lanes from Machine::instances[].lanes (kContractLanes = ttsim_contraction,
///    kSoftmaxLanes = ttsim_softmax / ttsim_softmax_grad, kLayerNormLanes, kGeluLanes,
///    kAddLanes = ttsim_add_accumulate / ttsim_column_sum / ttsim_transpose,
///    kLossLanes, kSgdLanes:
///    the constants hls/kernels/modules.cc instantiates each module with), and
///    kSoftmaxAligned / kLayerNormAligned / kGeluAligned / kLossAligned / kSgdAligned from their
///    instances'
///    lane_aligned (false under the
///    host tools' TTSIM_ANY_LAYOUT);
///  - per Machine::memories entry <stem>_mem: k<Stem>Words (words), k<Stem>Partition
///    (partition) and the macro TTSIM_<STEM>_STORAGE (to_string(storage));
///  - TTSIM_PARAM_WORDS (Machine::param_words, the m_axi depth) and one
///    TTSIM_INSTANCES_<MODULE> (KernelInstance::count, the ALLOCATION limit) per instance;
///  - TTSIM_TRIPS_<LOOP>_MIN/_MAX (LOOP_TRIPCOUNT, iterations) and TTSIM_II_<LOOP>
///    (PIPELINE II, cycles) of every loop of the kernel specification.
/// Throws InputError when modules that share a lane constant have different lanes (or
/// alignment), a module without an aligned constant is described aligned, a
/// constant has no module or a module no constant, or a memory's storage has no
/// BIND_STORAGE impl (registers).
std::string render_design_config(const BuildDesign& d);

/// hls/kernels/design_layout.h of `d`: the constexpr function ttsim_hls::design_layout()
/// returning d.hls.layout (make_layout of the design's ModelDims), one assignment per
/// non-zero field (hls/host/layout_fields.h), which the top takes its arena offsets from.
std::string render_design_layout(const BuildDesign& d);

/// The Vitis scripts of a build, rendered from the same design.
struct HlsScripts {
  std::string run_hls_tcl;     ///< hls/scripts/run_hls.tcl
  std::string hls_config_cfg;  ///< hls/scripts/hls_config.cfg
  std::string link_cfg_name;   ///< "<device name>_link.cfg"
  std::string link_cfg;        ///< hls/scripts/<link_cfg_name>
};

/// The file name of the v++ link config of `d`: "<device name>_link.cfg".
std::string link_cfg_name(const BuildDesign& d);

/// run_hls.tcl, hls_config.cfg and the v++ link config of `d`: part and platform from
/// d.device, clock from d.arch.clock_mhz (period in ns, link frequency in Hz), board label
/// d.device.name, design label d.label, top ttsim_train_step; `sources` (paths under hls/,
/// e.g. "kernels/top.cc", as hls_sources returns) are the synthesized files,
/// hls/<kCsimTestbench> the testbench. The link config pins no SLR (see its comment).
HlsScripts render_scripts(const BuildDesign& d, const std::vector<std::string>& sources);

/// The build's Makefile: `make csim` compiles `sources` (paths under hls/) with each
/// testbench (csim_tb, reference_tb) with g++ and runs both, reference_tb on
/// kReferenceStepFile.
std::string render_makefile(const std::vector<std::string>& sources);

/// The build's README.md: the design and where it came from (b.provenance: source,
/// notes, predicted figures, why), its kernel instances and memories with their totals
/// against the device, and how to build it (`link_cfg` names the v++ link config).
std::string render_readme(const HlsBuild& b, const std::string& link_cfg);

/// Every file of the build folder of `b`, in the order they are written: the kernel
/// sources copied (b.kernels.copies), reference_step.bin (reference_step_file of the
/// model), hls/include/design_config.h, hls/scripts/{run_hls.tcl, hls_config.cfg,
/// <link_cfg_name>}, Makefile and README.md. Reads no file. Throws as
/// render_design_config, and InputError when the reference refuses the model.
std::vector<RenderedFile> render_hls_build(const HlsBuild& b);

}  // namespace ttsim::dse
