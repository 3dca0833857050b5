#include "sim/step_tables.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/number_text.h"
#include "hls/include/kernel_spec.h"
#include "hw/arch_spec.h"
#include "sim/step_report.h"

namespace ttsim {
namespace {

std::string kernel_row(const KernelBreakdown& k, const std::string& lanes) {
  return fmt::format("{:<18} {:>5}  {:>5}  {:>15}  {:>10.1f} %\n", k.name, lanes, k.tasks, grouped(k.busy_cycles),
                     100.0 * k.utilization);
}

/// MACs per contraction cycle and lane efficiency, blank for a layer without contractions.
std::string rate_cells(std::int64_t macs, std::int64_t cycles, int lanes) {
  if (cycles <= 0 || macs <= 0) return fmt::format("{:>10}  {:>9}", "", "");
  return fmt::format("{:>10.1f}  {:>7.1f} %", static_cast<double>(macs) / cycles,
                     100.0 * lane_efficiency(macs, cycles, lanes));
}

std::string layer_row(const LayerBreakdown& l, int lanes) {
  return fmt::format("{:<18} {:>5}  {:>14}  {:>15}  {:>13}  {}  {:>9}  {:>9}\n", l.layer, l.tasks, grouped(l.macs),
                     grouped(l.busy_cycles), l.contraction_cycles > 0 ? grouped(l.contraction_cycles) : "",
                     rate_cells(l.macs, l.contraction_cycles, lanes), grouped(l.start), grouped(l.end));
}

/// The form's name, with " pairs" where dual-port lanes run two outputs per iteration
/// (kernel_spec.h column_rows_paired, dot_cols_paired) on arrays of `banks` banks.
std::string form_cell(const TaskShape& s, int lanes, int banks) {
  std::string f = contraction_form_name(s.variant);
  if (s.variant < 0) return f;
  const int form = s.variant & ttsim_spec::kContractFormMask;
  const bool column = form == ttsim_spec::kContractColumn || form == ttsim_spec::kContractColumnAcc;
  if ((column && ttsim_spec::column_rows_paired(s.cols, lanes, banks)) ||
      (form == ttsim_spec::kContractDot && ttsim_spec::dot_cols_paired(s.variant, s.inner, lanes, banks))) {
    f += " pairs";
  }
  return f;
}

std::string product_row(const ProductBreakdown& p, int lanes, int banks) {
  const TaskShape& s = p.shape;
  const std::string batch = s.batch > 1 ? std::to_string(s.batch) + "x" : "";
  const std::string shape = p.shape.variant < 0 ? fmt::format("{}{}x{}", batch, s.rows, s.cols)
                                                : fmt::format("{}{}x{}x{}", batch, s.rows, s.inner, s.cols);
  const std::string row = fmt::format("{:<22} {:<16} {:<18} {:>5}  {:>12}  {}", p.role, shape,
                                      form_cell(s, lanes, banks), p.calls, grouped(p.cycles),
                                      rate_cells(p.macs, p.cycles, lanes));
  return row.substr(0, row.find_last_not_of(' ') + 1) + "\n";
}

int contraction_lanes(const ArchSpec& arch) { return arch.units[static_cast<int>(UnitKind::kContraction)].lanes; }

}  // namespace

std::string kernel_table(const StepResult& r, const ArchSpec& arch) {
  std::string s = "kernel             lanes  tasks      busy cycles  utilization\n";
  const auto kernels = kernel_breakdown(r, arch);
  for (const auto& k : kernels) s += kernel_row(k, std::to_string(k.lanes));
  const KernelBreakdown total = kernel_total(kernels, r.run.schedule.makespan);
  const std::int64_t step = std::max<std::int64_t>(1, r.run.schedule.makespan);
  s += kernel_row(total, "");
  return s + fmt::format("(utilization: busy cycles / step cycles; total: Σ busy / (step cycles × {} units); the "
                         "units' busy cycles sum to {:.3f}× the step{})\n",
                         kernels.size(), static_cast<double>(total.busy_cycles) / static_cast<double>(step),
                         arch.policy == SchedulePolicy::kSequential ? ": the built top runs one call at a time" : "");
}

std::string layer_table(const StepResult& r, const ArchSpec& arch) {
  const int lanes = contraction_lanes(arch);
  std::string s =
      "layer              tasks            MACs      busy cycles  contr. cycles  MACs/cycle  lane eff.      start        end\n";
  const auto layers = layer_breakdown(r.graph(), r.run.schedule);
  for (const auto& l : layers) s += layer_row(l, lanes);
  return s + layer_row(layer_total(layers, r.run.schedule.makespan), lanes);
}

std::string product_table(const StepResult& r, const ArchSpec& arch) {
  const int lanes = contraction_lanes(arch);
  const int banks = arena_banks(arch);
  std::string s = fmt::format(
      "contraction products and transposes by role and shape, most cycles first ([batch x] rows x inner x cols; a "
      "transpose rows x cols;\nMACs/cycle = MACs / cycles, lane eff. = that / {} lanes)\nrole                   shape  "
      "          form               calls        cycles  MACs/cycle  lane eff.\n",
      lanes);
  bool column_acc = false;
  for (const auto& p : product_breakdown(r.graph(), r.run.schedule)) {
    s += product_row(p, lanes, banks);
    column_acc = column_acc || (p.shape.variant >= 0 &&
                                (p.shape.variant & ttsim_spec::kContractFormMask) == ttsim_spec::kContractColumnAcc);
  }
  if (lanes > banks) {
    s += fmt::format(
        "(dual-port lanes, {} lanes on {} banks: \"pairs\" runs two output rows (column) or columns (dot) per "
        "iteration, one per lane window — lane eff. shows what that gains where few output slots pad the "
        "accumulator's {}-slot minimum; an accumulating column product runs as a product into a partial buffer and "
        "an add where the add takes fewer iterations than its II 2 would cost{}: docs/kernels.md)\n",
        lanes, banks, ttsim_spec::kAccMinSlots,
        column_acc ? " — column+acc is one that does not, its C read and C write taking both ports of each bank "
                     "twice, so it gains nothing from the second window"
                   : "");
  }
  return s;
}

}  // namespace ttsim
