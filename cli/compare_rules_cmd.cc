// `ttsim compare-rules DIR [--rules hls|textbook] [--all] [--json OUT]`: evaluates the
// generic loop-latency composition rules (hls/reports/latency_rules.h) on every csynth
// report under DIR and prints predicted vs reported module latency and the MAPE.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/options.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "hls/reports/latency_rules.h"
#include "hls/reports/report_checks.h"
#include "hls/reports/report_set.h"

namespace ttsim::cli {
namespace {

using namespace ttsim::hls;

std::string relative(const std::string& path, const std::string& base) {
  return path.rfind(base, 0) == 0 ? path.substr(std::min(path.size(), base.size() + (base.back() == '/' ? 0 : 1)))
                                  : path;
}

// "12.34 %", or "n/a (no module evaluated)" when nothing was evaluated.
std::string pct_or_na(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f} %", *v) : std::string("n/a (no module evaluated)");
}

int run_compare_rules(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string dir, out, rules_name = "hls";
  double threshold = 5.0;
  options.add_options()
      ("dir", po::value<std::string>(&dir)->required(), "folder searched recursively for *csynth.xml")
      ("rules", po::value<std::string>(&rules_name)->default_value("hls"),
       "hls: (trip-1)*II + max(depth-1,1) for pipelined loops and one FSM state per loop/call "
       "plus one final state; textbook: (trip-1)*II + depth and trip * iteration latency only")
      ("all", po::bool_switch(), "print every evaluated module, not only those beyond --threshold")
      ("threshold", po::value<double>(&threshold)->default_value(5.0),
       "absolute error (percent) above which a module is listed as a miss")
      ("json", po::value<std::string>(&out), "write every result, skip and the MAPE as JSON here");
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  if (!parse_options("compare-rules", "DIR [--rules hls|textbook] [--all] [--threshold PCT] [--json OUT]",
                     options, pos, args, vm)) {
    return 0;
  }
  RuleSet rules;
  if (rules_name == "hls") rules = RuleSet::kHlsStates;
  else if (rules_name == "textbook") rules = RuleSet::kTextbook;
  else throw InputError("--rules: expected hls or textbook, found \"" + rules_name + "\"");

  const ReportSet s = read_reports(dir);
  if (s.csynth.empty()) throw InputError(dir + ": no *csynth.xml report found");
  for (const auto& r : s.csynth) {
    if (auto v = timing_violation(r)) std::cout << "warning: " << v->message() << "\n";
  }
  const RuleEvaluation ev = evaluate_rules(s.csynth, rules, s.cosim);
  const RuleEvaluation other =
      evaluate_rules(s.csynth, rules == RuleSet::kHlsStates ? RuleSet::kTextbook : RuleSet::kHlsStates, s.cosim);

  const bool all = vm["all"].as<bool>();
  std::cout << fmt::format("{:<46} {:<8} {:<58} {:>5} {:>5} {:>10} {:>10} {:>8}\n", "report", "version",
                           "module", "loops", "calls", "reported", "predicted", "error%");
  int misses = 0;
  for (const auto& r : ev.results) {
    const bool miss = std::fabs(r.error_pct()) > threshold;
    misses += miss;
    if (!all && !miss) continue;
    std::cout << fmt::format("{:<46} {:<8} {:<58} {:>5} {:>5} {:>10} {:>10} {:>+8.2f}{}{}\n",
                             relative(r.source, dir), r.tool_version, r.module, r.loops, r.calls,
                             r.reported, r.predicted, r.error_pct(), miss ? "  MISS" : "",
                             r.reported_source == "cosim" ? "  (reported = co-simulation, csynth undef)" : "");
  }
  std::cout << fmt::format(
      "\nrules {}: {} modules evaluated, MAPE {}, {} beyond {:.1f} %, {} skipped "
      "(incomplete data)\n(rules {}: MAPE {} on {} modules)\n",
      rules_name, ev.results.size(), pct_or_na(ev.mape()), misses, threshold, ev.skipped.size(),
      rules == RuleSet::kHlsStates ? "textbook" : "hls", pct_or_na(other.mape()), other.results.size());
  for (const auto& r : ev.results) {
    if (r.reported_source == "cosim") {
      std::cout << fmt::format("ground truth: {} in {}: csynth latency undef, co-simulation {} cycles ({})\n",
                               r.module, relative(r.source, dir), r.reported, relative(r.cosim_report, dir));
    }
  }
  for (const auto& k : ev.skipped) {
    if (k.reason.find("co-simulation") != std::string::npos) {
      std::cout << fmt::format("skipped {} in {}: {}\n", k.module, relative(k.source, dir), k.reason);
    }
  }
  // Per report: modules evaluated and their MAPE (large reports hold many similar modules).
  std::map<std::string, std::pair<int, double>> per_report;
  for (const auto& r : ev.results) {
    auto& [n, sum] = per_report[relative(r.source, dir)];
    ++n;
    sum += std::fabs(r.error_pct());
  }
  double mean_of_reports = 0;
  std::cout << "\nper report:\n";
  for (const auto& [src, v] : per_report) {
    std::cout << fmt::format("  {:<58} {:>5} modules  MAPE {:>6.2f} %\n", src, v.first, v.second / v.first);
    mean_of_reports += v.second / v.first / static_cast<double>(per_report.size());
  }
  std::cout << "  mean of the per-report MAPEs: "
            << (per_report.empty() ? std::string("n/a (no module evaluated)") : fmt::format("{:.2f} %", mean_of_reports))
            << "\n";
  std::map<std::string, int> reasons;
  for (const auto& k : ev.skipped) reasons[k.reason.substr(0, k.reason.find(" in "))]++;
  for (const auto& [why, n] : reasons) std::cout << fmt::format("  skipped {:>4}: {}\n", n, why);

  if (!out.empty()) {
    nlohmann::json j = {{"rules", rules_name}, {"mape_pct", ev.mape() ? nlohmann::json(*ev.mape()) : nlohmann::json(nullptr)},
                        {"modules_evaluated", ev.results.size()}, {"threshold_pct", threshold},
                        {"results", nlohmann::json::array()}, {"skipped", nlohmann::json::array()}};
    for (const auto& r : ev.results) {
      j["results"].push_back({{"source", r.source}, {"tool_version", r.tool_version}, {"module", r.module},
                              {"loops", r.loops}, {"calls", r.calls}, {"reported", r.reported},
                              {"predicted", r.predicted}, {"error_pct", r.error_pct()},
                              {"reported_source", r.reported_source},
                              {"cosim_report", r.cosim_report.empty() ? nlohmann::json(nullptr)
                                                                      : nlohmann::json(r.cosim_report)}});
    }
    for (const auto& k : ev.skipped)
      j["skipped"].push_back({{"source", k.source}, {"module", k.module}, {"reason", k.reason}});
    write_file_atomic(out, j.dump(2) + "\n");
    std::cout << "wrote " << out << "\n";
  }
  return 0;
}

const CommandRegistration kRegistration{
    {"compare-rules",
     "loop-latency composition rules vs csynth-reported module latency, per module, with MAPE",
     run_compare_rules}};

}  // namespace
}  // namespace ttsim::cli
