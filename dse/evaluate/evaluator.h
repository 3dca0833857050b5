#pragma once
// The interface between the explorer and whatever computes a design point's metrics:
// the analytic evaluator and the SystemC engine of //sim in production, a toy function
// in tests (so the search strategies can be checked on spaces with a known front).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "dse/space/design_space.h"
#include "dse/space/metrics.h"
#include "sim/fidelity.h"

namespace ttsim::machine {
struct Machine;
}  // namespace ttsim::machine

namespace ttsim::dse {

/// A design point resolved into concrete configuration documents: the base model and
/// arch files with the point's axis values applied (see dse/space/axes.h). The design as an
/// evaluator's input, not a result: the types of a point's results are Evaluation (one
/// evaluation), PointRecord (its evaluations, dse/run/run_state.h), PointSummary (what a run
/// keeps of them in memory, ibid.), Candidate (what the search ranks, dse/search/pareto.h) and
/// ResultRow (what the outputs show, dse/run/result_rows.h).
struct PointConfig {
  PointId id = 0;
  const DesignSpace* space = nullptr;
  /// The model config document (configs/models schema) and the arch's (configs/arch schema),
  /// shared and never changed once set: neighbouring points of a sweep share them
  /// (resolve_point), and a parse memo knows a document it has seen by its address.
  std::shared_ptr<const Json> model_doc, arch_doc;
  std::string model_file;   ///< file the base model came from (for error messages)
  std::string arch_file;

  /// *model_doc, or a null document when it is not set.
  const Json& model() const;
  /// *arch_doc, or a null document when it is not set.
  const Json& arch() const;

  /// Value of the axis named `name` at this point, or nullptr when the space has no
  /// such axis or the point keeps the base value.
  const Json* axis_value(const std::string& name) const;
};

/// Result of evaluating one point at one fidelity: the one evaluation type of the explorer
/// (written to the run's log, read back from it, shown by every output).
struct Evaluation {
  MetricValues metrics;   ///< NaN where unavailable
  std::string error;      ///< non-empty when the point could not be built or simulated
  Fidelity fidelity = Fidelity::kAnalytic;  ///< the evaluator's (SweepEvaluator::evaluate sets it)
  /// Set by the sweep from its rank-accuracy table (dse/accuracy/accuracy_table.h): the uniform
  /// TT rank of the point (0 when its TT layers differ in rank or it has none) and how
  /// kAccuracy / kSlotF1 were obtained: "table", "interpolated", "per_layer_model",
  /// "unknown", or "" (no table).
  std::int64_t tt_rank = 0;
  std::string accuracy_source;
  /// Why the accuracy is unknown (dse/accuracy/accuracy_lookup.h AccuracyEstimate::unknown_reason),
  /// when accuracy_source is "unknown"; "" otherwise.
  std::string accuracy_unknown;
  /// With `detailed`: {"stages": {name: cycles}, "layers": [{"name", "cycles"}...]}
  /// for the latency-breakdown plot; null otherwise.
  Json breakdown;
  /// With `detailed`: the resolved configs {"model", "arch", "device"} as the
  /// evaluator's loaders understood them, defaults included; null otherwise.
  Json resolved;
  /// With `detailed`, from the simulator's evaluators: the machine description the point was
  /// simulated on (a copy of its own: the analytic fast path reuses its storage), which
  /// explore hands to the HLS build renderer (dse/emit) instead of describing it again;
  /// null otherwise (and from evaluators without a machine, such as the tests' toy one).
  std::shared_ptr<const machine::Machine> machine;
};

/// Computes metrics of design points at one fidelity (the sweep evaluator holds one per
/// fidelity, dse/evaluate/sweep_evaluator.h): the simulator's (dse/evaluate/sim_evaluator.h) or a
/// toy function in tests. Implementations must be thread-safe (evaluate is called concurrently
/// from oneTBB workers) and deterministic (same point, same result).
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  /// True when evaluate() fills metric `m` (a metric no point can have, such as energy
  /// without a power model, is reported as unavailable and dropped from objectives).
  virtual bool provides(Metric m) const = 0;
  /// The resolved configs of `point` as the evaluator's loaders understand them,
  /// defaults included: {"model": ..., "arch": ...}. Default: the documents as patched.
  /// Throws InputError when the documents do not load.
  virtual Json resolved_configs(const PointConfig& point) const {
    return Json{{"model", point.model()}, {"arch", point.arch()}};
  }
  /// Evaluates `point`. Errors of the point itself (a rank the model loader rejects, a
  /// design the simulator cannot schedule) go into Evaluation::error, not exceptions.
  virtual Evaluation evaluate(const PointConfig& point, bool detailed) const = 0;
};

}  // namespace ttsim::dse
