#pragma once
// The training-step task graph as the schedulers (analytic and SystemC) see it: each
// task's unit class and latency in cycles (hw/kernel_latency.h), and its
// dependencies — the graph's own plus the edges the arch's scheduling policy adds:
//   sequential policy      : task i-1 → task i for every i (one task at a time);
//   parallel_merges = false: within each (layer, stage), the BTT merge tasks (left and
//                            right chains, roles "*merge_left"/"*merge_right") run one at
//                            a time in task order, so the two chains no longer overlap;
//   qkv_reschedule = true  : the Q, K and V projections of one encoder and stage share
//                            one kernel set: ordered by their first task, the j-th
//                            contraction of each projection waits for the j-th
//                            contraction of the previous one (same flow, same kernel),
//                            so the three pipeline through the set instead of running on
//                            three sets side by side.

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/task_graph.h"
#include "hw/arch_spec.h"
#include "hw/kernel_latency.h"

namespace ttsim {

/// One task for the schedulers.
struct SchedTask {
  int unit = 0;               ///< UnitKind as int
  std::int64_t cycles = 0;    ///< latency on its unit (cycles)
  std::vector<int> deps;      ///< tasks that must finish first (all < this task's id), sorted
};

/// A schedulable graph. Tasks keep the TaskGraph's ids and topological order.
struct SchedGraph {
  std::vector<SchedTask> tasks;
  /// Successor lists in CSR form: successors of i are succ[succ_begin[i] .. succ_begin[i+1]).
  std::vector<int> succ_begin, succ;
  /// Unit instances per UnitKind (from the arch).
  std::array<int, kUnitKinds> unit_count{};
  /// Number of edges added by the policy (beyond the task graph's own).
  int policy_edges = 0;
  /// Latency class of each task (index into price_rep): tasks with the same unit, op
  /// and shape (batch, rows, inner, cols, variant) have the same latency under any latency
  /// model, so update_latencies prices one representative per class. Filled by
  /// make_sched_graph / update_latencies.
  std::vector<int> price_class;
  std::vector<int> price_rep;  ///< first task of each latency class
};

/// The policy's extra dependency edges (from, to) with from < to, as described above.
std::vector<std::pair<int, int>> policy_edges(const TaskGraph& graph, const ArchSpec& arch);

/// Builds the schedulable graph: latencies from `latency` (memoized per distinct
/// (unit, op, shape with its variant)), graph deps plus policy_edges. Throws InputError for a task whose
/// dependency is not an earlier task.
SchedGraph make_sched_graph(const TaskGraph& graph, const ArchSpec& arch,
                            const KernelLatencyModel& latency);

/// Recomputes only the latencies of `sg` for another latency model (same graph and
/// policy); for design-space sweeps over lanes, clocks, operator latencies and overheads
/// (the II of every loop follows from them). Prices one task per
/// latency class (SchedGraph::price_class); the classes are rebuilt when they do not
/// match `graph`.
void update_latencies(SchedGraph& sg, const TaskGraph& graph, const KernelLatencyModel& latency);

/// update_latencies without matching the classes: sg.price_class / price_rep must already
/// group `graph`'s tasks (match_price_classes since the graph last changed) — a step
/// re-priced for another arch on the same graph. Throws std::invalid_argument when the
/// classes do not cover the graph's tasks (size mismatch).
void price_classes(SchedGraph& sg, const TaskGraph& graph, const KernelLatencyModel& latency);
/// price_classes with each class's cycles given (class_cycles[c] for class c, as
/// KernelLatencyModel::bind_instances(graph, sg.price_rep, class_cycles) gives them). Throws
/// std::invalid_argument like price_classes, and when class_cycles is not one per class.
void price_classes(SchedGraph& sg, const TaskGraph& graph, const std::vector<std::int64_t>& class_cycles);

/// Makes sg.price_class / price_rep group `graph`'s tasks by equal (unit, op, shape with
/// its variant and memories), rebuilding them when they do not (update_latencies does the
/// same first).
void match_price_classes(SchedGraph& sg, const TaskGraph& graph);

/// Groups `graph`'s tasks by equal (unit, op, shape with its variant and memories) into
/// sg.price_class / price_rep, classes numbered in order of their first task, without
/// first checking the classes sg has (a graph just reshaped for other ranks).
void group_price_classes(SchedGraph& sg, const TaskGraph& graph);

}  // namespace ttsim
