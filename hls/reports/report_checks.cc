#include "hls/reports/report_checks.h"

#include <filesystem>

#include <fmt/format.h>

namespace ttsim::hls {
namespace {

namespace fs = std::filesystem;

std::optional<TimingViolation> check(const std::string& source, const std::string& module,
                                     const std::optional<double>& target, const std::optional<double>& estimated) {
  if (!target || !estimated || *estimated <= *target + 1e-9) return std::nullopt;
  return TimingViolation{source, module, *target, *estimated};
}

}  // namespace

std::string TimingViolation::message() const {
  return fmt::format("{}: {}: estimated clock {:.3f} ns above the {:.3f} ns target (timing not met; achievable "
                     "{:.1f} MHz instead of {:.1f} MHz)",
                     source, module, estimated_ns, target_ns, 1000.0 / estimated_ns, 1000.0 / target_ns);
}

std::optional<TimingViolation> timing_violation(const CsynthReport& r) {
  return check(r.source, r.top, r.target_clock_ns, r.estimated_clock_ns);
}

std::optional<TimingViolation> module_timing_violation(const CsynthReport& r, const std::string& name) {
  if (const ModuleReport* m = r.module(name)) {
    if (m->target_clock_ns && m->estimated_clock_ns) {
      return check(r.source, name, m->target_clock_ns, m->estimated_clock_ns);
    }
  }
  if (name == r.top) return timing_violation(r);
  return std::nullopt;
}

std::optional<CosimLatency> cosim_latency_for(const CsynthReport& r, const std::vector<CosimReport>& cosim) {
  const fs::path folder = fs::path(r.source).parent_path();
  const std::string name = r.top + "_cosim.rpt";
  std::vector<fs::path> candidates = {folder / name};
  if (folder.filename() == "report" && folder.parent_path().filename() == "syn") {
    candidates.push_back(folder.parent_path().parent_path() / "sim" / "report" / name);
  }
  for (const CosimReport& c : cosim) {
    bool match = false;
    for (const auto& p : candidates) match = match || fs::path(c.source).lexically_normal() == p.lexically_normal();
    if (!match) continue;
    const CosimRun* run = c.passed();
    if (!run || !run->latency_min.known() || !run->latency_max.known()) continue;
    return CosimLatency{c.source, run->rtl, Count::range(*run->latency_min.min, *run->latency_max.max)};
  }
  return std::nullopt;
}

std::string timing_warnings(const std::vector<CsynthReport>& csynth) {
  std::string s;
  for (const auto& r : csynth) {
    if (auto v = timing_violation(r)) s += "warning: " + v->message() + "\n";
  }
  return s;
}

Json timing_violations_json(const std::vector<CsynthReport>& csynth) {
  Json timing = Json::array();
  for (const auto& r : csynth) {
    if (auto v = timing_violation(r)) {
      timing.push_back({{"report", r.source}, {"module", v->module}, {"target_clock_ns", v->target_ns},
                        {"estimated_clock_ns", v->estimated_ns}});
    }
  }
  return timing;
}

}  // namespace ttsim::hls
