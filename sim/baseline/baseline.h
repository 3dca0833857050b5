#pragma once
// The reference design's headline comparisons for one model: on-chip memory of the
// FPGA design vs the GPU's dense-training memory, and FPGA energy per epoch vs the
// GPU's tensorized (TT-sequential and BTT) training energy per epoch.

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "models/dataset/dataset_lengths.h"
#include "models/gpu/gpu_baseline.h"
#include "models/gpu/gpu_spec.h"
#include "models/model_spec.h"
#include "sim/arch_spec.h"
#include "sim/device_spec.h"
#include "sim/power/fpga_power.h"

namespace ttsim {

/// GPU figures of one way of training the model.
struct GpuRun {
  GpuMemory memory;                 ///< bytes by term, for the padded step
  double seconds_per_epoch = 0;
  double energy_joules_per_epoch = 0;
  double average_power_watts = 0;   ///< energy / seconds
  std::int64_t kernels_per_step = 0;
};

/// One model's comparison.
struct BaselineResult {
  std::string model;
  std::int64_t epoch_samples = 0;
  // FPGA
  std::int64_t fpga_memory_bytes = 0;        ///< bytes of the emitted build's on-chip arrays
  std::int64_t fpga_allocated_bytes = 0;     ///< bytes of the BRAM36 + URAM288 blocks used
  /// Resources the emitted build needs beyond the device (machine::over_device); empty
  /// when it fits. The figures are still those of the simulated machine.
  std::vector<std::string> fpga_over_device;
  std::int64_t fpga_epoch_cycles = 0;
  double fpga_epoch_seconds = 0;
  PowerBreakdown fpga_power;
  double fpga_energy_joules_per_epoch = 0;
  // GPU
  GpuRun gpu_dense, gpu_tt, gpu_btt;
  double memory_reduction = 0;                  ///< gpu_dense.memory.total() / fpga_memory_bytes
  double memory_reduction_without_framework = 0;  ///< same without the framework's fixed bytes
  double energy_ratio_vs_gpu_tt = 0;            ///< gpu_tt energy / FPGA energy (per epoch)
  double energy_ratio_vs_gpu_btt = 0;
  Json to_json() const;
};

/// Simulates the FPGA design (SystemC engine, padded step for power, epoch over
/// `split`) and prices the GPU runs over the same samples: each sample costs a step at
/// the design's processed length (the padded seq_len for padded designs, min(L,
/// seq_len) for effective-length designs). Dense = every weight dense (MM flow); TT =
/// every TT layer with the sequential flow; BTT = the bidirectional flow.
/// Throws InputError for inconsistent inputs (e.g. a device without power coefficients).
BaselineResult run_baseline(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                            const GpuSpec& gpu, const dataset::LengthHistogram& split);

/// The model with every linear layer and the embedding dense.
ModelSpec densified(const ModelSpec& model);

}  // namespace ttsim
