#pragma once
// The explorer's evaluators backed by the simulator (//sim):
//   AnalyticSimEvaluator: list schedule of the training step on the arch's units
//     (sim/analytic.h, no bank-port contention: a lower bound of the SystemC cycles),
//     the memory plan (BRAM36/URAM288 blocks), occupancy peak, DSPs, compression and
//     the epoch over the dataset's length histogram.
//   SystemcSimEvaluator: the same step run through the SystemC engine with port
//     contention (sim/step_sim.h) and the epoch from sim/epoch.h.
// Both share a cache of parsed models and task graphs (thread-safe), so points that
// differ only in arch parameters do not rebuild the graph.
//
// Power and energy (when the device file has power coefficients): fpga_power of the
// padded step's activity (sim/power/schedule_activity.h) — from the analytic list
// schedule for analytic points (no port contention: busy cycles are pure kernel
// latencies, the step is shorter, so the busy fractions are those of an uncontended
// step), from the SystemC schedule for SystemC points (durations include port
// stretch). On a schedule without contention the two activities are identical.
// Epoch energy = total power × epoch seconds. LUTs: design_luts, an estimate
// (the FP32 operator cores of every kernel loop, sim/power/lut_estimate.h, + assumed
// control per unit instance and per bank + the bank networks' multiplexers per access site,
// unit_bank_network_luts), not a csynth figure.
// Accuracy comes from the sweep's rank-accuracy table, not from these evaluators.

#include <memory>
#include <string>

#include "dse/evaluator.h"
#include "models/dataset/dataset_lengths.h"
#include "sim/calibration.h"
#include "sim/device_spec.h"

namespace ttsim::dse {

struct SimCache;  // parsed models, graphs and memory plans, keyed by content

/// Inputs shared by both evaluators.
struct SimContext {
  DeviceSpec device;
  /// Length histogram of the training split (epoch = Σ samples × step cycles); when
  /// `has_lengths` is false, epoch metrics are unavailable.
  dataset::LengthHistogram train;
  bool has_lengths = false;
  std::shared_ptr<SimCache> cache;
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

/// Evaluates a point with the analytic list scheduler (no port contention): cycles,
/// memory plan, occupancy, DSPs, power and epoch over the length histogram.
class AnalyticSimEvaluator : public Evaluator {
 public:
  explicit AnalyticSimEvaluator(SimContext ctx) : ctx_(std::move(ctx)) {}
  std::string fidelity() const override { return "analytic"; }
  bool provides(Metric m) const override;
  Json resolved_configs(const PointConfig& point) const override;
  Evaluation evaluate(const PointConfig& point, bool detailed) const override;

 private:
  SimContext ctx_;
};

/// Evaluates a point with the SystemC engine (simulate_step + simulate_epoch), exactly
/// as `ttsim simulate` does; runs are serialized across threads.
class SystemcSimEvaluator : public Evaluator {
 public:
  explicit SystemcSimEvaluator(SimContext ctx) : ctx_(std::move(ctx)) {}
  std::string fidelity() const override { return "systemc"; }
  bool provides(Metric m) const override;
  Json resolved_configs(const PointConfig& point) const override;
  Evaluation evaluate(const PointConfig& point, bool detailed) const override;

 private:
  SimContext ctx_;
};

}  // namespace ttsim::dse
