#pragma once
// Analytic (SystemC-free) evaluation of a SchedGraph, for the DSE and as the reference
// the SystemC engine must reproduce:
//   critical_path_cycles: ASAP with unlimited units — the longest path of per-task
//                         latencies through the dependency graph;
//   list_schedule       : event-driven list scheduling on finite units: at each time,
//                         completions first, then ready tasks in ascending task id take
//                         the lowest-numbered free instance of their unit class.
// Neither models bank-port contention (that is the SystemC engine's job), so with
// contention on SystemC cycles >= analytic cycles.

#include <array>
#include <cstdint>

#include "hw/arch_spec.h"
#include "sim/sched_graph.h"
#include "sim/schedule.h"

namespace ttsim {

/// Longest-path cycles of `sg` (unlimited units). O(tasks + edges).
std::int64_t critical_path_cycles(const SchedGraph& sg);

/// List schedule of `sg` with `units[k]` instances of unit class k (values <= 0 mean
/// unlimited). Deterministic. O((tasks + edges) · log tasks).
Schedule list_schedule(const SchedGraph& sg, const std::array<int, kUnitKinds>& units);

/// list_schedule with the graph's own unit counts.
inline Schedule list_schedule(const SchedGraph& sg) { return list_schedule(sg, sg.unit_count); }

/// Largest number of tasks of unit class `unit` running at the same time in `s`:
/// the instances of that class the schedule needs.
int peak_concurrency(const SchedGraph& sg, const Schedule& s, UnitKind unit);

}  // namespace ttsim
