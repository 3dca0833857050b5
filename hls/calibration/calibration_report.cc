#include "hls/calibration/calibration_report.h"

#include <fmt/format.h>

#include "hw/loop_nest.h"

namespace ttsim::hls {
namespace {

std::string opt(const std::optional<double>& v, const char* f = "{:.4g}") {
  return v ? fmt::format(fmt::runtime(f), *v) : std::string("not fitted");
}

// One kernel's line and its loop classes (specification order).
std::string kernel_block(TaskOp op, const KernelFitRecord& r, int tasks) {
  std::string s = fmt::format("{:<15} {:<23} {:>5} {:>7} {:>7} {:>10.3f} {:>12.3f} {:>12}\n", to_string(op),
                              r.module, r.lanes, r.reports.size(), r.samples, r.params.overhead,
                              r.max_abs_residual_cycles, tasks);
  s += "  loop class              samples  II model  II report  depth model  depth report  depth adj  "
       "max |resid|\n";
  for (const LoopSpec& spec : all_kernel_loops(op, 1)) {
    if (!r.loops.count(spec.name)) continue;
    const std::string& name = spec.name;
    const LoopFitRecord& l = r.loops.at(name);
    const bool differs = l.report_ii && *l.report_ii != l.model_ii;
    s += fmt::format("  {:<23} {:>7} {:>9} {:>10} {:>12} {:>13} {:>10.3f} {:>12.3f}{}\n", name, l.samples,
                     l.model_ii, l.report_ii ? std::to_string(*l.report_ii) : "-", l.model_depth,
                     l.report_depth ? fmt::format("{:.2f}", *l.report_depth) : "-", r.params.depth_adjust.at(name),
                     l.max_abs_residual_cycles, differs ? "  II differs from the derived II" : "");
  }
  return s;
}

}  // namespace

std::string calibration_table(const Calibration& c, const std::string& dir, const std::map<TaskOp, int>& tasks) {
  std::string s = fmt::format(
      "calibration from {} ({} csynth report{}, tool {}, part {}, target clock {} ns = {:.1f} MHz)\n", dir,
      c.reports.size(), c.reports.size() == 1 ? "" : "s", c.tool_version, c.part, c.target_clock_ns, c.clock_mhz());
  s += "\nkernel          module                  lanes reports samples   overhead  max |resid|  model tasks\n";
  for (const auto& [op, r] : c.kernels) {
    const auto t = tasks.find(op);
    s += kernel_block(op, r, t == tasks.end() ? 0 : t->second);
  }
  return s;
}

std::string calibration_coverage(const Calibration& c, const std::map<TaskOp, int>& tasks, const std::string& model,
                                 const std::string& arch) {
  std::string uncovered;
  for (const auto& [op, n] : tasks) {
    if (!c.kernels.count(op)) uncovered += fmt::format("{}{} ({} tasks)", uncovered.empty() ? "" : ", ", to_string(op), n);
  }
  std::string s = "kernels of " + model + " without reports (keep the defaults of " + arch +
                  "): " + (uncovered.empty() ? "none" : uncovered) + "\n";
  s += "operator latencies from BindNodes: ";
  if (c.op_latency.empty()) s += "none (device file values apply)";
  for (const auto& [op, cyc] : c.op_latency) s += op + " " + std::to_string(cyc) + " cycles  ";
  return s + "\n";
}

std::string power_fit_line(const Calibration& c, bool others_rejected) {
  if (!c.power) {
    return std::string("power: no report_power file of this design") + (others_rejected ? " (others rejected, above)" : "") +
           "; the device file's coefficients stay in use\n";
  }
  const PowerFitRecord& p = *c.power;
  return fmt::format(
      "power ({} report_power file{}): static {} W; per MHz: DSP {}, BRAM36 {}, URAM {}; per kLUT and MHz: "
      "logic {}, clock {}\n",
      p.reports.size(), p.reports.size() == 1 ? "" : "s", opt(p.static_watts), opt(p.dsp_watts_per_mhz),
      opt(p.bram36_watts_per_mhz), opt(p.uram_watts_per_mhz), opt(p.logic_watts_per_kilolut_mhz),
      opt(p.clock_watts_per_kilolut_mhz));
}

std::string skipped_samples(const KernelSampleSet& set) {
  std::string s;
  for (const auto& k : set.skipped) s += "skipped " + k.module + " in " + k.source + ": " + k.reason + "\n";
  return s;
}

}  // namespace ttsim::hls
