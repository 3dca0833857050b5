#pragma once
// `ttsim emit`: renders the machine description of a design (machine/machine.h) as a
// self-contained Vitis HLS build folder, laid out like the ttsim tree:
//   hls/include/design_config.h   the design: shapes, lanes, arenas (words, partition,
//                                 storage), m_axi depth, ALLOCATION limits — every value
//                                 from the Machine (render_design_config, render.h)
//   hls/scripts/run_hls.tcl       Vitis HLS Tcl flow: csim, csynth, cosim, export (.xo),
//                                 reports copied to reports/<board>/<design>/
//   hls/scripts/hls_config.cfg    the same for the unified `v++ -c --mode hls` flow
//   hls/scripts/<board>_link.cfg  v++ link config for the device's platform
//                                 (the three: render_scripts, render.h)
//   hls/kernels/*, hls/include/* (kernel_spec.h, loop_counter.*, access_probe.*; not the
//                                 test helper spec_check.*), hls/tb/csim_tb.cc,
//                                 hls/tb/reference_tb.cc   copied
//   reference_step.bin            the Eigen reference's step of the model (reference_tb)
//   Makefile                      `make csim` builds and runs the C simulation with g++
//   README.md                     the design, its instances and memories, its predicted
//                                 figures and how to build it
// The tree's own hls/include/design_config.h and hls/scripts/* are the same renderings of
// the default design (default_tree_files; `ttsim emit --default-tree` rewrites them).
//
// The pieces: build_design.h (a design and its machine description), hls_build.h (the
// build description: the design, its provenance, the kernel sources; from explore's
// memory or from a chosen.json), render.h (the pure renderer: description → files), and
// here the writing of the folder (all or nothing, core/atomic_tree.h) and the default
// tree.

#include <string>
#include <utility>
#include <vector>

#include "core/json_view.h"
#include "dse/emit/build_design.h"
#include "dse/emit/hls_build.h"
#include "dse/emit/render.h"

namespace ttsim::dse {

/// The file every emitted build folder holds, so that a later emit may replace the folder.
extern const char* const kEmitMarker;  // ".ttsim-emit"

/// What an emit does with an earlier build folder that holds files no emit wrote (listed
/// by files_no_emit_wrote): refuse (InputError), or keep the folder as it is and say so.
enum class EarlierFiles { kRefuse, kKeepFolder };

/// What an emit wrote.
struct EmitReport {
  std::vector<std::string> files;  ///< written, relative to the out folder (kEmitMarker aside)
  bool replaced = true;            ///< false: the folder was kept (EarlierFiles::kKeepFolder)
  std::vector<std::string> notes;  ///< e.g. the device fallback for an older chosen.json
  std::string link_cfg;            ///< file name of the v++ link config written, e.g. "u50_link.cfg"
};

/// The files under the earlier build folder `out_dir` that no emit wrote: every file or
/// symbolic link (relative path, '/'-separated, sorted) but kEmitMarker and those its
/// marker lists (the files of the emit that wrote it), and every empty folder emit does not
/// make ("name/"). Empty when `out_dir` is not an earlier build, or its marker predates the
/// list (that emit's files are not known: the folder is replaced as before). Throws
/// InputError when the folder cannot be listed.
std::vector<std::string> files_no_emit_wrote(const std::string& out_dir);

/// Writes the build folder `out_dir` of `build`: render_hls_build's files and kEmitMarker
/// (which lists them), all or nothing (write_tree_atomic: a fresh sibling
/// "<out>.emit-<pid>" replaces the folder; the earlier build is kept if the swap fails).
/// `out_dir` ("DIR/" and "./DIR" name DIR) must be new, empty or an earlier emit (holding
/// kEmitMarker). An earlier emit's folder holding files no emit wrote (synthesis outputs,
/// the user's notes) is refused (`earlier` kRefuse) or kept as it is with a note
/// (kKeepFolder; EmitReport::replaced false, nothing written). Throws InputError naming
/// --out for the root folder, the working folder or one holding it, a file, a ttsim
/// checkout (configs/ inside, or the kernel tree build.kernels.root) and a folder with
/// files no emit wrote (no marker, or with kRefuse) — all before writing; then as
/// render_hls_build and write_tree_atomic.
EmitReport emit_hls_build(const HlsBuild& build, const std::string& out_dir, EarlierFiles earlier);

/// `ttsim emit --design`: emit_hls_build(hls_build_from_chosen(chosen, chosen_file,
/// hls_root), out_dir) — the build folder of chosen.json's document `chosen`, read from
/// `chosen_file`. Throws as those two.
EmitReport emit_design(const Json& chosen, const std::string& chosen_file, const std::string& out_dir,
                       const std::string& hls_root = "");

/// The tree's generated build files for the default design, as (path relative to the
/// checkout, content): hls/include/design_config.h and hls/scripts/{run_hls.tcl,
/// hls_config.cfg, u50_link.cfg}. The checked-in files must equal these byte for byte.
/// Throws as default_design, hls_sources and the renderers.
std::vector<std::pair<std::string, std::string>> default_tree_files(const std::string& root);

/// Writes default_tree_files(root) into `root` (`ttsim emit --default-tree`), each file
/// atomically; returns the paths written.
std::vector<std::string> write_default_tree(const std::string& root);

}  // namespace ttsim::dse
