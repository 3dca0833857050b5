#pragma once
// The loop-latency rules' evaluation (hls/reports/latency_rules.h) as `ttsim
// compare-rules` prints and writes it: the per-module table, the summary with the other
// rule set's MAPE, the co-simulation ground truths, the per-report MAPEs, the skip reasons,
// and the JSON document. Report paths are printed relative to the folder searched.

#include <optional>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "hls/reports/csynth.h"
#include "hls/reports/latency_rules.h"

namespace ttsim::hls {

/// One report set: the reports under one folder directly below the folder searched ("."
/// for reports directly in it), e.g. one build.
struct RuleSetSummary {
  std::string set;         ///< folder below the one searched, or "."
  int files = 0;           ///< csynth files read
  int modules_read = 0;    ///< distinct modules (ModuleInformation entries, else tops) per folder
  int unknowns = 0;        ///< distinct values read as unknown (module, field) per folder
  int contradictions = 0;  ///< distinct contradictions (report_consistency.h) per folder
  int evaluated = 0;       ///< modules the rules evaluated
  std::optional<double> mape;  ///< their MAPE (percent); empty when none was evaluated
};

/// What one `compare-rules` run evaluated: the rule set asked for and the other one.
struct RulesComparison {
  std::string rules_name;   ///< "hls" or "textbook", the set of `ev`
  RuleEvaluation ev;        ///< with the rule set asked for
  RuleEvaluation other;     ///< with the other rule set (its MAPE only is printed)
  std::string dir;          ///< folder the reports were read from
  double threshold = 5.0;   ///< |error| in % above which a module is a miss
  std::vector<RuleSetSummary> sets;  ///< per report set (rule_sets)
};

/// The summary of every report set of `reports` (read from `c.dir`) with the results of
/// `c.ev`, in folder order.
std::vector<RuleSetSummary> rule_sets(const RulesComparison& c, const std::vector<CsynthReport>& reports);

/// A blank line, "per set:" and one line per set of `c.sets`: files, modules read, unknown
/// values, contradictions, modules evaluated and MAPE (n/a when none).
std::string rule_per_set(const RulesComparison& c);

/// Modules of `c.ev` whose |error| exceeds the threshold.
int rule_misses(const RulesComparison& c);

/// Header "report version module loops calls reported predicted error%" and one row per
/// module of `c.ev` (all of them with `all`, else the misses only; misses flagged "MISS",
/// co-simulated ground truth noted).
std::string rule_results_table(const RulesComparison& c, bool all);

/// A blank line, the summary ("rules <name>: N modules evaluated, MAPE .., M beyond ..,
/// K skipped" and the other set's MAPE), one line per co-simulation ground truth and per
/// module skipped for a co-simulation reason, one per module skipped because its report
/// contradicts itself (with the numbers), and a line counting the modules skipped for what
/// the rule does not model (dataflow, other pipeline styles) by reason.
std::string rule_summary(const RulesComparison& c);

/// A blank line, "per report:", each report's modules and MAPE (%), the mean of the
/// per-report MAPEs, and the count of skipped modules per reason.
std::string rule_per_report(const RulesComparison& c);

/// The --json document: {rules, mape_pct (null when nothing was evaluated),
/// modules_evaluated, threshold_pct, results [{source, tool_version, module, loops, calls,
/// reported, predicted, error_pct, reported_source, cosim_report}], skipped [{source,
/// module, reason}], sets [{set, files, modules_read, unknowns, contradictions,
/// modules_evaluated, mape_pct}]}. Paths as read (not relative).
Json rules_json(const RulesComparison& c);

}  // namespace ttsim::hls
