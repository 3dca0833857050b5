#pragma once
// Summaries of a simulated step: stage cycles, per-layer and per-kernel breakdowns
// with totals, and their JSON form (the `ttsim simulate --json` document's core).

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "hw/arch_spec.h"
#include "sim/step_sim.h"

namespace ttsim {

/// Cycles per stage. forward = end of the last forward task; backward = end of the
/// last backward task − forward; update = step − forward − backward (update tasks that
/// overlap the backward pass count as backward time). The three sum to the step.
struct StageCycles {
  std::int64_t forward = 0, backward = 0, update = 0;
};
StageCycles stage_cycles(const TaskGraph& graph, const Schedule& schedule);

/// One layer ("enc0.q", "enc0.attn", "embedding", "loss", ...).
struct LayerBreakdown {
  std::string layer;
  int tasks = 0;
  std::int64_t macs = 0;
  std::int64_t busy_cycles = 0;  ///< Σ task durations
  std::int64_t start = 0, end = 0;  ///< first start, last end (cycles)
};
/// Layers in order of first appearance in the task graph.
std::vector<LayerBreakdown> layer_breakdown(const TaskGraph& graph, const Schedule& schedule);
/// The "total" row of `layers` over a step of `step_cycles`: tasks, MACs and busy cycles
/// summed; start 0, end `step_cycles`.
LayerBreakdown layer_total(const std::vector<LayerBreakdown>& layers, std::int64_t step_cycles);

/// One unit instance.
struct KernelBreakdown {
  std::string name;  ///< "<unit kind>_<index>", e.g. "contraction_3"
  UnitKind kind = UnitKind::kContraction;
  int index = 0;
  int lanes = 1;
  int tasks = 0;
  std::int64_t busy_cycles = 0;
  double utilization = 0;  ///< busy_cycles / step cycles
};
/// Every elaborated instance (idle ones included), by kind then index.
std::vector<KernelBreakdown> kernel_breakdown(const StepResult& r, const ArchSpec& arch);
/// The "total" row of `kernels` over a step of `step_cycles`: name "total", tasks and
/// busy cycles summed, utilization the mean over the instances (0 for none); kind,
/// index and lanes are not meaningful.
KernelBreakdown kernel_total(const std::vector<KernelBreakdown>& kernels, std::int64_t step_cycles);

/// The step's JSON: step_cycles, stage_cycles, clock_mhz, step_seconds,
/// analytic_cycles, onchip_peak_bytes {params, grads, activations, temporaries, total},
/// layers [...] and kernels [...] each closed by a "total" entry, tasks, events.
Json step_json(const StepResult& r, const ArchSpec& arch);

}  // namespace ttsim
