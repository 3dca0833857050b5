#include "hls/calibration/power_fit.h"

#include <filesystem>
#include <optional>

#include "core/errors.h"

namespace ttsim::hls {
namespace {

std::string folder_of(const std::string& path) { return std::filesystem::path(path).parent_path().string(); }

double component(const PowerReport& p, const std::string& name) {
  for (const auto& [n, w] : p.components) {
    if (n == name) return w;
  }
  return 0;  // Vivado omits the rows of resources the design does not use
}

// Least-squares slope through the origin of y over x, over samples with x > 0.
std::optional<double> slope(const std::vector<PowerSample>& s, double PowerSample::*units,
                            double PowerSample::*watts) {
  double xy = 0, xx = 0;
  for (const auto& p : s) {
    const double x = p.*units * p.clock_mhz;
    if (x <= 0) continue;
    xy += x * p.*watts;
    xx += x * x;
  }
  if (xx <= 0) return std::nullopt;
  return xy / xx;
}

// The file name's stem before "_power" / "_utilization" (Vivado's <design>_power_routed.rpt
// beside <design>_utilization_placed.rpt), or the whole name when it has neither.
std::string report_stem(const std::string& path, const std::string& kind) {
  const std::string name = std::filesystem::path(path).filename().string();
  const std::size_t at = name.find("_" + kind);
  return at == std::string::npos ? name : name.substr(0, at);
}

// The report_utilization of the build `p` reports on: the one in its folder; where the folder
// holds several, narrowed step by step — those of its file stem, then those after placement
// (not "Design State : Synthesized": the power report is of the implemented design), then
// those of its Design — each step kept only when some candidate passes it. InputError naming
// the candidates when none or more than one remains.
const UtilizationReport* utilization_for(const PowerReport& p, const ReportSet& set) {
  std::vector<const UtilizationReport*> left;
  for (const auto& cand : set.utilization) {
    if (folder_of(cand.source) == folder_of(p.source)) left.push_back(&cand);
  }
  if (left.empty()) {
    throw InputError(p.source + ": no report_utilization (*utilization*.rpt) in the same folder; the power "
                     "fit needs the resources the design used");
  }
  const std::string stem = report_stem(p.source, "power");
  auto narrow = [&left](auto&& keep) {
    std::vector<const UtilizationReport*> kept;
    for (const UtilizationReport* u : left) {
      if (keep(*u)) kept.push_back(u);
    }
    if (!kept.empty()) left = kept;
  };
  narrow([&](const UtilizationReport& c) { return report_stem(c.source, "utilization") == stem; });
  narrow([](const UtilizationReport& c) { return c.design_state.rfind("Synth", 0) != 0; });
  narrow([&](const UtilizationReport& c) { return !p.design.empty() && c.design == p.design; });
  if (left.size() == 1) return left.front();
  std::string names;
  for (const UtilizationReport* u : left) names += (names.empty() ? "" : ", ") + u->source;
  throw InputError(p.source + ": " + std::to_string(left.size()) + " report_utilization files in its folder (" +
                   names + ") equally of its file stem \"" + stem +
                   "\", implementation state and Design; keep the one of the build this power report is of");
}

}  // namespace

std::vector<PowerSample> power_samples(const ReportSet& set) {
  std::vector<PowerSample> out;
  for (const PowerReport& p : set.power) {
    const UtilizationReport* u = utilization_for(p, set);
    if (!p.device.empty() && p.device != u->device) {
      throw InputError(p.source + ": device " + p.device + " differs from " + u->source + " device " + u->device);
    }
    std::optional<double> ns;
    for (const auto& [clk, period] : p.clocks) {
      if (clk == "ap_clk" || !ns) ns = period;
    }
    if (!ns || *ns <= 0) {
      throw InputError(p.source + ": \"2.2 Clock Constraints\": no clock period; cannot express power per MHz");
    }
    PowerSample s;
    s.power_source = p.source;
    s.utilization_source = u->source;
    s.device = u->device;
    s.clock_mhz = 1000.0 / *ns;
    s.dsp = u->dsp.used;
    s.bram36 = u->block_ram_tile.used;
    s.uram = u->uram ? u->uram->used : 0;
    s.kilo_lut = u->clb_luts.used / 1000.0;
    s.dsp_w = component(p, "DSPs");
    s.bram_w = component(p, "Block RAM");
    s.uram_w = component(p, "URAM");
    s.logic_w = component(p, "CLB Logic") + component(p, "Signals");
    s.clock_w = component(p, "Clocks");
    s.static_w = p.device_static_w;
    out.push_back(s);
  }
  return out;
}

PowerFitRecord fit_power(const std::vector<PowerSample>& samples) {
  if (samples.empty()) throw InputError("power fit: no report_power / report_utilization pair");
  PowerFitRecord f;
  double st = 0;
  for (const auto& s : samples) {
    st += s.static_w;
    f.reports.push_back(s.power_source);
  }
  f.static_watts = st / static_cast<double>(samples.size());
  f.dsp_watts_per_mhz = slope(samples, &PowerSample::dsp, &PowerSample::dsp_w);
  f.bram36_watts_per_mhz = slope(samples, &PowerSample::bram36, &PowerSample::bram_w);
  f.uram_watts_per_mhz = slope(samples, &PowerSample::uram, &PowerSample::uram_w);
  f.logic_watts_per_kilolut_mhz = slope(samples, &PowerSample::kilo_lut, &PowerSample::logic_w);
  f.clock_watts_per_kilolut_mhz = slope(samples, &PowerSample::kilo_lut, &PowerSample::clock_w);
  return f;
}

}  // namespace ttsim::hls
