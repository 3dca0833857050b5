#include "dse/emit/build_design.h"

#include "hw/ff_estimate.h"

#include "sim/machine_luts.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <utility>
#include <vector>

#include "core/errors.h"
#include "core/json_view.h"
#include "models/training_graph.h"
#include "sim/step_sim.h"

namespace ttsim::dse {

namespace fs = std::filesystem;

const char* const kDefaultModelFile = "configs/models/atis_2enc.json";
const char* const kDefaultArchFile = "configs/arch/u50_paper.json";
const char* const kDefaultDeviceFile = "configs/devices/u50.json";

void check_emit_name(const std::string& name, const std::string& file, const std::string& pointer) {
  const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '+' || c == '-';
  });
  if (!ok) {
    throw ConfigError(file, pointer,
                      "a non-empty name of the characters A-Z a-z 0-9 _ . + - (it is written into "
                      "run_hls.tcl, hls_config.cfg, the link config, README.md and design_config.h)",
                      Json(name).dump());
  }
}

std::string configs_phrase(const BuildDesign& d) {
  std::string s = "model " + d.model.name + ", arch " + d.arch.name;
  if (d.sweep_point) s += " with the sweep point's axis values written in";
  return s;
}

BuildDesign make_build_design(ModelSpec model, ArchSpec arch, DeviceSpec device, std::string label,
                              const std::string& file, const machine::Machine* described, double headroom_pct) {
  BuildDesign d;
  check_emit_name(model.name, file, "/configs/model/name");
  if (!label.empty()) check_emit_name(label, file, "/name");
  d.label = label.empty() ? model.name : std::move(label);
  check_emit_name(arch.name, file, "/configs/arch/name");
  check_emit_name(device.name, file, "/configs/device/name");
  check_emit_name(device.part, file, "/configs/device/part");
  check_emit_name(device.platform, file, "/configs/device/platform");
  d.model = std::move(model);
  d.arch = std::move(arch);
  d.device = std::move(device);
  machine::check_buildable(d.arch);
  check_clock_within_device(d.arch.clock_mhz, d.device, file + ": /configs/arch/clock_mhz",
                            file + ": /configs/device/clocks/max_mhz");
  d.hls = machine::hls_design(d.model, d.arch, file + " (/configs/arch)");
  const TaskGraph graph = build_training_graph(d.model, graph_options(d.arch, 0));
  d.machine = described ? *described : machine::describe(d.model, d.arch, d.device, graph);
  // The one fit rule, with the LUT estimate of the machine (the figure `simulate` prints).
  d.lut_estimate = machine_lut_terms(d.machine, graph, d.arch).total();
  const std::vector<std::string> over =
      machine::over_device(d.machine, d.lut_estimate,
                           design_ff_terms(d.arch).total(), d.arch.clock_mhz, d.device, headroom_pct);
  if (!over.empty()) {
    std::string s;
    for (const auto& o : over) s += (s.empty() ? "" : "; ") + o;
    throw InputError(file + ": design \"" + d.label + "\" does not fit device " + d.device.name + " (" +
                     d.device.part + "): " + s);
  }
  return d;
}

BuildDesign default_design(const std::string& root) {
  const fs::path r(root);
  const std::string arch_file = (r / kDefaultArchFile).string();
  const std::string device_file = (r / kDefaultDeviceFile).string();
  ArchSpec arch = load_arch_spec(arch_file);
  DeviceSpec device = load_device_spec(device_file);
  check_clock_within_device(arch.clock_mhz, device, arch_file + ": /clock_mhz", device_file);
  return make_build_design(load_model_spec((r / kDefaultModelFile).string()), std::move(arch), std::move(device), "",
                           arch_file);
}


}  // namespace ttsim::dse
