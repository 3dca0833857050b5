#pragma once
// Epoch latency over a dataset split's token-length histogram: the sum over samples of
// the step cycles of each sample. Padded designs pay the model's seq_len for every
// sample (one simulated step × samples); effective-length designs simulate one step per
// distinct processed length min(L, seq_len) (models/dataset/dataset_lengths.h) and
// weight it by its sample count.

#include <cstdint>
#include <vector>

#include "models/dataset/dataset_lengths.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "sim/step_sim.h"

namespace ttsim {

/// Cycles of the steps of one processed length.
struct LengthCycles {
  std::int64_t length = 0;   ///< tokens per sample
  std::int64_t samples = 0;
  std::int64_t step_cycles = 0;
};

/// Cycles and seconds of one epoch, with the step cycles of each processed length.
struct EpochResult {
  std::int64_t samples = 0;
  std::int64_t cycles = 0;
  double seconds = 0;
  std::vector<LengthCycles> by_length;
  /// Samples longer than the model's sequence length (tokens): each is processed as
  /// seq_len tokens, truncated as the training reader does (models/dataset/encoding.h).
  std::int64_t truncated = 0;
  std::int64_t seq_len = 0;  ///< the model's sequence length the epoch was priced at
};

/// Epoch over `split`. `padded` is the simulated step of the padded length (the
/// hardware: its machine serves every length); effective-length designs simulate
/// the other lengths on it with simulate_step (StepOptions::on_hardware) and `options` (the fidelity of `padded`).
/// Throws InputError naming the model when the epoch's cycles exceed 64 bits.
EpochResult simulate_epoch(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                           const dataset::LengthHistogram& split, const StepResult& padded,
                           const EngineOptions& options = {});

/// Same, given only the padded step's cycles: effective-length designs simulate the
/// padded step first (to plan the hardware) and then every other length on it.
EpochResult simulate_epoch(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                           const dataset::LengthHistogram& split, std::int64_t padded_step_cycles);

}  // namespace ttsim
