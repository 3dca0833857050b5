// `ttsim emit --design chosen.json --out DIR`: the Vitis HLS build folder of a design.
// `ttsim emit --default-tree`: re-renders the tree's own design_config.h and hls/scripts/*
// (the default design).

#include <cstdlib>
#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "core/errors.h"
#include "dse/emit/emit.h"

namespace ttsim::cli {
namespace {

int run_emit_cmd(const std::vector<std::string>& args) {
  po::options_description opts("options");
  std::string design, out, hls_root;
  long long point = -1;
  opts.add_options()("design", po::value(&design), "chosen.json of an explore run (or its results.json with --point)")(
      "point", po::value(&point), "with --design results.json: the id of the Pareto design to emit (any front design, "
      "not only the chosen one)")(
      "out", po::value(&out), "build folder to write")(
      "default-tree",
      "re-render the checkout's hls/include/design_config.h and hls/scripts/* from the default design "
      "(configs/models/atis_2enc.json, configs/arch/u50_paper.json, configs/devices/u50.json); the "
      "checkout is --hls-root, else $BUILD_WORKSPACE_DIRECTORY (bazel run), else the default search")(
      "hls-root", po::value(&hls_root), "folder holding the hls/ kernel tree (default: the working directory, else the checkout "
      "the ttsim binary was built from)");
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse_options("emit", "--design chosen.json --out DIR | --design results.json --point ID --out DIR | --default-tree [--hls-root DIR]", opts, pos, args, vm)) {
    return 0;
  }
  if (vm.count("default-tree")) {
    if (!design.empty() || !out.empty()) throw InputError("--default-tree takes no --design or --out");
    std::string root = hls_root;
    if (root.empty()) {
      const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
      root = ws ? ws : "";
    }
    root = dse::find_hls_root(root);
    for (const auto& f : dse::write_default_tree(root)) std::cout << "wrote " << f << "\n";
    return 0;
  }
  if (design.empty() || out.empty()) throw InputError("emit needs --design chosen.json and --out DIR (or --default-tree)");
  if (vm.count("point") && point < 0) throw InputError("--point " + std::to_string(point) + ": a point id is >= 0");
  const Json doc = load_json_file(design);
  const dse::HlsBuild build =
      vm.count("point") ? dse::hls_build_from_chosen(dse::front_design_as_chosen(doc, design, point),
                                                     design + " (front design " + std::to_string(point) + ")", hls_root)
                        : dse::hls_build_from_chosen(doc, design, hls_root);
  const dse::EmitReport r = dse::emit_hls_build(build, out, dse::EarlierFiles::kRefuse);
  for (const auto& n : r.notes) std::cerr << "ttsim emit: note: " << n << "\n";
  std::cout << "wrote " << out
            << "/{hls/include/design_config.h, hls/scripts/{run_hls.tcl, hls_config.cfg, " << r.link_cfg << "}, Makefile, "
               "README.md, reference_step.bin (the Eigen reference step reference_tb checks against), .ttsim-emit (marks "
               "the folder as emit's, for a later emit to replace)} and the hls/ kernel sources; `make -C "
            << out << " csim` runs the C simulation\n";
  return 0;
}

const CommandRegistration reg({"emit", "write the Vitis HLS build folder of a chosen design", run_emit_cmd});

}  // namespace
}  // namespace ttsim::cli
