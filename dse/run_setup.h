#pragma once
// Everything `ttsim explore` and `ttsim merge` need to run a sweep with the simulator:
// the sweep, the simulator-backed evaluators, the rank-accuracy table when present,
// and the extra outputs (plots, report.html, the emitted HLS build).

#include <memory>
#include <string>

#include "dse/explore.h"
#include "dse/sim_evaluator.h"
#include "dse/sweep_spec.h"

namespace ttsim::dse {

struct RunSetup {
  SweepSpec sweep;
  std::unique_ptr<AnalyticSimEvaluator> analytic;
  std::unique_ptr<SystemcSimEvaluator> systemc;
  std::unique_ptr<SweepEvaluation> eval;
};

/// Loads `sweep_file` and builds the evaluators. Throws InputError / ConfigError.
std::unique_ptr<RunSetup> make_run_setup(const std::string& sweep_file);

/// The extra-outputs hook: SVG plots, report.html and (for complete runs with a chosen
/// design) the emitted HLS build in <dir>/hls_build.
std::function<void(const std::string&, const FinalResult&)> standard_extra_outputs(const RunSetup& setup);

}  // namespace ttsim::dse
