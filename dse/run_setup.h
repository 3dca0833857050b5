#pragma once
// Everything `ttsim explore` and `ttsim merge` need to run a sweep with the simulator:
// the sweep, the simulator-backed evaluators, the rank-accuracy table when present,
// and the extra outputs (plots, report.html, the emitted HLS build).

#include <memory>
#include <string>

#include "dse/emit/hls_build.h"
#include "dse/run/explore.h"
#include "dse/evaluate/sim_evaluator.h"
#include "dse/space/sweep_spec.h"
#include "hw/calibration.h"

namespace ttsim::dse {

/// A sweep ready to run: the parsed spec, the analytic and SystemC evaluators over its
/// resolved configs (calibration applied) and the sweep evaluation that drives them.
struct RunSetup {
  SweepSpec sweep;
  std::unique_ptr<SimEvaluator> analytic;
  std::unique_ptr<SimEvaluator> systemc;
  std::unique_ptr<SweepEvaluator> eval;
};

/// Loads `sweep_file` and builds the evaluators. With `calibration_file` (from `ttsim
/// calibrate`), every point is evaluated with it: refused (InputError, as `simulate
/// --calibration`) when it was fitted for another part than the sweep's device or
/// another clock than any clock the sweep's points use; recorded in the results.
/// Throws InputError / ConfigError.
std::unique_ptr<RunSetup> make_run_setup(const std::string& sweep_file,
                                         const std::string& calibration_file = "");

/// Clocks (MHz) the points of `sweep` run at: the values of its clock axes
/// ("clock_mhz", "arch:/clock_mhz") and the base arch's clock when some point keeps it.
std::vector<double> sweep_clocks_mhz(const SweepSpec& sweep);

/// The calibration record written to results.json and state.json.
Json calibration_record(const Calibration& c);

/// The build description of the chosen design of `final` (a finished run: final.chosen
/// set), from the run's memory rather than chosen.json: the resolved model and arch of
/// final.chosen_detail (else the analytic evaluator's resolved configs), eval.device(),
/// the machine its detailed evaluation was simulated on (final.chosen_detail.machine; described
/// again only when the evaluator keeps none), and the provenance chosen.json records — the point's name as the label, the fidelity
/// and metrics of its best evaluation (non-finite = null), final.why. `source` names the
/// design in messages and README.md (explore gives <out>/chosen.json, which holds the same
/// design); `hls_root` as find_hls_root. Emitting it writes the same bytes as `ttsim emit
/// --design <out>/chosen.json`. Throws as make_hls_build and the spec parsers.
HlsBuild chosen_hls_build(const SweepEvaluator& eval, const RunState& state, const FinalResult& final,
                          const std::string& source, const std::string& hls_root);

/// The extra-outputs hook: SVG plots, (for complete runs with a chosen design) the
/// emitted HLS build in <dir>/hls_build (chosen_hls_build, emit_hls_build) from the kernel
/// tree under `hls_root` (see find_hls_root in dse/emit/hls_build.h; resolve it before the
/// run so a missing tree fails early), then summary.md again listing exactly the files written, and report.html.
std::function<std::vector<std::string>(const std::string&, const RunState&, const FinalResult&,
                                       const std::vector<std::string>&)>
standard_extra_outputs(const RunSetup& setup, const std::string& hls_root);

}  // namespace ttsim::dse
