#pragma once
// Simulated vs csynth-reported kernel latency, as `ttsim compare` prints and writes it: per
// kernel, every report sample's latency beside the simulator's for the same trip counts
// (uncalibrated and calibrated, with the error in %), and per loop class (kernel_spec.h
// loop) the II and depth derived from the specification beside the reported PipelineII and
// PipelineDepth; the MAPE over the samples; the leave-one-out predictions. Latencies and
// depths in cycles, errors as (simulated − reported) / reported · 100.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "hls/calibration/kernel_fit.h"
#include "hls/calibration/kernel_samples.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "hw/kernel_latency.h"

namespace ttsim::hls {

/// The latency models the samples are priced with.
struct ComparisonModels {
  /// II and depth derived from the specification at the operator latencies the reports
  /// give: what the reported II and depth are compared with.
  const KernelLatencyModel* spec = nullptr;
  const KernelLatencyModel* uncalibrated = nullptr;  ///< the arch's and device's defaults
  const KernelLatencyModel* calibrated = nullptr;    ///< null: no calibration to compare
};

/// One report sample against the simulator.
struct SampleComparison {
  const KernelSample* sample = nullptr;
  std::int64_t uncalibrated = 0;           ///< simulated latency, cycles
  std::optional<std::int64_t> calibrated;  ///< simulated latency, cycles
  double error_uncalibrated = 0;           ///< %
  std::optional<double> error_calibrated;  ///< %
};

/// One loop class of a kernel over the samples that hold it (trip >= 1).
struct LoopComparison {
  std::string loop;  ///< kernel_spec.h loop name
  int samples = 0;   ///< observations
  int model_ii = 1, model_rec_mii = 1, model_res_mii = 1, model_depth = 0;  ///< from the specification
  std::set<std::int64_t> report_ii;          ///< every PipelineII reported
  std::optional<double> ii_error;            ///< model II vs the largest reported, %
  std::optional<double> report_depth;        ///< mean reported PipelineDepth
  std::optional<double> depth_error;         ///< %
  std::optional<int> calibrated_depth;       ///< with the calibration's adjustment
  double mape_uncalibrated = 0;              ///< loop latency, % (mean |error|)
  std::optional<double> mape_calibrated;     ///< loop latency, %
  bool ii_differs = false;                   ///< a reported II is not the derived one
};

/// One kernel: its samples and loop classes.
struct KernelComparison {
  TaskOp op = TaskOp::kContraction;
  UnitKind unit = UnitKind::kContraction;
  int lanes = 1;               ///< of the unit in the arch
  std::int64_t model_dsp = 0;  ///< kernel_dsp at those lanes
  std::vector<SampleComparison> samples;
  std::vector<LoopComparison> loops;  ///< specification order, classes without observations left out
};

/// Compares the samples of kernel `op` (all of that kernel) with `models`, at the lanes of
/// `arch`'s unit. Throws InputError as KernelLatencyModel pricing does.
KernelComparison compare_kernel(TaskOp op, const std::vector<const KernelSample*>& samples, const ArchSpec& arch,
                                const DeviceSpec& device, const ComparisonModels& models);

/// "kernel <op> (unit .., N lanes)", the samples' table and the loop classes' table, each
/// line indented; begins with a blank line.
std::string format_kernel_comparison(const KernelComparison& k);

/// {kernel, unit, samples [{report, module, bound, trips, report_latency, ...,
/// resources_report, resources_model}], loops [{loop, samples, model_ii, ..., ii_differs,
/// ...}]}: every figure of format_kernel_comparison, nulls where "-" is printed.
Json kernel_comparison_json(const KernelComparison& k);

/// Mean |error| (%) over every sample of `kernels`: uncalibrated, and calibrated when
/// the samples were priced calibrated too.
struct SampleMape {
  int samples = 0;
  double uncalibrated = 0;
  std::optional<double> calibrated;
};

/// The SampleMape of `kernels` (0 samples when they hold none).
SampleMape sample_mape(const std::vector<KernelComparison>& kernels);

/// "\nMAPE over N samples: uncalibrated .. %, calibrated .. (or -)".
std::string format_sample_mape(const SampleMape& m);

/// The leave-one-out section: a title, one line per prediction (or why none was made),
/// "none" when no kernel has 3 reports, and the MAPE over the predictions made.
std::string format_leave_one_out(const std::vector<LooResult>& loo);

/// {predictions [{kernel, report, bound, reported, predicted, error_pct, note}], mape_pct}.
Json leave_one_out_json(const std::vector<LooResult>& loo);

}  // namespace ttsim::hls
