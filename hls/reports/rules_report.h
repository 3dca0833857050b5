#pragma once
// The loop-latency rules' evaluation (hls/reports/latency_rules.h) as `ttsim
// compare-rules` prints and writes it: the per-module table, the summary with the other
// rule set's MAPE, the co-simulation ground truths, the per-report MAPEs, the skip reasons,
// and the JSON document. Report paths are printed relative to the folder searched.

#include <string>

#include "core/json_view.h"
#include "hls/reports/latency_rules.h"

namespace ttsim::hls {

/// What one `compare-rules` run evaluated: the rule set asked for and the other one.
struct RulesComparison {
  std::string rules_name;   ///< "hls" or "textbook", the set of `ev`
  RuleEvaluation ev;        ///< with the rule set asked for
  RuleEvaluation other;     ///< with the other rule set (its MAPE only is printed)
  std::string dir;          ///< folder the reports were read from
  double threshold = 5.0;   ///< |error| in % above which a module is a miss
};

/// Modules of `c.ev` whose |error| exceeds the threshold.
int rule_misses(const RulesComparison& c);

/// Header "report version module loops calls reported predicted error%" and one row per
/// module of `c.ev` (all of them with `all`, else the misses only; misses flagged "MISS",
/// co-simulated ground truth noted).
std::string rule_results_table(const RulesComparison& c, bool all);

/// A blank line, the summary ("rules <name>: N modules evaluated, MAPE .., M beyond ..,
/// K skipped" and the other set's MAPE), one line per co-simulation ground truth and per
/// module skipped for a co-simulation reason.
std::string rule_summary(const RulesComparison& c);

/// A blank line, "per report:", each report's modules and MAPE (%), the mean of the
/// per-report MAPEs, and the count of skipped modules per reason.
std::string rule_per_report(const RulesComparison& c);

/// The --json document: {rules, mape_pct (null when nothing was evaluated),
/// modules_evaluated, threshold_pct, results [{source, tool_version, module, loops, calls,
/// reported, predicted, error_pct, reported_source, cosim_report}], skipped [{source,
/// module, reason}]}. Paths as read (not relative).
Json rules_json(const RulesComparison& c);

}  // namespace ttsim::hls
