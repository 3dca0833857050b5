#pragma once
// Evaluation of sweep points as the explorer needs it: resolve the point, run the
// analytic or SystemC evaluator, add the accuracy from the rank-accuracy table, and
// judge the result against the sweep's constraints. Thread-safe and deterministic.
//
// The names: an Evaluator computes one Evaluation of a resolved point at its fidelity; the
// SweepEvaluator does it for a point id of the sweep; the simulator's evaluate_design
// (sim/design_eval.h) is what the simulator-backed Evaluator runs (its only caller in dse/).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dse/accuracy/accuracy_lookup.h"
#include "dse/accuracy/accuracy_table.h"
#include "dse/evaluate/evaluator.h"
#include "dse/evaluate/feasibility.h"
#include "dse/space/sweep_spec.h"
#include "hw/device_spec.h"
#include "hw/kernel_params.h"

namespace ttsim::dse {

/// The evaluators of a run, one per fidelity: analytic for every point, SystemC (may be
/// null, then the run is analytic only and says so) for the candidates.
struct Evaluators {
  const Evaluator* analytic = nullptr;
  const Evaluator* systemc = nullptr;
  const Evaluator* of(Fidelity f) const { return f == Fidelity::kSystemC ? systemc : analytic; }
};

/// The sweep's evaluator of its points by id: resolves a point (dse/evaluate/resolve.h), has
/// the evaluator of the fidelity asked for compute its Evaluation, adds the accuracy from the
/// rank-accuracy table, and judges evaluations against the sweep's constraints (verdicts with
/// the reason when infeasible, the objectives that can be computed).
class SweepEvaluator {
 public:
  /// `accuracy` is nullopt when no rank-accuracy table is available.
  /// Throws ConfigError when the sweep's device file does not load.
  SweepEvaluator(const SweepSpec& sweep, Evaluators evaluators,
                 std::optional<AccuracyTable> accuracy);

  const SweepSpec& sweep() const { return sweep_; }
  const DeviceSpec& device() const { return device_; }
  const Evaluators& evaluators() const { return evaluators_; }
  /// The sweep's objectives that can be computed (evaluator provides them, or the
  /// accuracy table exists for accuracy).
  const std::vector<Metric>& objectives() const { return objectives_; }
  /// Human-readable notes on objectives and constraints that are unavailable.
  const std::vector<std::string>& notes() const { return notes_; }
  bool accuracy_available() const { return accuracy_.has_value(); }
  const std::optional<AccuracyTable>& accuracy_table() const { return accuracy_; }
  /// The calibration applied to every point, for results.json / summary.md
  /// ({"file", "part", "target_clock_ns", "tool_version", "kernels", "power_fitted"}),
  /// null when the run is uncalibrated. Set by the run setup.
  const Json& calibration() const { return calibration_; }
  void set_calibration(Json c) { calibration_ = std::move(c); }
  /// The device as the evaluators price it (with a calibration's fitted power
  /// coefficients) and the kernel calibration every point gets (null: uncalibrated),
  /// for the run's defaults_used. Set by the run setup; by default the sweep's device.
  void set_priced(DeviceSpec device, std::shared_ptr<const KernelCalibration> kernels) {
    priced_device_ = std::move(device);
    kernel_calibration_ = std::move(kernels);
  }
  const DeviceSpec& priced_device() const { return priced_device_ ? *priced_device_ : device_; }
  const KernelCalibration* kernel_calibration() const { return kernel_calibration_.get(); }

  /// Evaluates point `id` with the evaluator of `fidelity` (Evaluation::fidelity is set to
  /// it). With an accuracy table, sets Evaluation::tt_rank (the rank shared by every TT
  /// layer kind), accuracy_source ("table", "interpolated", "per_layer_model" or "unknown") and, when known
  /// (dse/accuracy/accuracy_lookup.h), kAccuracy (the 95 % lower confidence bound of the test
  /// intent accuracy) and kSlotF1 (mean test slot F1); unknown ones stay unavailable.
  /// Never throws for a bad point: the error lands in Evaluation::error. With `resolved`,
  /// sets it to the point's configs (resolve_point) when they resolve, else leaves it empty.
  Evaluation evaluate(PointId id, Fidelity fidelity, bool detailed,
                      std::optional<PointConfig>* resolved = nullptr) const;
  Verdict judge(const Evaluation& e) const;
  /// The metrics a run keeps in memory for every point (dse/run/run_state.h PointSummary):
  /// objectives() in order, then the sweep's design-choice metric when it is not one of them.
  const std::vector<Metric>& kept_metrics() const { return kept_; }

 private:
  const SweepSpec& sweep_;
  Evaluators evaluators_;
  std::optional<AccuracyTable> accuracy_;
  Json calibration_;
  DeviceSpec device_;
  std::optional<DeviceSpec> priced_device_;
  std::shared_ptr<const KernelCalibration> kernel_calibration_;
  std::vector<Metric> objectives_;
  std::vector<Metric> kept_;
  std::vector<std::string> notes_;
};

}  // namespace ttsim::dse
