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
// Not provided (reported unavailable): epoch energy (the simulator has no activity-based
// power estimate of a design yet) and LUTs (no LUT model).

#include <memory>
#include <string>

#include "dse/evaluator.h"
#include "models/dataset/dataset_lengths.h"
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
};

/// Builds the context: `lengths_file` may be "" (no epoch metrics); `split` e.g. "train".
/// Throws InputError / ConfigError for unreadable files.
SimContext make_sim_context(const DeviceSpec& device, const std::string& lengths_file,
                            const std::string& split);

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
