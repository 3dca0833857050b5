#include "sim/baseline/baseline_report.h"

#include <fmt/format.h>

#include "models/gpu/torch_layers.h"
#include "hw/lut_estimate.h"

namespace ttsim {
namespace {

std::string mb(double bytes) { return fmt::format("{:.1f} MB", bytes / 1e6); }

std::string file_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string gpu_run_line(const char* label, const GpuRun& g, std::int64_t samples, const GpuSpec& gpu) {
  // The epoch's steps at their mean time and the epoch's average power (they multiply to its
  // energy); the one-step breakdown is the padded step's.
  const double mean_ms = samples > 0 ? g.seconds_per_epoch / static_cast<double>(samples) * 1e3 : 0;
  return fmt::format(
      "    {}: {} steps x {:.2f} ms mean x {:.1f} W mean = {:.0f} J; padded step {:.2f} ms (host {:.2f} ms: {} "
      "ops, {} module calls; GPU {:.2f} ms: {} kernels; sync {:.3f} ms; {}-bound) at {:.1f} W (P2 idle {:.0f} W all "
      "step, light {:.0f} W while kernels run, busy {:.0f} W for the {:.3f} ms of saturated roofline time)\n",
      label, samples, mean_ms, g.average_power_watts, g.energy_joules_per_epoch, g.step.seconds * 1e3, g.step.host_seconds * 1e3, g.step.ops, g.step.module_calls, g.step.kernel_seconds * 1e3,
      g.step.kernels, g.step.sync_seconds * 1e3, g.step.host_bound() ? "host" : "GPU", g.step.power_watts,
      gpu.at("p2_idle_watts"), gpu.at("p2_light_watts"), gpu.at("busy_watts"), g.step.roofline_seconds * 1e3);
}

}  // namespace

std::string baseline_header(const ArchSpec& arch, const DeviceSpec& device, const GpuSpec& gpu,
                            const BaselineSources& src, std::int64_t samples) {
  return fmt::format(
      "arch {} ({} MHz) on {}; GPU {} (eager PyTorch, op by op); epoch = {} split of {} ({} samples, {} length)\n\n",
      arch.name, arch.clock_mhz, device.name, gpu.name, src.split, src.lengths_file, samples,
      to_string(arch.sequence_length));
}

std::string baseline_table(const std::vector<BaselineResult>& results, const BaselineSources& src) {
  std::string s = fmt::format(
      "{:<11} {:>8} {:>9} {:>6} | {:>7} {:>6} {:>7} | {:>7} {:>8} {:>8} {:>8} | {:>6} {:>6}\n", "model", "FPGA MB",
      "GPU MB", "mem x", "FPGA s", "FPGA W", "FPGA J", "TT s", "TT J", "BTT s", "BTT J", "vs TT", "vs BTT");
  for (const auto& r : results) {
    s += fmt::format(
        "{:<11} {:>8.3f} {:>9.1f} {:>6.1f} | {:>7.1f} {:>6.2f} {:>7.0f} | {:>7.1f} {:>8.0f} {:>8.1f} {:>8.0f} | {:>6.2f} {:>6.2f}\n",
        r.model, r.fpga_memory_bytes / 1e6, r.gpu_dense.memory.reserved / 1e6, r.memory_reduction, r.fpga_epoch_seconds,
        r.fpga_power.clocked.total_watts(), r.fpga_energy_joules_per_epoch, r.gpu_tt.seconds_per_epoch,
        r.gpu_tt.energy_joules_per_epoch, r.gpu_btt.seconds_per_epoch, r.gpu_btt.energy_joules_per_epoch,
        r.energy_ratio_vs_gpu_tt, r.energy_ratio_vs_gpu_btt);
  }
  return s + fmt::format(
      "published: mem x {:.0f}-{:.0f} (vs dense GPU training), energy up to {:.1f}-{:.0f}x (vs tensor-compressed GPU training)\n"
      "GPU MB: what PyTorch's caching allocator reserves for dense training (no CUDA context); J: joules per epoch;\n"
      "vs TT / vs BTT: GPU energy over FPGA energy. Every constant with its source: --json, {} and {}.\n",
      kPublishedMemoryLo, kPublishedMemoryHi, kPublishedEnergyLo, kPublishedEnergyHi, src.gpu_file, src.card_file);
}

std::string baseline_warnings(const std::vector<BaselineResult>& results, const DeviceSpec& device) {
  std::string s;
  for (const auto& r : results) {
    if (!r.fpga_over_device.empty()) {
      std::string what;
      for (const auto& o : r.fpga_over_device) what += (what.empty() ? "" : "; ") + o;
      s += fmt::format("  {}: does not fit {}: {}\n", r.model, device.name, what);
    }
  }
  return s;
}

std::string baseline_inputs(const BaselineResult& r, const GpuSpec& gpu, const FpgaCardSpec& card, double clock_mhz) {
  std::string s;
  const GpuMemory& m = r.gpu_dense.memory;
  s += fmt::format("{}\n", r.model);
  s += fmt::format(
      "  memory {:.1f}x (published {:.0f}-{:.0f}x) = GPU dense reserved {} / FPGA on-chip arrays {}\n", r.memory_reduction,
      kPublishedMemoryLo, kPublishedMemoryHi, mb(m.reserved), mb(static_cast<double>(r.fpga_memory_bytes)));
  s += fmt::format(
      "    GPU dense: weights {} + gradients {} + saved activations {} + transient {} + cuBLAS workspace {} "
      "(assumption) = {} allocated, {} reserved by the caching allocator ({} parameter tensors);\n"
      "    with the CUDA context ({}, assumption, outside the allocator): {:.1f}x\n",
      mb(m.weights), mb(m.gradients), mb(m.activations), mb(m.temporaries), mb(m.workspace), mb(m.allocated),
      mb(m.reserved), r.gpu_dense.parameter_tensors, mb(m.context), r.memory_reduction_with_context);
  const PowerBreakdown& p = r.fpga_power.clocked;
  s += fmt::format(
      "  energy vs GPU-TT {:.2f}x, vs GPU-BTT {:.2f}x (published up to {:.1f}-{:.0f}x vs tensor-compressed GPU training)\n",
      r.energy_ratio_vs_gpu_tt, r.energy_ratio_vs_gpu_btt, kPublishedEnergyLo, kPublishedEnergyHi);
  s += fmt::format(
      "    FPGA: {:.2f} s/epoch ({:.2f} M cycles/step at {:.0f} MHz) x {:.2f} W = static {:.2f} W (HBM {:.2f} W of it) + "
      "DSP {:.2f} + BRAM {:.2f} + URAM {:.2f} + logic {:.2f} + clock tree {:.2f} W (every clocked resource "
      "charged per cycle; {:.0f} kLUT estimated) = {:.0f} J\n",
      r.fpga_epoch_seconds, static_cast<double>(r.fpga_epoch_cycles) / static_cast<double>(r.epoch_samples) / 1e6,
      clock_mhz, p.total_watts(), p.static_watts, r.fpga_power.hbm_static_watts, p.dsp_watts, p.bram_watts,
      p.uram_watts, p.logic_watts, p.clock_watts, r.fpga_power.kilo_lut, r.fpga_energy_joules_per_epoch);
  s += fmt::format(
      "    LUT estimate {:.0f}k; {:.0f}k .. {:.0f}k with its multiplexer-structure terms (bank networks, array "
      "select, port and argument multiplexers) and the kernels' LUTRAM at the ends of their range (hw/lut_estimate.h; the fit rule takes the estimate)\n",
      r.fpga_power.kilo_lut, r.fpga_luts_mux_low / 1000, r.fpga_luts_mux_high / 1000);
  s += gpu_run_line("GPU-TT", r.gpu_tt, r.epoch_samples, gpu);
  s += gpu_run_line("GPU-BTT", r.gpu_btt, r.epoch_samples, gpu);
  s += fmt::format(
      "    scenarios: FPGA busy-scaled {:.2f} W (dynamic x busy fraction; not what the build does) -> vs GPU-TT "
      "{:.2f}x; FPGA card level {:.2f} W ({:.1f} W idle card + dynamic) -> {:.2f}x; GPU-TT SGD without foreach "
      "{:.0f} J -> {:.2f}x\n",
      r.fpga_power.busy_scaled.total_watts(), r.energy_ratio_vs_gpu_tt_busy_scaled, r.fpga_power.card_watts,
      card.at("card_idle_watts"), r.energy_ratio_vs_gpu_tt_card, r.gpu_tt.energy_joules_per_epoch_no_foreach,
      r.energy_ratio_vs_gpu_tt_no_foreach);
  s += "  sensitivity: energy ratio with one constant at each end of its sourced range (the three that move vs GPU-TT "
       "most, and the LUT estimate's control figure and multiplexer structure; every row in --json)\n";
  s += fmt::format("    {:<32} {:<15} {:>10} {:>22} {:>15} {:>15}\n", "constant", "file", "value", "range",
                   "vs GPU-TT", "vs GPU-BTT");
  for (std::size_t i = 0; i < r.sensitivity.size(); ++i) {
    const SensitivityRow& row = r.sensitivity[i];
    if (i >= 3 && row.constant != "control_luts_per_pipelined_loop" && row.constant != "mux_structure_factor") continue;
    s += fmt::format("    {:<32} {:<15} {:>10.4g} {:>22} {:>6.2f} .. {:<6.2f} {:>6.2f} .. {:.2f}\n", row.constant,
                     file_name(row.file), row.value, fmt::format("[{:.4g}, {:.4g}]", row.lo, row.hi), row.vs_tt_lo,
                     row.vs_tt_hi, row.vs_btt_lo, row.vs_btt_hi);
  }
  return s;
}

Json baseline_json(const ArchSpec& arch, const DeviceSpec& device, const GpuSpec& gpu, const FpgaCardSpec& card,
                   const BaselineSources& src, const std::vector<BaselineResult>& results) {
  Json j;
  j["arch"] = arch.to_json();
  j["device"] = device.to_json();
  j["gpu"] = gpu.to_json();
  j["gpu_op_model"] = torch_op_constants_json();
  j["fpga_card"] = card.to_json();
  j["fpga_power_model"] = {{"default_scenario", to_string(PowerScenario::kClocked)},
                           {"named_scenarios", {to_string(PowerScenario::kBusyScaled), "card"}},
                           {"device_power_coefficients_source", device.power.source},
                           {"lut_estimate", lut_estimate_json()}};
  j["dataset_lengths"] = src.lengths_file;
  j["split"] = src.split;
  j["models"] = Json::array();
  for (const auto& r : results) j["models"].push_back(r.to_json());
  return j;
}

}  // namespace ttsim
