#include "hls/calibration/power_fit.h"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "core/errors.h"

namespace ttsim::hls {
namespace {

std::string folder_of(const std::string& path) { return std::filesystem::path(path).parent_path().string(); }

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

}  // namespace

std::string report_file_stem(const std::string& path, const std::string& kind) {
  const std::string name = std::filesystem::path(path).filename().string();
  const std::size_t at = name.rfind("_" + kind);
  return at == std::string::npos ? name : name.substr(0, at);
}

const UtilizationReport* utilization_for(const PowerReport& p, const std::vector<UtilizationReport>& utilization) {
  std::vector<const UtilizationReport*> left;
  for (const auto& cand : utilization) {
    if (folder_of(cand.source) == folder_of(p.source)) left.push_back(&cand);
  }
  if (left.empty()) {
    throw InputError(p.source + ": no report_utilization (*utilization*.rpt) in the same folder; the power "
                     "fit needs the resources the design used");
  }
  const std::string stem = report_file_stem(p.source, "power");
  auto narrow = [&left](auto&& keep) {
    std::vector<const UtilizationReport*> kept;
    for (const UtilizationReport* u : left) {
      if (keep(*u)) kept.push_back(u);
    }
    if (!kept.empty()) left = kept;
  };
  narrow([&](const UtilizationReport& c) { return report_file_stem(c.source, "utilization") == stem; });
  narrow([](const UtilizationReport& c) { return c.design_state.rfind("Synth", 0) != 0; });
  narrow([&](const UtilizationReport& c) { return !p.design.empty() && c.design == p.design; });
  if (left.size() == 1) return left.front();
  std::string names;
  for (const UtilizationReport* u : left) names += (names.empty() ? "" : ", ") + u->source;
  throw InputError(p.source + ": " + std::to_string(left.size()) + " report_utilization files in its folder (" +
                   names + ") and none alone of its file stem \"" + stem +
                   "\", after placement and of its Design; keep the one of the build this power report is of");
}

namespace {

// The power of component `name` (a row of "1.1 On-Chip Components"): required when the
// design uses the resource (`used` > 0: Vivado omits the rows of resources a design does not
// use), else 0. InputError naming both reports when a used resource has no known row.
double component_of(const PowerReport& p, const UtilizationReport& u, const std::string& name, double used,
                    const std::string& what) {
  for (const auto& [n, w] : p.components) {
    if (n == name) return w;
  }
  if (used <= 0) return 0;
  throw InputError(p.source + ": \"1.1 On-Chip Components\" row \"" + name + "\": expected its power, found " +
                   "none (missing or unknown) while " + u.source + " uses " + fmt::format("{:g}", used) + " " +
                   what + "; the power fit needs it");
}

}  // namespace

std::vector<PowerSample> power_samples(const ReportSet& set) {
  std::vector<PowerSample> out;
  for (const PowerReport& p : set.power) {
    const UtilizationReport* u = utilization_for(p, set.utilization);
    if (!p.device.empty() && p.device != u->device) {
      throw InputError(p.source + ": device " + p.device + " differs from " + u->source + " device " + u->device);
    }
    if (!p.design.empty() && !u->design.empty() && p.design != u->design) {
      throw InputError(p.source + ": Design " + p.design + " differs from " + u->source + " Design " + u->design +
                       ": not the same build");
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
    s.dsp_w = component_of(p, *u, "DSPs", s.dsp, "DSPs");
    s.bram_w = component_of(p, *u, "Block RAM", s.bram36, "Block RAM tiles");
    s.uram_w = component_of(p, *u, "URAM", s.uram, "URAM");
    s.logic_w = component_of(p, *u, "CLB Logic", u->clb_luts.used, "CLB LUTs") +
                component_of(p, *u, "Signals", u->clb_luts.used, "CLB LUTs");
    s.clock_w = component_of(p, *u, "Clocks", u->clb_luts.used, "CLB LUTs");
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
