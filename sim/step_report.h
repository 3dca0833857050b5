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

/// Cycles per stage. forward = end of the last forward task; update = the cycles of the
/// SGD tasks (fused into the backward pass, each update group after its backward; at most
/// step − forward); backward = step − forward − update. The three sum to the step. On the
/// machine the emitted top is (one call at a time) each is the time its tasks run; under a
/// schedule that overlaps SGD tasks with backward work (what-if studies) the update figure
/// counts the overlapped cycles too and the backward figure is that much short.
/// recompute: the cycles of an encoder recomputation's tasks (Task::recompute; their
/// durations summed), part of backward.
struct StageCycles {
  std::int64_t forward = 0, backward = 0, update = 0;
  std::int64_t recompute = 0;
};
StageCycles stage_cycles(const TaskGraph& graph, const Schedule& schedule);

/// Lane efficiency of contraction work: macs / (cycles · lanes), the fraction of the
/// lanes' multiply-accumulates a product used; 0 when cycles or lanes is 0.
double lane_efficiency(std::int64_t macs, std::int64_t cycles, int lanes);

/// Multiply-accumulates of `graph`'s tasks, Σ Task::macs (recomputed products included).
std::int64_t graph_macs(const TaskGraph& graph);

/// The step's MAC ideal, cycles: ceil(graph_macs / lanes), the cycles no schedule of `graph`
/// on `lanes` multiply-accumulate lanes (every contraction engine's) can beat; 0 when lanes
/// is below 1.
std::int64_t mac_ideal_cycles(const TaskGraph& graph, std::int64_t lanes);

/// One layer ("enc0.q", "enc0.attn", "embedding", "loss", ...).
struct LayerBreakdown {
  std::string layer;
  int tasks = 0;
  std::int64_t macs = 0;
  std::int64_t busy_cycles = 0;  ///< Σ task durations
  std::int64_t contraction_cycles = 0;  ///< Σ durations of its contraction tasks (MACs/cycle = macs / this)
  std::int64_t start = 0, end = 0;  ///< first start, last end (cycles)
};
/// Layers in order of first appearance in the task graph.
std::vector<LayerBreakdown> layer_breakdown(const TaskGraph& graph, const Schedule& schedule);
/// The "total" row of `layers` over a step of `step_cycles`: tasks, MACs, busy and
/// contraction cycles summed; start 0, end `step_cycles`.
LayerBreakdown layer_total(const std::vector<LayerBreakdown>& layers, std::int64_t step_cycles);

/// The contraction tasks of one role and shape (every layer's "btt.xl" of one size is
/// one row), and likewise the transposed copies ("btt.transpose", 0 MACs), which exist
/// to put the products' lanes along M.
struct ProductBreakdown {
  std::string role;  ///< Task::role, e.g. "btt.xl", "attn.qk", "ttm.lookup"
  TaskShape shape;   ///< batch, rows, inner, cols and variant (form; -1 for a transpose) of each call
  int calls = 0;
  std::int64_t macs = 0;    ///< Σ over the calls
  std::int64_t cycles = 0;  ///< Σ task durations (cycles)
};
/// Contraction and transpose tasks grouped by (role, batch, rows, inner, cols, variant),
/// by cycles descending (ties: first appearance in the graph).
std::vector<ProductBreakdown> product_breakdown(const TaskGraph& graph, const Schedule& schedule);
/// "column", "dot" or "scalar" (kernel_spec.h contraction form of `variant`), with
/// "+reduce" when the batch is reduced; "transpose" for variant -1 (ProductBreakdown).
std::string contraction_form_name(int variant);

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
/// layers [...] (with contraction_cycles, macs_per_cycle, lane_efficiency) and kernels
/// [...] each closed by a "total" entry, products [...] (product_breakdown: role, batch,
/// rows, inner, cols, form, calls, macs, cycles, macs_per_cycle, lane_efficiency at the
/// arch's contraction lanes; the two rates null where no MAC runs: a layer without
/// contractions, a transpose), tasks, events.
Json step_json(const StepResult& r, const ArchSpec& arch);

}  // namespace ttsim
