#include "sim/baseline/baseline.h"

#include "sim/design_eval.h"

#include "models/training_graph.h"
#include "sim/epoch.h"
#include "sim/power/step_power.h"
#include "sim/step_sim.h"

namespace ttsim {

namespace {

Json gpu_run_json(const GpuRun& g) {
  return {{"memory_bytes",
           {{"weights", g.memory.weights},
            {"gradients", g.memory.gradients},
            {"optimizer_state", g.memory.optimizer_state},
            {"activations", g.memory.activations},
            {"temporaries", g.memory.temporaries},
            {"framework", g.memory.framework},
            {"total", g.memory.total()}}},
          {"seconds_per_epoch", g.seconds_per_epoch},
          {"energy_joules_per_epoch", g.energy_joules_per_epoch},
          {"average_power_watts", g.average_power_watts},
          {"kernels_per_step", g.kernels_per_step}};
}

GpuRun price_gpu(const ModelSpec& model, Flow flow, const GpuSpec& gpu,
                 const dataset::LengthHistogram& split, bool padded) {
  GpuRun run;
  auto options_for = [&](std::int64_t tokens) {
    GraphOptions o;
    for (const char* kind : {"attention", "ffn_in", "ffn_out"}) o.flow_by_kind[kind] = flow;
    o.tokens = tokens;
    return o;
  };
  const TaskGraph padded_graph = build_training_graph(model, options_for(0));
  run.memory = gpu_memory(padded_graph, gpu);
  run.kernels_per_step = static_cast<std::int64_t>(padded_graph.tasks.size());
  const auto lengths = dataset::processed_lengths(split, model.seq_len);
  if (padded) {
    const GpuStep s = gpu_step(padded_graph, gpu);
    run.seconds_per_epoch = s.seconds * static_cast<double>(split.count);
    run.energy_joules_per_epoch = s.energy_joules * static_cast<double>(split.count);
  } else {
    for (const auto& [length, samples] : lengths.samples) {
      const GpuStep s = gpu_step(build_training_graph(model, options_for(length * model.batch)), gpu);
      run.seconds_per_epoch += s.seconds * static_cast<double>(samples);
      run.energy_joules_per_epoch += s.energy_joules * static_cast<double>(samples);
    }
  }
  run.average_power_watts = run.seconds_per_epoch > 0 ? run.energy_joules_per_epoch / run.seconds_per_epoch : 0;
  return run;
}

}  // namespace

ModelSpec densified(const ModelSpec& model) {
  ModelSpec d = model;
  d.name = model.name + "_dense";
  d.token_embedding.format = WeightFormat::kDense;
  d.token_embedding.ttm = {};
  for (auto& l : d.linears) {
    l.format = WeightFormat::kDense;
    l.tt = {};
  }
  return d;
}

BaselineResult run_baseline(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                            const GpuSpec& gpu, const dataset::LengthHistogram& split) {
  BaselineResult r;
  r.model = model.name;
  r.epoch_samples = split.count;

  // The same evaluation as `ttsim simulate` (sim/design_eval.h): the emitted build's
  // on-chip arrays are its memory.
  const auto ev = evaluate_design(model, arch, device, &split);
  r.fpga_memory_bytes = ev->machine.onchip_bytes();
  r.fpga_allocated_bytes = (ev->machine.bram36() * 36864 + ev->machine.uram288() * 294912) / 8;
  r.fpga_epoch_cycles = ev->epoch->cycles;
  r.fpga_epoch_seconds = ev->epoch->seconds;
  r.fpga_power = ev->power;
  r.fpga_energy_joules_per_epoch = *ev->epoch_joules;
  r.fpga_over_device = ev->over_device;

  const bool padded = arch.sequence_length == SequenceLength::kPadded;
  r.gpu_dense = price_gpu(densified(model), Flow::kMM, gpu, split, padded);
  r.gpu_tt = price_gpu(model, Flow::kTT, gpu, split, padded);
  r.gpu_btt = price_gpu(model, Flow::kBTT, gpu, split, padded);

  const double fpga_mem = static_cast<double>(r.fpga_memory_bytes);
  r.memory_reduction = fpga_mem > 0 ? r.gpu_dense.memory.total() / fpga_mem : 0;
  r.memory_reduction_without_framework =
      fpga_mem > 0 ? (r.gpu_dense.memory.total() - r.gpu_dense.memory.framework) / fpga_mem : 0;
  const double e = r.fpga_energy_joules_per_epoch;
  r.energy_ratio_vs_gpu_tt = e > 0 ? r.gpu_tt.energy_joules_per_epoch / e : 0;
  r.energy_ratio_vs_gpu_btt = e > 0 ? r.gpu_btt.energy_joules_per_epoch / e : 0;
  return r;
}

Json BaselineResult::to_json() const {
  return {{"model", model},
          {"epoch_samples", epoch_samples},
          {"fpga_memory_bytes", fpga_memory_bytes},
          {"fpga_allocated_bytes", fpga_allocated_bytes},
          {"fpga_fits", fpga_over_device.empty()},
          {"fpga_over_device", fpga_over_device},
          {"fpga_epoch_cycles", fpga_epoch_cycles},
          {"fpga_epoch_seconds", fpga_epoch_seconds},
          {"power_watts",
           {{"static", fpga_power.static_watts},
            {"dynamic", fpga_power.dynamic_watts()},
            {"total", fpga_power.total_watts()}}},
          {"fpga_energy_joules_per_epoch", fpga_energy_joules_per_epoch},
          {"gpu_dense_memory_bytes", gpu_dense.memory.total()},
          {"memory_reduction", memory_reduction},
          {"memory_reduction_without_framework", memory_reduction_without_framework},
          {"gpu_tt_energy_joules_per_epoch", gpu_tt.energy_joules_per_epoch},
          {"gpu_btt_energy_joules_per_epoch", gpu_btt.energy_joules_per_epoch},
          {"energy_ratio_vs_gpu_tt", energy_ratio_vs_gpu_tt},
          {"energy_ratio_vs_gpu_btt", energy_ratio_vs_gpu_btt},
          {"gpu", {{"dense", gpu_run_json(gpu_dense)}, {"tt", gpu_run_json(gpu_tt)}, {"btt", gpu_run_json(gpu_btt)}}}};
}

}  // namespace ttsim
