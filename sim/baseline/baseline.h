#pragma once
// The reference design's headline comparisons for one model: on-chip memory of the FPGA
// design vs the memory the GPU's caching allocator reserves for dense training, and FPGA
// energy per epoch vs the GPU's tensorized (TT-sequential and BTT) training energy per
// epoch. The GPU side prices eager PyTorch op by op (models/gpu); the FPGA side is the
// one evaluation of the design (sim/design_eval.h) with every clocked resource charged per
// cycle (hw/fpga_power PowerScenario::kClocked); the busy-scaled power and the card-level power
// are reported as named scenarios. Every ratio comes with the inputs it rests on and a
// sensitivity table: the ratio at the ends of the sourced range of the three constants
// that move it most.

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "models/dataset/dataset_lengths.h"
#include "models/gpu/gpu_baseline.h"
#include "models/gpu/gpu_spec.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"
#include "sim/baseline/fpga_card.h"
#include "hw/device_spec.h"
#include "hw/fpga_power.h"

namespace ttsim {

/// Published figures of the reference paper (arXiv 2501.06663): memory reduction vs
/// dense GPU training, energy reduction vs tensor-compressed GPU training ("up to 3.6x" in
/// the v1 abstract, about 4x in later versions).
inline constexpr double kPublishedMemoryLo = 30, kPublishedMemoryHi = 51;
inline constexpr double kPublishedEnergyLo = 3.6, kPublishedEnergyHi = 4.0;

/// GPU figures of one way of training the model.
struct GpuRun {
  GpuMemory memory;                   ///< bytes, for the padded step's program
  GpuStep step;                       ///< the padded step (seconds, watts, joules per step)
  std::int64_t parameter_tensors = 0;
  double seconds_per_epoch = 0;       ///< with foreach SGD (PyTorch's default on CUDA)
  double energy_joules_per_epoch = 0;
  double average_power_watts = 0;     ///< energy / seconds
  double seconds_per_epoch_no_foreach = 0;  ///< SGD with one param.add_ per tensor
  double energy_joules_per_epoch_no_foreach = 0;
};

/// FPGA power under the default and the named scenarios, watts.
struct FpgaPowerFigures {
  PowerBreakdown clocked;      ///< default: every clocked resource charged per cycle
  PowerBreakdown busy_scaled;  ///< named scenario: dynamic terms × busy fraction
  double hbm_static_watts = 0; ///< part of clocked.static_watts (card file)
  double card_watts = 0;       ///< card-level: card_idle_watts + clocked dynamic
  double kilo_lut = 0;         ///< LUT estimate (design_luts) / 1000
};

/// One row of the sensitivity table: a constant at the ends of its sourced range.
struct SensitivityRow {
  std::string constant;   ///< name in its file
  std::string file;       ///< the GPU or card file
  double value = 0, lo = 0, hi = 0;
  double vs_tt_lo = 0, vs_tt_hi = 0;    ///< GPU-TT energy / FPGA energy at lo, hi
  double vs_btt_lo = 0, vs_btt_hi = 0;  ///< GPU-BTT energy / FPGA energy at lo, hi
};

/// One model's comparison.
struct BaselineResult {
  std::string model;
  std::int64_t epoch_samples = 0;
  // FPGA
  std::int64_t fpga_memory_bytes = 0;        ///< bytes of the emitted build's on-chip arrays
  std::int64_t fpga_allocated_bytes = 0;     ///< bytes of the BRAM36 + URAM288 blocks used
  /// Resources the emitted build needs beyond the device by the one fit rule
  /// (machine::over_device: blocks, DSP, the LUT and FF estimates with the default headroom,
  /// the card power, the clock);
  /// empty when it fits. The figures are still those of the simulated machine.
  std::vector<std::string> fpga_over_device;
  std::int64_t fpga_epoch_cycles = 0;
  double fpga_epoch_seconds = 0;
  FpgaPowerFigures fpga_power;
  double fpga_energy_joules_per_epoch = 0;          ///< clocked (default)
  double fpga_energy_busy_scaled_joules = 0;        ///< busy-scaled scenario
  double fpga_energy_card_joules = 0;               ///< card-level scenario
  // GPU
  GpuRun gpu_dense, gpu_tt, gpu_btt;
  double memory_reduction = 0;               ///< gpu_dense.memory.reserved / fpga_memory_bytes
  double memory_reduction_with_context = 0;  ///< (reserved + CUDA context) / fpga_memory_bytes
  double energy_ratio_vs_gpu_tt = 0;         ///< gpu_tt energy / FPGA energy (per epoch, defaults)
  double energy_ratio_vs_gpu_btt = 0;
  double energy_ratio_vs_gpu_tt_busy_scaled = 0;  ///< against the busy-scaled FPGA figure
  double energy_ratio_vs_gpu_tt_card = 0;         ///< against the card-level FPGA figure
  double energy_ratio_vs_gpu_tt_no_foreach = 0;   ///< GPU-TT with SGD without foreach
  std::vector<SensitivityRow> sensitivity;   ///< every ranged constant, largest swing of vs-TT first
  /// The LUT estimate with its multiplexer-structure terms at the low / high end of their
  /// range (hw/lut_estimate.h lut_total_at_mux_bound), LUTs.
  double fpga_luts_mux_low = 0, fpga_luts_mux_high = 0;
  Json to_json() const;
};

/// Simulates the FPGA design (sim/design_eval.h: SystemC step, epoch over `split`) and
/// prices the GPU runs over the same samples: each sample costs a step at the design's
/// processed length (the padded seq_len for padded designs, min(L, seq_len) for
/// effective-length designs). Dense = every weight dense (nn.Linear, nn.Embedding); TT =
/// every TT layer with the sequential flow; BTT = the bidirectional flow.
/// Throws InputError for inconsistent inputs (a device without power coefficients, a card
/// file whose repeated figures differ from the device file).
BaselineResult run_baseline(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                            const GpuSpec& gpu, const FpgaCardSpec& card,
                            const dataset::LengthHistogram& split);

/// The model with every linear layer and the embedding dense.
ModelSpec densified(const ModelSpec& model);

}  // namespace ttsim
