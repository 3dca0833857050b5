#pragma once
// The figures of merit the explorer reads from an evaluator for one design point.
// A value that the evaluator cannot provide (no power coefficients, no accuracy table,
// a rank outside the table) is NaN and is reported as unavailable, never guessed.

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

namespace ttsim::dse {

/// Every metric a design point can carry. The order is the column order of results.csv.
enum class Metric : int {
  kEpochSeconds = 0,  ///< latency of one training epoch, seconds
  kStepCycles,        ///< cycles of one padded-or-effective training step (mean over the epoch)
  kForwardCycles,     ///< forward-stage cycles of the padded step (seq_len tokens)
  kBackwardCycles,    ///< backward-stage cycles of the padded step
  kUpdateCycles,      ///< SGD-update-stage cycles of the padded step
  kEpochEnergyJoules, ///< energy of one epoch, joules: total power × epoch seconds
  kPowerStaticWatts,  ///< device static power, watts (hw/fpga_power.h)
  kPowerDynamicWatts, ///< dynamic power of the padded step's activity, watts
  kPowerTotalWatts,   ///< static + dynamic, watts
  kOnchipBytes,       ///< peak on-chip bytes (params + grads + activations + temporaries)
  kBram36,            ///< BRAM36 blocks of the machine's on-chip arrays (machine/machine.h)
  kUram288,           ///< URAM288 blocks of the machine's on-chip arrays
  kDsp,               ///< DSP48E2 slices of the kernels
  kLut,               ///< estimated LUTs (hw/lut_estimate: operator cores, bank networks, control), not csynth
  kCompression,       ///< dense parameters / stored parameters of the model
  kAccuracy,          ///< test intent accuracy from the rank-accuracy table, fraction
  kSlotF1,            ///< test slot F1 from the rank-accuracy table, fraction
  kClockMhz,          ///< kernel clock the point is priced at, MHz (the arch's, or a calibration's achieved clock)
  kFf,                ///< estimated FFs (hw/ff_estimate.h: operator cores, the kernels' registers, control), not csynth
  kCount
};

constexpr int kMetricCount = static_cast<int>(Metric::kCount);

/// Static description of a metric.
struct MetricInfo {
  const char* name;  ///< column / JSON name, e.g. "epoch_seconds"
  const char* unit;  ///< "s", "cycles", "J", "bytes", "blocks", "slices", "x", "fraction"
  bool maximize;     ///< true for compression and accuracy, false for costs
};

/// Description of `m`.
const MetricInfo& metric_info(Metric m);
/// What step_cycles holds — one metric name for two steps (dse/evaluate/sim_evaluator.cc) —
/// in the words summary.md and report.html both print beside its figures.
extern const char* const kStepCyclesMeaning;
/// kStepCyclesMeaning for one design: the mean step over the epoch's samples when it runs them
/// at their own lengths (`effective_lengths`: its arch's sequence_length effective) and was
/// evaluated with a dataset (`has_epoch`: its epoch_seconds is available), else the padded step.
std::string step_cycles_meaning(bool effective_lengths, bool has_epoch);
/// The metric named `name`, or nullopt.
std::optional<Metric> parse_metric(const std::string& name);
/// Names of every metric, comma separated (for error messages).
std::string metric_names();

/// One value per metric, NaN when unavailable.
struct MetricValues {
  std::array<double, kMetricCount> v;
  MetricValues() { v.fill(std::numeric_limits<double>::quiet_NaN()); }
  double& operator[](Metric m) { return v[static_cast<int>(m)]; }
  double operator[](Metric m) const { return v[static_cast<int>(m)]; }
  bool has(Metric m) const { return !std::isnan((*this)[m]); }
};

}  // namespace ttsim::dse
