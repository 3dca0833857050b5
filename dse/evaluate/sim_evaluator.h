#pragma once
// The explorer's evaluator backed by the simulator (//sim), one per fidelity. Both run evaluate_design
// (sim/design_eval.h), the evaluation `simulate`, `baseline` and `memplan` run: the machine
// description of the point (kernel instances, on-chip arrays: DSP, BRAM36, URAM288, on-chip
// bytes), its padded step on that machine, the epoch over the dataset's length histogram,
// and power from the step's activity on the machine's arrays. They differ in the fidelity
// of the schedule (sim/fidelity.h):
//   Fidelity::kAnalytic: the analytic list schedule on the machine's instances
//     (sim/analytic.h, no bank-port model: a lower bound of the SystemC cycles);
//   Fidelity::kSystemC: the SystemC engine with the port model of the machine's arrays.
// On the emitted machine (one call at a time, each array's ports sized for the II its
// loops are priced at) the two agree.
//
// Power and energy (when the device file has power coefficients): fpga_power of the
// padded step's activity (sim/schedule_activity.h) on the schedule of the fidelity.
// Epoch energy = total power × epoch seconds. LUTs: design_luts, an estimate (FP32
// operator cores, bank networks, control per pipelined loop fitted on real csynth reports,
// the multiplexers of the machine's array bindings: sim/schedule_activity.h), not csynth.
// Accuracy comes from the sweep's rank-accuracy table, not from these evaluators.

#include <memory>
#include <string>

#include "dse/evaluate/evaluator.h"
#include "models/dataset/dataset_lengths.h"
#include "hw/calibration.h"
#include "hw/device_spec.h"

namespace ttsim::dse {

/// Inputs shared by both evaluators.
struct SimContext {
  DeviceSpec device;
  /// Length histogram of the training split (epoch = Σ samples × step cycles); when
  /// `has_lengths` is false, epoch metrics are unavailable.
  dataset::LengthHistogram train;
  bool has_lengths = false;
  /// Calibration applied to every point (`explore --calibration`), or null. Each
  /// point's arch is checked against it (check_calibration_matches: part and clock)
  /// and gets `kernel_calibration` and the achievable clock when the calibration's reports
  /// missed timing (calibrated_clock_mhz), as apply_calibration; `device` already carries its fitted power
  /// coefficients (see calibrate_sim_context).
  std::shared_ptr<const Calibration> calibration;
  std::shared_ptr<const KernelCalibration> kernel_calibration;
};

/// Builds the context: `lengths_file` may be "" (no epoch metrics); `split` e.g. "train".
/// Throws InputError / ConfigError for unreadable files.
SimContext make_sim_context(const DeviceSpec& device, const std::string& lengths_file,
                            const std::string& split);

/// Applies calibration `c` to `ctx` for a run whose points use the clocks `clocks_mhz`:
/// refuses (InputError, the message of check_calibration_matches) another part than
/// ctx.device's or any of those clocks, then replaces the device's fitted power
/// coefficients and sets the kernel calibration every point's arch receives.
void calibrate_sim_context(const Calibration& c, const ArchSpec& base_arch,
                           const std::vector<double>& clocks_mhz, SimContext& ctx);

/// Evaluates a point with evaluate_design (sim/design_eval.h, the one evaluation every
/// command runs, and the only call of it in dse/) at its fidelity: cycles, the machine's
/// blocks and DSPs, power and epoch over the length histogram. At Fidelity::kSystemC exactly
/// as `ttsim simulate` does (runs are serialized across threads).
class SimEvaluator : public Evaluator {
 public:
  SimEvaluator(SimContext ctx, Fidelity fidelity) : ctx_(std::move(ctx)), fidelity_(fidelity) {}
  Fidelity fidelity() const { return fidelity_; }
  bool provides(Metric m) const override;
  /// The configs as the loaders and the calibration make them, of a design the emitted build
  /// can carry out: refuses (ConfigError / InputError) what evaluate_design refuses before it
  /// builds anything (machine::check_buildable, the kernel tree's limits).
  Json resolved_configs(const PointConfig& point) const override;
  Evaluation evaluate(const PointConfig& point, bool detailed) const override;

 private:
  SimContext ctx_;
  Fidelity fidelity_;
};

}  // namespace ttsim::dse
