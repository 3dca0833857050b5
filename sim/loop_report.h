#pragma once
// Every kernel loop a simulated step runs, as `ttsim simulate --loops` prints it and
// writes it under "loops" in --json: per (kernel, loop class of hls/include/kernel_spec.h)
// the tasks that run it, their total trips, the II of the module instance (derived from
// the specification: max(RecMII, ResMII), hw/kernel_latency.h), depth and cycles.

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "models/task_graph.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"

namespace ttsim {

/// One loop class of one kernel over the step's tasks.
struct LoopRow {
  std::string kernel;  ///< to_string(TaskOp), e.g. "contraction"
  std::string loop;    ///< kernel_spec.h loop name, e.g. "contract_column"
  int lanes = 0;       ///< lanes of the kernel's unit in the arch
  int tasks = 0;       ///< tasks of the step that run the loop
  /// Cycles: the largest over the tasks (the instance's, as emitted in PIPELINE II).
  int ii = 0, rec_mii = 0, res_mii = 0;
  int depth = 0;       ///< pipeline depth, cycles
  std::int64_t trips = 0;   ///< Σ over the tasks of the loop's trip count
  std::int64_t cycles = 0;  ///< Σ over the tasks of (trip − 1) · II + depth (no task overheads)
};

/// The loops of `graph` (the step) priced by the KernelLatencyModel of (arch, device) bound
/// to the graph's instances: one row per (kernel, loop class), by kernel (TaskOp order) then
/// specification order. Throws InputError as KernelLatencyModel's constructor does.
std::vector<LoopRow> step_loops(const TaskGraph& graph, const ArchSpec& arch, const DeviceSpec& device);

/// The table: header, one line per row, then a footnote saying what II and cycles mean.
std::string loops_table(const std::vector<LoopRow>& rows);

/// The rows as a JSON array of {kernel, loop, lanes, tasks, trips, ii, rec_mii, res_mii,
/// depth, cycles}.
Json loops_json(const std::vector<LoopRow>& rows);

}  // namespace ttsim
