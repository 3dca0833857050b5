#pragma once
// report.html: one self-contained page a researcher reads in a browser, offline. It holds
// the sweep's provenance, the chosen design and why, where the reference designs stand,
// the plots (SVGs embedded as data URIs, each with its caption and a link to its CSV), the
// Pareto designs and every evaluated point as sortable, filterable tables (the rows of
// pareto.csv and results.csv), and the run's notes. Its style and script are inline
// (dse/report/report_assets.h); it fetches nothing.

#include <string>
#include <vector>

#include "dse/run/finish.h"
#include "dse/report/plots.h"
#include "dse/run/run_state.h"
#include "dse/evaluate/sweep_evaluator.h"

namespace ttsim::dse {

/// Writes <dir>/report.html (atomically) for the finished run. `plots` are the plots drawn
/// in `dir` (embedded), `notes` the run's extra notes (plots, emission) besides final.notes.
/// The page links the run's other files that exist in `dir`.
void write_report_html(const std::string& dir, const SweepEvaluator& eval, const RunState& state,
                       const FinalResult& final, const std::vector<PlotFile>& plots,
                       const std::vector<std::string>& notes);

}  // namespace ttsim::dse
