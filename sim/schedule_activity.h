#pragma once
// Activity of one training step from its schedule, for the power model
// (hw/fpga_power.h). One derivation serves both fidelities:
//   - the SystemC step (sim/step_power.h: the engine's schedule, whose task
//     durations include the port stretch and whose start times include port waits);
//   - the analytic list schedule of the explorer (no port contention).
// With the same schedule the two give the same activity; they differ exactly where the
// schedules differ (contention stretches busy time and the step).
//
// Memory activity counts, for every task, its [start, end) on every BRAM36/URAM288 bank
// it moves words through (the buffers it reads or writes with a non-zero footprint),
// weighted by that bank's blocks. Under port contention this equals the SystemC bank
// occupations (sim/sc_engine.h: one reservation per task and bank it moves words
// through, held from start to end); without contention the engine records no
// occupations but the memories still do the same reads and writes, so they count too.

#include <array>
#include <cstdint>
#include <vector>

#include "models/task_graph.h"
#include "hw/arch_spec.h"
#include "sim/bank_map.h"
#include "hw/device_spec.h"
#include "hw/fpga_power.h"
#include "sim/schedule.h"

namespace ttsim {

/// The schedule-independent memory side of a step's activity (one per task graph and
/// bank map; reusable for every schedule of that graph on that hardware).
struct BankActivityShape {
  std::int64_t bram36_blocks = 0;   ///< BRAM36 blocks of the bank map
  std::int64_t uram288_blocks = 0;  ///< URAM288 blocks of the bank map
  std::int64_t banks = 0;           ///< physical banks, Σ BankInstance::partitions (each gets control LUTs)
  /// By task id: Σ blocks of the distinct BRAM36 (resp. URAM288) banks holding a buffer
  /// the task reads or writes with footprint > 0 words.
  std::vector<std::int64_t> task_bram36_blocks, task_uram288_blocks;
};

/// The shape of `graph` on `banks`; `footprint` gives on-chip words per buffer id.
/// Throws std::invalid_argument when `banks` or `footprint` do not cover the graph's buffers.
BankActivityShape bank_activity_shape(const TaskGraph& graph, const BankMap& banks,
                                      const std::vector<std::int64_t>& footprint);
/// The shape from the banks each task touches (`used`, task_banks_into of the graph on
/// `banks`) into `s`, its storage reused (every field overwritten): only the banks' blocks
/// are read from `banks`, so one TaskBanks serves every size of the same placement.
/// Throws std::invalid_argument when `used` is empty or names a bank `banks` lacks.
void bank_activity_shape_into(const TaskBanks& used, const BankMap& banks, BankActivityShape& s);

/// LUTs of the bank networks of one instance of each kernel module that runs on `unit`
/// with `lanes` lanes on arenas of `banks` banks (hls/include/banked.h), from the kernel
/// specification's access sites: a lane read or write rotates the words between lanes and
/// banks by the structure banked.h builds for (lanes, banks) — direct multiplexers or a
/// barrel rotator, lane_read_network_luts / lane_write_network_luts — and a scalar read
/// selects one of `banks` words (scalar_read_network_luts); 32 bits each. Summed over
/// every loop of every module of the unit (each
/// pipelined loop keeps its own datapath). Throws std::invalid_argument for lanes or
/// banks < 1. An estimate from the multiplexer structure, not a csynth figure.
double unit_bank_network_luts(UnitKind unit, int lanes, int banks);

/// Estimated LUTs of a design: Σ_k instances[k] · (unit_operator_luts(k, lanes_k) — the FP
/// operator cores of its loops, hw/lut_estimate.h — + unit_bank_network_luts(k,
/// lanes_k, the arenas' banks = the largest lane count, which is machine::Machine::partition))
/// + control_luts(Σ_k instances[k], banks). An estimate from operator and multiplexer
/// figures, not a csynth figure.
double design_luts(const std::array<int, kUnitKinds>& instances, const ArchSpec& arch,
                   std::int64_t banks);

/// Activity of `schedule` (tasks by id of `graph`) on `instances` unit instances per kind:
///  - DSP: units = Σ_k instances[k] · unit_dsp(k, lanes_k); busy = Σ_tasks
///    (end − start) · unit_dsp of the task's unit / (units · makespan);
///  - BRAM36 / URAM288: units = the shape's blocks; busy = Σ_tasks (end − start) ·
///    task blocks of that kind / (units · makespan);
///  - logic: units = design_luts / 1,000; busy = the DSP busy fraction (the datapath
///    logic toggles with the arithmetic it feeds; used by the busy-scaled scenario only).
/// Fractions are clamped to [0, 1]; a zero-cycle schedule gives zero busy fractions.
/// Throws std::invalid_argument when the schedule or shape does not cover the graph's tasks.
FpgaActivity schedule_activity(const TaskGraph& graph, const Schedule& schedule,
                               const std::array<int, kUnitKinds>& instances,
                               const BankActivityShape& shape, const ArchSpec& arch,
                               const DeviceSpec& device);

}  // namespace ttsim
