#include "sim/epoch.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace ttsim {

EpochResult simulate_epoch(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                           const dataset::LengthHistogram& split, const StepResult& padded,
                           const EngineOptions& options) {
  const std::int64_t padded_step_cycles = padded.run.schedule.makespan;
  EpochResult e;
  e.samples = split.count;
  e.seq_len = model.seq_len;
  e.truncated = split.samples_longer_than(model.seq_len);
  if (arch.sequence_length == SequenceLength::kPadded) {
    e.by_length.push_back({model.seq_len, split.count, padded_step_cycles});
  } else {
    for (const auto& [len, samples] : dataset::processed_lengths(split, model.seq_len).samples) {
      if (samples == 0) continue;
      const std::int64_t cycles =
          len == model.seq_len ? padded_step_cycles
                               : simulate_step(model, arch, device, StepOptions::on_hardware(padded, len * model.batch, options)).run.schedule.makespan;
      e.by_length.push_back({len, samples, cycles});
    }
  }
  for (const auto& l : e.by_length) {
    std::int64_t c = 0;
    if (__builtin_mul_overflow(l.samples, l.step_cycles, &c) || __builtin_add_overflow(e.cycles, c, &e.cycles)) {
      throw InputError(fmt::format("{}: the epoch's cycles ({} samples of {} tokens at {} cycles each) exceed "
                                   "what 64-bit counts hold; expected a smaller model or dataset",
                                   model.source_file.empty() ? model.name : model.source_file, l.samples, l.length,
                                   l.step_cycles));
    }
  }
  e.seconds = e.cycles / (arch.clock_mhz * 1e6);
  return e;
}

EpochResult simulate_epoch(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                           const dataset::LengthHistogram& split, std::int64_t padded_step_cycles) {
  if (arch.sequence_length == SequenceLength::kPadded) {
    EpochResult e;
    e.samples = split.count;
    e.seq_len = model.seq_len;
    e.truncated = split.samples_longer_than(model.seq_len);
    e.by_length.push_back({model.seq_len, split.count, padded_step_cycles});
    if (__builtin_mul_overflow(split.count, padded_step_cycles, &e.cycles)) {
      throw InputError(fmt::format("{}: the epoch's cycles ({} samples at {} cycles each) exceed what 64-bit counts "
                                   "hold; expected a smaller model or dataset",
                                   model.source_file.empty() ? model.name : model.source_file, split.count,
                                   padded_step_cycles));
    }
    e.seconds = e.cycles / (arch.clock_mhz * 1e6);
    return e;
  }
  return simulate_epoch(model, arch, device, split, simulate_step(model, arch, device));
}

}  // namespace ttsim
