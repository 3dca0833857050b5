#include "sim/epoch.h"

namespace ttsim {

EpochResult simulate_epoch(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                           const dataset::LengthHistogram& split, const StepResult& padded,
                           const EngineOptions& options) {
  const std::int64_t padded_step_cycles = padded.run.schedule.makespan;
  EpochResult e;
  e.samples = split.count;
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
  for (const auto& l : e.by_length) e.cycles += l.samples * l.step_cycles;
  e.seconds = e.cycles / (arch.clock_mhz * 1e6);
  return e;
}

EpochResult simulate_epoch(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                           const dataset::LengthHistogram& split, std::int64_t padded_step_cycles) {
  if (arch.sequence_length == SequenceLength::kPadded) {
    EpochResult e;
    e.samples = split.count;
    e.by_length.push_back({model.seq_len, split.count, padded_step_cycles});
    e.cycles = split.count * padded_step_cycles;
    e.seconds = e.cycles / (arch.clock_mhz * 1e6);
    return e;
  }
  return simulate_epoch(model, arch, device, split, simulate_step(model, arch, device));
}

}  // namespace ttsim
