#pragma once
// Evaluation of sweep points as the explorer needs it: resolve the point, run the
// analytic or SystemC evaluator, add the accuracy from the rank-accuracy table, and
// judge the result against the sweep's constraints. Thread-safe and deterministic.

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

/// The evaluators of a run: analytic for every point, SystemC (may be null, then the
/// run is analytic only and says so) for the candidates.
struct Evaluators {
  const Evaluator* analytic = nullptr;
  const Evaluator* systemc = nullptr;
};

/// What a run keeps in memory of one evaluation (dse/run/run_state.h): its verdict without the
/// reason, and the values of SweepEvaluation::kept_metrics().
struct PointFigures {
  bool feasible = false;
  double violation = 0;      ///< Verdict::violation
  std::vector<double> kept;  ///< per kept metric, NaN when unavailable
};

/// Turns evaluations into verdicts: constraints (with the reason when infeasible),
/// objective vectors and the accuracy lookup from the rank-accuracy table.
class SweepEvaluation {
 public:
  /// `accuracy` is nullopt when no rank-accuracy table is available.
  /// Throws ConfigError when the sweep's device file does not load.
  SweepEvaluation(const SweepSpec& sweep, Evaluators evaluators,
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

  /// Evaluates point `id` with the SystemC evaluator (`systemc`) or the analytic one.
  /// With an accuracy table, sets Evaluation::tt_rank (the rank shared by every TT
  /// layer kind), accuracy_source ("table", "interpolated" or "unknown") and, when known
  /// (dse/accuracy/accuracy_lookup.h), kAccuracy (the 95 % lower confidence bound of the test
  /// intent accuracy) and kSlotF1 (mean test slot F1); unknown ones stay unavailable.
  /// Never throws for a bad point: the error lands in Evaluation::error. With `resolved`,
  /// sets it to the point's configs (resolve_point) when they resolve, else leaves it empty.
  Evaluation evaluate(PointId id, bool systemc, bool detailed,
                      std::optional<PointConfig>* resolved = nullptr) const;
  Verdict judge(const Evaluation& e) const;
  /// The metrics a run keeps in memory for every point: objectives() in order, then the
  /// sweep's design-choice metric when it is not one of them.
  const std::vector<Metric>& kept_metrics() const { return kept_; }
  /// The figures a run keeps of `e`: judge(e) without the reason, and its kept metrics.
  PointFigures figures(const Evaluation& e) const;
  /// The value of `m` in `f`; NaN when `m` is not a kept metric or unavailable.
  double figure(const PointFigures& f, Metric m) const;
  /// The search view of a point from its figures (make_candidate on objectives()).
  Candidate candidate(PointId id, const PointFigures& f) const;

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
