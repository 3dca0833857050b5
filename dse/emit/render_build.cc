// The build folder as files (render_hls_build, dse/emit/render.h): the Makefile, README.md
// and the assembly of every file.

#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "dse/emit/render.h"
#include "dse/space/metrics.h"
#include "hls/host/reference_step.h"
#include "machine/machine_report.h"

namespace ttsim::dse {

const char* const kReferenceStepFile = "reference_step.bin";

namespace {

/// The predicted figures as README.md writes them: "name value, ..." over the non-null
/// members (integers whole, other numbers to 6 significant digits, anything else as JSON).
std::string figures_text(const Json& metrics) {
  std::string figs;
  for (auto it = metrics.begin(); it != metrics.end(); ++it) {
    if (it.value().is_null()) continue;
    std::string v = it.value().dump();
    if (it.value().is_number()) {
      const double x = it.value().get<double>();
      v = x == std::floor(x) && std::fabs(x) < 1e15 ? fmt::format("{}", static_cast<long long>(x))
                                                     : fmt::format("{:.6g}", x);
    }
    figs += (figs.empty() ? "" : ", ") + it.key() + " " + v;
  }
  return figs;
}

/// README.md's opening: the design, where it came from, notes, predicted figures and why.
std::string readme_head(const HlsBuild& b) {
  const BuildDesign& d = b.design;
  const DesignProvenance& about = b.provenance;
  std::string r = fmt::format(
      "# HLS build of design `{}`\n\n"
      "Rendered by `ttsim emit` from `{}`: {} (its `/configs`), device `{}` (part `{}`, platform `{}`), "
      "clock {:g} MHz, flow {}.\n\n",
      d.label, about.source, configs_phrase(d), d.device.name, d.device.part, d.device.platform,
      d.arch.clock_mhz, d.hls.btt ? "BTT" : "sequential TT");
  for (const auto& n : about.notes) r += "- note: " + n + "\n";
  if (!about.notes.empty()) r += "\n";
  if (about.metrics) {
    r += "Predicted by ttsim (" + about.fidelity + "): " + figures_text(*about.metrics) + "\n\n";
    const Json& epoch = about.metrics->contains("epoch_seconds") ? (*about.metrics)["epoch_seconds"] : Json();
    r += "step_cycles is " +
         step_cycles_meaning(d.arch.sequence_length == SequenceLength::kEffective, epoch.is_number()) + ".\n\n";
  }
  if (!about.why.empty()) r += "Why this design: " + about.why + "\n\n";
  return r;
}

/// README.md's tables of the machine's kernel instances and memories, with totals against
/// the device.
std::string readme_machine(const BuildDesign& d) {
  const machine::Machine& mc = d.machine;
  std::string r =
      "## Kernel instances\n\n"
      "One RTL instance per module (`#pragma HLS ALLOCATION` in `hls/kernels/top.cc`, limits in\n"
      "`design_config.h`), shared by every call site; the top runs one call at a time.\n\n";
  r += machine::instances_markdown(mc, d.device);
  r += "## Memories\n\n"
       "Static arrays of the top (`BIND_STORAGE`, `ARRAY_PARTITION` complete on dim 2); every buffer at a fixed\n"
       "offset for the whole step.\n\n";
  r += machine::memories_markdown(mc, d.device);
  return r;
}

/// README.md's how-to: C simulation, Vitis HLS, the unified flow, the link and calibration.
std::string readme_build(const BuildDesign& d, const std::string& link_cfg) {
  return fmt::format(
      "## Build\n\n"
      "- C simulation here, no Vitis: `make csim` (g++): `csim_tb` trains a few steps and checks the loss "
      "falls; `reference_tb` runs one step through the bank networks synthesis builds and checks its "
      "losses and gradients against the Eigen reference (reference_step.bin). Vitis `csim_design` runs "
      "`csim_tb` only.\n"
      "- Vitis HLS (classic): `vitis_hls -f hls/scripts/run_hls.tcl` (csim, csynth, cosim, export .xo); the "
      "project goes to `build/hls/{0}/{1}/`, the reports are copied to `reports/{0}/{1}/`.\n"
      "- Vitis unified: `v++ -c --mode hls --config hls/scripts/hls_config.cfg --work_dir build/hls/{0}/{1}`.\n"
      "- Link for the board: `v++ -l -t hw --config hls/scripts/{2} -o ttsim.xclbin ttsim_train_step.xo`.\n"
      "- Feed the csynth/Vivado reports back with `ttsim calibrate` to refine the simulator.\n\n"
      "The kernel sources under hls/ are copies of the ttsim tree's `hls/`; `hls/include/design_config.h`, "
      "`hls/kernels/design_layout.h` and `hls/scripts/*` are rendered for this design.\n",
      d.device.name, d.label, link_cfg);
}

}  // namespace

std::string render_makefile(const std::vector<std::string>& sources) {
  std::string make =
      "# C simulation with g++ (no Vitis needed): make csim\n"
      "# csim_tb trains a few steps; reference_tb checks one step's losses and gradients against the\n"
      "# Eigen reference's (" + std::string(kReferenceStepFile) + ", written by ttsim emit).\n"
      "CXX ?= g++\nCXXFLAGS ?= -std=c++17 -O2\nSRCS =";
  for (const auto& s : sources) make += " hls/" + s;
  for (const char* tb : {kCsimTestbench, kReferenceTestbench}) {
    const std::string bin = std::filesystem::path(tb).stem().string();
    make += "\n\n" + bin + ": $(SRCS) hls/" + tb + " hls/include/design_config.h hls/kernels/design_layout.h\n\t$(CXX) $(CXXFLAGS) -I. $(SRCS) hls/" +
            tb + " -o $@";
  }
  make += "\n\ncsim: csim_tb reference_tb\n\t./csim_tb\n\t./reference_tb " + std::string(kReferenceStepFile) +
          "\n\n# Removes what csim built (a later emit into this folder refuses files it did not write).\n"
          "clean:\n\trm -f csim_tb reference_tb\n\n.PHONY: csim clean\n";
  return make;
}

std::string render_readme(const HlsBuild& b, const std::string& link_cfg) {
  return readme_head(b) + readme_machine(b.design) + readme_build(b.design, link_cfg);
}

std::vector<RenderedFile> render_hls_build(const HlsBuild& b) {
  const BuildDesign& d = b.design;
  const std::string header = render_design_config(d);  // its refusals before any other work
  const HlsScripts scripts = render_scripts(d, b.kernels.sources);
  std::vector<RenderedFile> files = b.kernels.copies;
  files.push_back({kReferenceStepFile, reference_step_file(d.model)});
  files.push_back({"hls/include/design_config.h", header});
  files.push_back({"hls/kernels/design_layout.h", render_design_layout(d)});
  files.push_back({"hls/scripts/run_hls.tcl", scripts.run_hls_tcl});
  files.push_back({"hls/scripts/hls_config.cfg", scripts.hls_config_cfg});
  files.push_back({"hls/scripts/" + scripts.link_cfg_name, scripts.link_cfg});
  files.push_back({"Makefile", render_makefile(b.kernels.sources)});
  files.push_back({"README.md", render_readme(b, scripts.link_cfg_name)});
  return files;
}

}  // namespace ttsim::dse
