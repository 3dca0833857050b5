// `ttsim emit --design chosen.json --out DIR`: the Vitis HLS build folder of a design.

#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "dse/emit.h"

namespace ttsim::cli {
namespace {

int run_emit_cmd(const std::vector<std::string>& args) {
  po::options_description opts("options");
  std::string design, out, hls_root;
  opts.add_options()("design", po::value(&design)->required(), "chosen.json of an explore run")(
      "out", po::value(&out)->required(), "build folder to write")(
      "hls-root", po::value(&hls_root), "folder holding the hls/ kernel tree (default: the working directory, else the checkout "
      "the ttsim binary was built from)");
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse_options("emit", "--design chosen.json --out DIR", opts, pos, args, vm)) return 0;
  dse::emit_design(load_json_file(design), design, out, hls_root);
  std::cout << "wrote " << out
            << "/{hls/include/design_config.h, run_hls.tcl, hls_config.cfg, link.cfg, Makefile, README.md}"
               " and the hls/ kernel sources; `make -C "
            << out << " csim` runs the C simulation\n";
  return 0;
}

const CommandRegistration reg({"emit", "write the Vitis HLS build folder of a chosen design", run_emit_cmd});

}  // namespace
}  // namespace ttsim::cli
