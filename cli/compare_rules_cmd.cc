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
#include "cli/output_files.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "hls/reports/latency_rules.h"
#include "hls/reports/report_checks.h"
#include "hls/reports/report_set.h"
#include "hls/reports/rules_report.h"

namespace ttsim::cli {
namespace {

using namespace ttsim::hls;

int run_compare_rules(const std::vector<std::string>& args) {
  po::options_description options("options");
  RulesComparison c;
  std::string out;
  options.add_options()
      ("dir", po::value<std::string>(&c.dir)->required(), "folder searched recursively for *csynth.xml")
      ("rules", po::value<std::string>(&c.rules_name)->default_value("hls"),
       "hls: (trip-1)*II + max(depth-1,1) for pipelined loops and one FSM state per loop/call "
       "plus one final state; textbook: (trip-1)*II + depth and trip * iteration latency only")
      ("all", po::bool_switch(), "print every evaluated module, not only those beyond --threshold")
      ("threshold", po::value<double>(&c.threshold)->default_value(5.0),
       "absolute error (percent) above which a module is listed as a miss")
      ("json", po::value<std::string>(&out), "write every result, skip and the MAPE as JSON here");
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  if (!parse_options("compare-rules", "DIR [--rules hls|textbook] [--all] [--threshold PCT] [--json OUT]",
                     options, pos, args, vm)) {
    return 0;
  }
  if (!std::isfinite(c.threshold) || c.threshold < 0) {
    throw InputError(fmt::format("--threshold: expected a percentage >= 0, found {}", c.threshold));
  }
  RuleSet rules;
  if (c.rules_name == "hls") rules = RuleSet::kHlsStates;
  else if (c.rules_name == "textbook") rules = RuleSet::kTextbook;
  else throw InputError("--rules: expected hls or textbook, found \"" + c.rules_name + "\"");

  refuse_output_inside({"--json", out}, {"DIR", c.dir});
  check_output_writable({"--json", out});
  const ReportSet s = read_reports(c.dir);
  if (s.csynth.empty()) throw InputError(c.dir + ": no *csynth.xml report found");
  std::cout << timing_warnings(s.csynth);
  c.ev = evaluate_rules(s.csynth, rules, s.cosim);
  c.other = evaluate_rules(s.csynth, rules == RuleSet::kHlsStates ? RuleSet::kTextbook : RuleSet::kHlsStates, s.cosim);
  c.sets = rule_sets(c, s.csynth);
  std::cout << rule_results_table(c, vm["all"].as<bool>()) << rule_summary(c) << rule_per_report(c)
            << rule_per_set(c);
  if (!out.empty()) {
    write_file_atomic(out, rules_json(c).dump(2) + "\n");
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
