#include "hls/reports/rules_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "hls/reports/report_consistency.h"

namespace ttsim::hls {
namespace {

std::string relative(const std::string& path, const std::string& base) {
  return path.rfind(base, 0) == 0 ? path.substr(std::min(path.size(), base.size() + (base.back() == '/' ? 0 : 1)))
                                  : path;
}

// "12.34 %", or "n/a (no module evaluated)" when nothing was evaluated.
std::string pct_or_na(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f} %", *v) : std::string("n/a (no module evaluated)");
}

bool is_miss(const RuleResult& r, double threshold) { return std::fabs(r.error_pct()) > threshold; }

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

/// The set of a report path: its first folder below `dir`, "." when it lies directly in it.
std::string set_of(const std::string& path, const std::string& dir) {
  const std::filesystem::path rel(relative(path, dir));
  return rel.has_parent_path() ? rel.begin()->string() : ".";
}

/// Modules skipped for what the rule does not model, counted by reason (loop names left out).
std::string unmodelled_line(const RuleEvaluation& ev) {
  std::map<std::string, int> by_reason;
  for (const auto& k : ev.skipped) {
    if (k.reason.find(kNotModelled) == std::string::npos || starts_with(k.reason, kContradicts)) continue;
    std::string r = k.reason.substr(0, k.reason.find(kNotModelled));
    if (starts_with(r, "loop ")) r = "a loop's " + r.substr(r.find(": ") + 2);
    while (!r.empty() && (r.back() == ' ' || r.back() == ':')) r.pop_back();
    by_reason[r]++;
  }
  if (by_reason.empty()) return "";
  std::string s;
  for (const auto& [why, n] : by_reason) s += fmt::format("{}{} ({} module{})", s.empty() ? "" : "; ", why, n, n == 1 ? "" : "s");
  return std::string(kNotModelled) + ", skipped: " + s + "\n";
}

}  // namespace

int rule_misses(const RulesComparison& c) {
  int misses = 0;
  for (const auto& r : c.ev.results) misses += is_miss(r, c.threshold);
  return misses;
}

std::string rule_results_table(const RulesComparison& c, bool all) {
  std::string s = fmt::format("{:<46} {:<8} {:<58} {:>5} {:>5} {:>10} {:>10} {:>8}\n", "report", "version", "module",
                              "loops", "calls", "reported", "predicted", "error%");
  for (const auto& r : c.ev.results) {
    const bool miss = is_miss(r, c.threshold);
    if (!all && !miss) continue;
    s += fmt::format("{:<46} {:<8} {:<58} {:>5} {:>5} {:>10} {:>10} {:>+8.2f}{}{}\n", relative(r.source, c.dir),
                     r.tool_version, r.module, r.loops, r.calls, r.reported, r.predicted, r.error_pct(),
                     miss ? "  MISS" : "",
                     r.reported_source == "cosim" ? "  (reported = co-simulation, csynth undef)" : "");
  }
  return s;
}

std::string rule_summary(const RulesComparison& c) {
  std::string s = fmt::format(
      "\nrules {}: {} modules evaluated, MAPE {}, {} beyond {:.1f} %, {} skipped "
      "(incomplete data)\n(rules {}: MAPE {} on {} modules)\n",
      c.rules_name, c.ev.results.size(), pct_or_na(c.ev.mape()), rule_misses(c), c.threshold, c.ev.skipped.size(),
      c.rules_name == "hls" ? "textbook" : "hls", pct_or_na(c.other.mape()), c.other.results.size());
  for (const auto& r : c.ev.results) {
    if (r.reported_source == "cosim") {
      s += fmt::format("ground truth: {} in {}: csynth latency undef, co-simulation {} cycles ({})\n", r.module,
                       relative(r.source, c.dir), r.reported, relative(r.cosim_report, c.dir));
    }
  }
  for (const auto& k : c.ev.skipped) {
    if (k.reason.find("co-simulation") != std::string::npos || starts_with(k.reason, kContradicts)) {
      s += fmt::format("skipped {} in {}: {}\n", k.module, relative(k.source, c.dir), k.reason);
    }
  }
  return s + unmodelled_line(c.ev);
}

