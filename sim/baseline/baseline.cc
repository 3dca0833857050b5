#include "sim/baseline/baseline.h"

#include "hw/lut_estimate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "models/gpu/torch_layers.h"
#include "sim/design_eval.h"
#include "sim/epoch.h"
#include "sim/step_power.h"

namespace ttsim {

namespace {

/// The programs of one way of training over the epoch's lengths, kept for re-pricing.
struct GpuPrograms {
  TorchProgram padded_foreach;
  /// (program with foreach, program without, samples) per processed length.
  std::vector<std::tuple<TorchProgram, TorchProgram, std::int64_t>> by_length;
};

GpuPrograms build_programs(const ModelSpec& model, Flow flow, const GpuSpec& gpu,
                           const dataset::LengthHistogram& split, bool padded) {
  auto program = [&](std::int64_t tokens, bool foreach) {
    return torch_training_step(model, flow, tokens, foreach, gpu.at("foreach_max_tensors"),
                               gpu.at("foreach_max_blocks"), gpu.at("foreach_chunk_elements"));
  };
  GpuPrograms p;
  p.padded_foreach = program(model.tokens(), true);
  if (padded) {
    p.by_length.emplace_back(p.padded_foreach, program(model.tokens(), false), split.count);
  } else {
    const auto lengths = dataset::processed_lengths(split, model.seq_len);
    for (const auto& [length, samples] : lengths.samples) {
      const std::int64_t tokens = length * model.batch;
      p.by_length.emplace_back(program(tokens, true), program(tokens, false), samples);
    }
  }
  return p;
}

GpuRun price(const GpuPrograms& p, const GpuSpec& gpu) {
  GpuRun run;
  run.memory = gpu_memory(p.padded_foreach, gpu);
  run.step = gpu_step(p.padded_foreach, gpu);
  run.parameter_tensors = static_cast<std::int64_t>(p.padded_foreach.parameter_bytes.size());
  for (const auto& [with, without, samples] : p.by_length) {
    const GpuStep a = gpu_step(with, gpu), b = gpu_step(without, gpu);
    const double n = static_cast<double>(samples);
    run.seconds_per_epoch += a.seconds * n;
    run.energy_joules_per_epoch += a.energy_joules * n;
    run.seconds_per_epoch_no_foreach += b.seconds * n;
    run.energy_joules_per_epoch_no_foreach += b.energy_joules * n;
  }
  run.average_power_watts = run.seconds_per_epoch > 0 ? run.energy_joules_per_epoch / run.seconds_per_epoch : 0;
  return run;
}

/// FPGA watts (clocked scenario) with the card constants `c` instead of `base`: device
/// static and HBM static replaced, DSP / logic / clock terms scaled by the coefficient
/// ratio, logic and clock by the post-route LUT factor ratio.
double fpga_watts(const PowerBreakdown& p, const FpgaCardSpec& base, const FpgaCardSpec& c) {
  const double lut = c.at("post_route_lut_factor") / base.at("post_route_lut_factor");
  return c.at("device_static_watts") - base.at("hbm_static_watts") + c.at("hbm_static_watts") +
         p.dsp_watts * c.at("dsp_watts_per_mhz") / base.at("dsp_watts_per_mhz") + p.bram_watts + p.uram_watts +
         lut * (p.logic_watts * c.at("logic_watts_per_kilolut_mhz") / base.at("logic_watts_per_kilolut_mhz") +
                p.clock_watts * c.at("clock_watts_per_kilolut_mhz") / base.at("clock_watts_per_kilolut_mhz"));
}

double ratio(double gpu, double fpga) { return fpga > 0 ? gpu / fpga : 0; }

Json gpu_run_json(const GpuRun& g) {
  return {{"memory_bytes",
           {{"weights", g.memory.weights},
            {"gradients", g.memory.gradients},
            {"optimizer_state", g.memory.optimizer_state},
            {"saved_activations", g.memory.activations},
            {"temporaries", g.memory.temporaries},
            {"cublas_workspace", g.memory.workspace},
            {"allocated", g.memory.allocated},
            {"reserved", g.memory.reserved},
            {"cuda_context", g.memory.context},
            {"reserved_plus_context", g.memory.total()}}},
          {"step",
           {{"ops", g.step.ops},
            {"module_calls", g.step.module_calls},
            {"kernels", g.step.kernels},
            {"flops", g.step.flops},
            {"bytes", g.step.bytes},
            {"host_seconds", g.step.host_seconds},
            {"kernel_seconds", g.step.kernel_seconds},
            {"roofline_seconds", g.step.roofline_seconds},
            {"sync_seconds", g.step.sync_seconds},
            {"seconds", g.step.seconds},
            {"bound", g.step.host_bound() ? "host dispatch" : "GPU kernels"},
            {"power_watts", g.step.power_watts},
            {"energy_joules", g.step.energy_joules}}},
          {"parameter_tensors", g.parameter_tensors},
          {"seconds_per_epoch", g.seconds_per_epoch},
          {"energy_joules_per_epoch", g.energy_joules_per_epoch},
          {"average_power_watts", g.average_power_watts},
          {"seconds_per_epoch_no_foreach", g.seconds_per_epoch_no_foreach},
          {"energy_joules_per_epoch_no_foreach", g.energy_joules_per_epoch_no_foreach}};
}

Json power_json(const PowerBreakdown& p) {
  return {{"static", p.static_watts}, {"dsp", p.dsp_watts},     {"bram", p.bram_watts},
          {"uram", p.uram_watts},     {"logic", p.logic_watts}, {"clock", p.clock_watts},
          {"dynamic", p.dynamic_watts()}, {"total", p.total_watts()}};
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

namespace {

/// The sensitivity table of `r` (its FPGA figures, GPU runs and multiplexer range already
/// set): the energy ratios against GPU-TT and GPU-BTT with each ranged constant of `gpu` and
/// `card`, the LUT estimate's control figure and its multiplexer structure at each end of
/// its range, largest swing against GPU-TT first. `tt`, `btt`: the GPU programs priced
/// again under each GPU constant; `ev`: the FPGA evaluation (power, LUT terms).
std::vector<SensitivityRow> sensitivity_rows(const BaselineResult& r, const DesignEvaluation& ev, const ArchSpec& arch,
                                             const DeviceSpec& device, const GpuSpec& gpu, const FpgaCardSpec& card,
                                             const GpuPrograms& tt, const GpuPrograms& btt) {
  const double e = r.fpga_energy_joules_per_epoch;
  std::vector<SensitivityRow> rows;
  for (const auto& [name, c] : gpu.constants) {
    if (!c.has_range || c.lo == c.hi) continue;
    SensitivityRow row{name, gpu.source_file, c.value, c.lo, c.hi};
    for (int end = 0; end < 2; ++end) {
      const GpuSpec g = gpu.with(name, end == 0 ? c.lo : c.hi);
      const double vs_tt = ratio(price(tt, g).energy_joules_per_epoch, e);
      const double vs_btt = ratio(price(btt, g).energy_joules_per_epoch, e);
      (end == 0 ? row.vs_tt_lo : row.vs_tt_hi) = vs_tt;
      (end == 0 ? row.vs_btt_lo : row.vs_btt_hi) = vs_btt;
    }
    rows.push_back(row);
  }
  for (const auto& [name, c] : card.constants) {
    if (!c.has_range || c.lo == c.hi) continue;
    SensitivityRow row{name, card.source_file, c.value, c.lo, c.hi};
    for (int end = 0; end < 2; ++end) {
      const double joules = fpga_watts(*ev.power, card, card.with(name, end == 0 ? c.lo : c.hi)) * r.fpga_epoch_seconds;
      (end == 0 ? row.vs_tt_lo : row.vs_tt_hi) = ratio(r.gpu_tt.energy_joules_per_epoch, joules);
      (end == 0 ? row.vs_btt_lo : row.vs_btt_hi) = ratio(r.gpu_btt.energy_joules_per_epoch, joules);
    }
    rows.push_back(row);
  }
  // A LUT-estimate row: the estimate `delta_luts(end)` LUTs away from its value at each end of
  // the row's range; logic and clock-tree power scale with the estimate (hw/fpga_power.h,
  // clocked scenario).
  auto lut_row = [&](SensitivityRow row, auto delta_luts) {
    for (int end = 0; end < 2; ++end) {
      const double watts = ev.power->total_watts() +
                           (device.power.logic_watts_per_kilolut_mhz + device.power.clock_watts_per_kilolut_mhz) *
                               delta_luts(end == 0 ? row.lo : row.hi) / 1000 * arch.clock_mhz;
      (end == 0 ? row.vs_tt_lo : row.vs_tt_hi) = ratio(r.gpu_tt.energy_joules_per_epoch, watts * r.fpga_epoch_seconds);
      (end == 0 ? row.vs_btt_lo : row.vs_btt_hi) = ratio(r.gpu_btt.energy_joules_per_epoch, watts * r.fpga_epoch_seconds);
    }
    rows.push_back(row);
  };
  // The fitted control figure at its range.
  const double loops = ev.lut_terms.control / kControlLutsPerPipelinedLoop;
  lut_row({"control_luts_per_pipelined_loop", "hw/lut_estimate.h", kControlLutsPerPipelinedLoop,
           kControlLutsPerPipelinedLoopLow, kControlLutsPerPipelinedLoopHigh},
          [&](double v) { return (v - kControlLutsPerPipelinedLoop) * loops; });
  // The multiplexer-structure and local-memory terms at their structural range
  // (lut_total_at_mux_bound).
  const double total = ev.lut_terms.total();
  lut_row({"mux_structure_factor", "hw/lut_estimate.h", 1.0, r.fpga_luts_mux_low / total,
           r.fpga_luts_mux_high / total},
          [&](double v) { return (v - 1.0) * total; });
  std::stable_sort(rows.begin(), rows.end(), [](const SensitivityRow& a, const SensitivityRow& b) {
    return std::abs(a.vs_tt_hi - a.vs_tt_lo) > std::abs(b.vs_tt_hi - b.vs_tt_lo);
  });
  return rows;
}

}  // namespace

BaselineResult run_baseline(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                            const GpuSpec& gpu, const FpgaCardSpec& card,
                            const dataset::LengthHistogram& split) {
  check_card_matches_device(card, device);
  BaselineResult r;
  r.model = model.name;
  r.epoch_samples = split.count;

  // The same evaluation as `ttsim simulate` (sim/design_eval.h): the emitted build's
  // on-chip arrays are its memory; its power is the clocked (default) scenario.
  const auto ev = evaluate_design(model, arch, device, &split);
  if (!ev->power) fpga_power(device, ev->activity);  // throws the InputError naming the device file's /power
  r.fpga_memory_bytes = ev->machine().onchip_bytes();
  r.fpga_allocated_bytes = (ev->machine().bram36() * 36864 + ev->machine().uram288() * 294912) / 8;
  r.fpga_epoch_cycles = ev->epoch->cycles;
  r.fpga_epoch_seconds = ev->epoch->seconds;
  const FpgaActivity& activity = ev->activity;
  r.fpga_power.clocked = *ev->power;
  r.fpga_power.busy_scaled = fpga_power(device, activity, PowerScenario::kBusyScaled);
  r.fpga_power.hbm_static_watts = card.at("hbm_static_watts");
  r.fpga_power.card_watts = card.at("card_idle_watts") + ev->power->dynamic_watts();
  r.fpga_power.kilo_lut = activity.kilo_lut.units;
  r.fpga_energy_joules_per_epoch = *ev->epoch_joules;
  r.fpga_energy_busy_scaled_joules = r.fpga_power.busy_scaled.total_watts() * r.fpga_epoch_seconds;
  r.fpga_energy_card_joules = r.fpga_power.card_watts * r.fpga_epoch_seconds;
  r.fpga_over_device = ev->over_device;

  const bool padded = arch.sequence_length == SequenceLength::kPadded;
  const GpuPrograms dense = build_programs(densified(model), Flow::kMM, gpu, split, padded);
  const GpuPrograms tt = build_programs(model, Flow::kTT, gpu, split, padded);
  const GpuPrograms btt = build_programs(model, Flow::kBTT, gpu, split, padded);
  r.gpu_dense = price(dense, gpu);
  r.gpu_tt = price(tt, gpu);
  r.gpu_btt = price(btt, gpu);

  const double fpga_mem = static_cast<double>(r.fpga_memory_bytes);
  r.memory_reduction = ratio(r.gpu_dense.memory.reserved, fpga_mem);
  r.memory_reduction_with_context = ratio(r.gpu_dense.memory.total(), fpga_mem);
  const double e = r.fpga_energy_joules_per_epoch;
  r.energy_ratio_vs_gpu_tt = ratio(r.gpu_tt.energy_joules_per_epoch, e);
  r.energy_ratio_vs_gpu_btt = ratio(r.gpu_btt.energy_joules_per_epoch, e);
  r.energy_ratio_vs_gpu_tt_busy_scaled = ratio(r.gpu_tt.energy_joules_per_epoch, r.fpga_energy_busy_scaled_joules);
  r.energy_ratio_vs_gpu_tt_card = ratio(r.gpu_tt.energy_joules_per_epoch, r.fpga_energy_card_joules);
  r.energy_ratio_vs_gpu_tt_no_foreach = ratio(r.gpu_tt.energy_joules_per_epoch_no_foreach, e);

  r.fpga_luts_mux_low = lut_total_at_mux_bound(ev->lut_terms, false);
  r.fpga_luts_mux_high = lut_total_at_mux_bound(ev->lut_terms, true);
  r.sensitivity = sensitivity_rows(r, *ev, arch, device, gpu, card, tt, btt);
  return r;
}

Json BaselineResult::to_json() const {
  Json sens = Json::array();
  for (const auto& s : sensitivity) {
    sens.push_back({{"constant", s.constant}, {"file", s.file}, {"value", s.value}, {"range", {s.lo, s.hi}},
                    {"energy_ratio_vs_gpu_tt", {s.vs_tt_lo, s.vs_tt_hi}},
                    {"energy_ratio_vs_gpu_btt", {s.vs_btt_lo, s.vs_btt_hi}}});
  }
  return {{"model", model},
          {"epoch_samples", epoch_samples},
          {"fpga_memory_bytes", fpga_memory_bytes},
          {"fpga_allocated_bytes", fpga_allocated_bytes},
          {"fpga_fits", fpga_over_device.empty()},
          {"fpga_over_device", fpga_over_device},
          {"fpga_epoch_cycles", fpga_epoch_cycles},
          {"fpga_epoch_seconds", fpga_epoch_seconds},
          {"fpga_luts_estimated", fpga_power.kilo_lut * 1000},
          {"fpga_luts_at_mux_structure_range", {fpga_luts_mux_low, fpga_luts_mux_high}},
          {"power_watts", power_json(fpga_power.clocked)},
          {"power_scenarios_watts",
           {{"clocked", power_json(fpga_power.clocked)},
            {"busy_scaled", power_json(fpga_power.busy_scaled)},
            {"card", fpga_power.card_watts},
            {"hbm_static_in_static", fpga_power.hbm_static_watts}}},
          {"fpga_energy_joules_per_epoch", fpga_energy_joules_per_epoch},
          {"fpga_energy_joules_per_epoch_busy_scaled", fpga_energy_busy_scaled_joules},
          {"fpga_energy_joules_per_epoch_card", fpga_energy_card_joules},
          {"gpu_dense_memory_bytes", gpu_dense.memory.reserved},
          {"memory_reduction", memory_reduction},
          {"memory_reduction_with_context", memory_reduction_with_context},
          {"published_memory_reduction", {kPublishedMemoryLo, kPublishedMemoryHi}},
          {"gpu_tt_energy_joules_per_epoch", gpu_tt.energy_joules_per_epoch},
          {"gpu_btt_energy_joules_per_epoch", gpu_btt.energy_joules_per_epoch},
          {"energy_ratio_vs_gpu_tt", energy_ratio_vs_gpu_tt},
          {"energy_ratio_vs_gpu_btt", energy_ratio_vs_gpu_btt},
          {"energy_ratio_vs_gpu_tt_busy_scaled", energy_ratio_vs_gpu_tt_busy_scaled},
          {"energy_ratio_vs_gpu_tt_card", energy_ratio_vs_gpu_tt_card},
          {"energy_ratio_vs_gpu_tt_no_foreach", energy_ratio_vs_gpu_tt_no_foreach},
          {"published_energy_ratio", {kPublishedEnergyLo, kPublishedEnergyHi}},
          {"sensitivity", sens},
          {"gpu", {{"dense", gpu_run_json(gpu_dense)}, {"tt", gpu_run_json(gpu_tt)}, {"btt", gpu_run_json(gpu_btt)}}}};
}

}  // namespace ttsim
