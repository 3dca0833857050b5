#include "sim/step_tables.h"

#include <fmt/format.h>

#include "core/number_text.h"
#include "sim/step_report.h"

namespace ttsim {
namespace {

std::string kernel_row(const KernelBreakdown& k, const std::string& lanes) {
  return fmt::format("{:<18} {:>5}  {:>5}  {:>15}  {:>10.1f} %\n", k.name, lanes, k.tasks, grouped(k.busy_cycles),
                     100.0 * k.utilization);
}

std::string layer_row(const LayerBreakdown& l) {
  return fmt::format("{:<18} {:>5}  {:>14}  {:>15}  {:>9}  {:>9}\n", l.layer, l.tasks, grouped(l.macs),
                     grouped(l.busy_cycles), grouped(l.start), grouped(l.end));
}

}  // namespace

std::string kernel_table(const StepResult& r, const ArchSpec& arch) {
  std::string s = "kernel             lanes  tasks      busy cycles  utilization\n";
  const auto kernels = kernel_breakdown(r, arch);
  for (const auto& k : kernels) s += kernel_row(k, std::to_string(k.lanes));
  return s + kernel_row(kernel_total(kernels, r.run.schedule.makespan), "");
}

std::string layer_table(const StepResult& r) {
  std::string s = "layer              tasks            MACs      busy cycles      start        end\n";
  const auto layers = layer_breakdown(r.graph(), r.run.schedule);
  for (const auto& l : layers) s += layer_row(l);
  return s + layer_row(layer_total(layers, r.run.schedule.makespan));
}

}  // namespace ttsim
