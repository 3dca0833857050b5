#pragma once
// Constraint checking of one evaluated point: device resources with headroom, epoch
// latency, compression and accuracy; and a metric's value as an objective to minimise.

#include <string>
#include <vector>

#include "dse/evaluate/evaluator.h"
#include "dse/space/sweep_spec.h"
#include "hw/device_spec.h"
#include "hw/resource_fit.h"

namespace ttsim::dse {

/// Outcome of the constraint check of one evaluation: the whole verdict, with its reason
/// (a run keeps only feasibility and violation in memory: dse/run/run_state.h PointSummary).
struct Verdict {
  bool feasible = false;
  /// 0 when feasible; otherwise Σ over failed constraints of value/limit - 1 (or the
  /// relative shortfall for minimums), and 1e9 for a point that could not be evaluated
  /// or lacks an objective's value.
  double violation = 0;
  std::string reason;  ///< "" when feasible; "; "-joined failed checks otherwise
};

/// What the point of `e` uses by the fit rule's measures (hw/resource_fit.h ResourceUse),
/// from its metrics (a metric the evaluator does not provide counts as none used): BRAM36,
/// URAM288, DSP, LUT and FF estimates, the card power (the device's card idle watts + the
/// point's dynamic power, when the device file states a card) and its clock.
ResourceUse point_use(const Evaluation& e, const DeviceSpec& device);

/// Checks `e` against `constraints` on `device`. Resources by the one fit rule every
/// command applies (hw/resource_fit.h resource_overruns) with the sweep's headroom:
/// BRAM36, URAM288, DSP, (when the evaluator estimates it and the device file has a
/// LUT count) LUT, the card power (the device's card idle watts + the point's dynamic
/// power, when the device file states a card) and the clock (clock_mhz at most the point's
/// achievable clock, hw/resource_fit.h achievable_clock). A constraint whose metric the evaluator cannot provide
/// for any point is skipped by the caller (listed as unavailable in the summary);
/// `check_accuracy` = false skips min_accuracy; with it, a point without an accuracy is
/// infeasible with the reason "accuracy unknown at rank R" (R = Evaluation::tt_rank).
/// Every objective metric must be present.
Verdict judge(const Evaluation& e, const ConstraintSpec& constraints, const DeviceSpec& device,
              const std::vector<Metric>& objectives, bool check_accuracy);

/// Value `x` of metric `m` as a Candidate objective (to minimise): +infinity for NaN
/// (unavailable), negated for a maximised metric.
double objective_value(Metric m, double x);

}  // namespace ttsim::dse