std::vector<RuleSetSummary> rule_sets(const RulesComparison& c, const std::vector<CsynthReport>& reports) {
  std::map<std::string, RuleSetSummary> sets;
  std::set<std::tuple<std::string, std::string, std::string>> modules, unknowns, contradicted;  // (folder, module, what)
  for (const auto& r : reports) {
    RuleSetSummary& s = sets[set_of(r.source, c.dir)];
    const std::string folder = std::filesystem::path(r.source).parent_path().string();
    ++s.files;
    if (r.modules.empty()) s.modules_read += modules.insert({folder, r.top, ""}).second;
    for (const auto& m : r.modules) s.modules_read += modules.insert({folder, m.name, ""}).second;
    for (const auto& u : r.unknowns) s.unknowns += unknowns.insert({folder, u.module, u.field}).second;
    for (const auto& k : contradictions(r)) s.contradictions += contradicted.insert({folder, k.module, k.what}).second;
  }
  std::map<std::string, double> error_sum;
  for (const auto& r : c.ev.results) {
    RuleSetSummary& s = sets[set_of(r.source, c.dir)];
    ++s.evaluated;
    error_sum[set_of(r.source, c.dir)] += std::fabs(r.error_pct());
  }
  std::vector<RuleSetSummary> out;
  for (auto& [name, s] : sets) {
    s.set = name;
    if (s.evaluated > 0) s.mape = error_sum[name] / s.evaluated;
    out.push_back(s);
  }
  return out;
}

std::string rule_per_set(const RulesComparison& c) {
  std::string s = fmt::format("\nper set:\n  {:<40} {:>5} {:>12} {:>14} {:>14} {:>9}  {}\n", "set", "files",
                              "modules read", "unknown values", "contradictions", "evaluated", "MAPE");
  for (const auto& x : c.sets) {
    s += fmt::format("  {:<40} {:>5} {:>12} {:>14} {:>14} {:>9}  {}\n", x.set, x.files, x.modules_read, x.unknowns,
                     x.contradictions, x.evaluated, x.mape ? fmt::format("{:.2f} %", *x.mape) : std::string("n/a"));
  }
  return s;
}

std::string rule_per_report(const RulesComparison& c) {
  // Per report: modules evaluated and their MAPE (large reports hold many similar modules).
  std::map<std::string, std::pair<int, double>> per_report;
  for (const auto& r : c.ev.results) {
    auto& [n, sum] = per_report[relative(r.source, c.dir)];
    ++n;
    sum += std::fabs(r.error_pct());
  }
  double mean_of_reports = 0;
  std::string s = "\nper report:\n";
  for (const auto& [src, v] : per_report) {
    s += fmt::format("  {:<58} {:>5} modules  MAPE {:>6.2f} %\n", src, v.first, v.second / v.first);
    mean_of_reports += v.second / v.first / static_cast<double>(per_report.size());
  }
  s += "  mean of the per-report MAPEs: " +
       (per_report.empty() ? std::string("n/a (no module evaluated)") : fmt::format("{:.2f} %", mean_of_reports)) +
       "\n";
  std::map<std::string, int> reasons;
  for (const auto& k : c.ev.skipped) reasons[k.reason.substr(0, k.reason.find(" in "))]++;
  for (const auto& [why, n] : reasons) s += fmt::format("  skipped {:>4}: {}\n", n, why);
  return s;
}

Json rules_json(const RulesComparison& c) {
  const RuleEvaluation& ev = c.ev;
  Json j = {{"rules", c.rules_name}, {"mape_pct", ev.mape() ? Json(*ev.mape()) : Json(nullptr)},
            {"modules_evaluated", ev.results.size()}, {"threshold_pct", c.threshold},
            {"results", Json::array()}, {"skipped", Json::array()}};
  for (const auto& r : ev.results) {
    j["results"].push_back({{"source", r.source}, {"tool_version", r.tool_version}, {"module", r.module},
                            {"loops", r.loops}, {"calls", r.calls}, {"reported", r.reported},
                            {"predicted", r.predicted}, {"error_pct", r.error_pct()},
                            {"reported_source", r.reported_source},
                            {"cosim_report", r.cosim_report.empty() ? Json(nullptr) : Json(r.cosim_report)}});
  }
  for (const auto& k : ev.skipped) j["skipped"].push_back({{"source", k.source}, {"module", k.module}, {"reason", k.reason}});
  j["sets"] = Json::array();
  for (const auto& x : c.sets) {
    j["sets"].push_back({{"set", x.set}, {"files", x.files}, {"modules_read", x.modules_read},
                         {"unknowns", x.unknowns}, {"contradictions", x.contradictions},
                         {"modules_evaluated", x.evaluated}, {"mape_pct", x.mape ? Json(*x.mape) : Json(nullptr)}});
  }
  return j;
}

}  // namespace ttsim::hls
