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
#include "hw/lut_estimate.h"
#include "sim/schedule.h"

namespace ttsim {

/// The multiplexers in front of one array's bank ports, from which units are bound to it.
struct ArrayPorts {
  int partitions = 1;      ///< physical banks (BankInstance::partitions)
  int port_bits = 0;       ///< bits each port's inputs carry: 32 data + address + write enable
  std::uint32_t units = 0;  ///< bit k set: tasks of unit kind k read or write it
};

/// The schedule-independent memory side of a step's activity (one per task graph and
/// bank map; reusable for every schedule of that graph on that hardware).
struct BankActivityShape {
  std::int64_t bram36_blocks = 0;   ///< BRAM36 blocks of the bank map
  std::int64_t uram288_blocks = 0;  ///< URAM288 blocks of the bank map
  std::int64_t banks = 0;           ///< physical banks, Σ BankInstance::partitions
  /// By task id: Σ blocks of the distinct BRAM36 (resp. URAM288) banks holding a buffer
  /// the task reads or writes with footprint > 0 words.
  std::vector<std::int64_t> task_bram36_blocks, task_uram288_blocks;
  /// By unit kind: distinct arrays (bank map entries) its tasks read or write — the
  /// arrays one instance's ports select among.
  std::array<int, kUnitKinds> unit_arrays{};
  std::vector<ArrayPorts> arrays;  ///< by bank map entry
  /// By unit kind: its lane accesses are aligned (BankMap::unit_lane_aligned).
  std::array<bool, kUnitKinds> unit_lane_aligned{};
};

/// The shape of `graph` on `banks`; `footprint` gives on-chip words per buffer id.
/// Throws std::invalid_argument when `banks` or `footprint` do not cover the graph's buffers.
BankActivityShape bank_activity_shape(const TaskGraph& graph, const BankMap& banks,
                                      const std::vector<std::int64_t>& footprint);
/// The shape from the banks each task of `graph` touches (`used`, task_banks_into of the
/// graph on `banks`) into `s`, its storage reused (every field overwritten): only the
/// banks' blocks, partitions and the tasks' units are read, so one TaskBanks serves every
/// size of the same placement. An array's words per bank (for its address bits) are its
/// blocks' capacity: 1,024 words per BRAM36, 4,096 per URAM288 (one word per row).
/// Throws std::invalid_argument when `used` does not have one row per task of `graph` or
/// names a bank `banks` lacks.
void bank_activity_shape_into(const TaskGraph& graph, const TaskBanks& used, const BankMap& banks,
                              BankActivityShape& s);

/// LUTs of the bank networks of one instance of each kernel module that runs on `unit`
/// with `lanes` lanes on arenas of `banks` banks (hls/include/banked.h), from the kernel
/// specification's access sites: a lane read or write rotates the words between lanes and
/// banks by the structure banked.h builds for (lanes, banks) — direct multiplexers or a
/// barrel rotator, lane_read_network_luts / lane_write_network_luts — and a scalar read
/// selects one of `banks` words (scalar_read_network_luts); 32 bits each. Summed over
/// every loop of every module of the unit (each
/// pipelined loop keeps its own datapath). `bound` maps the same structures at the low or
/// high end of their range (hw/lut_estimate.h MuxBound; kEstimate: the functions above).
/// `aligned` (the unit's instances take aligned lane accesses, machine::KernelInstance::
/// lane_aligned): each lane read selects among banks / lanes banks
/// (aligned_lane_read_network_luts) and a lane write has no data multiplexer.
/// Throws std::invalid_argument for lanes or banks < 1, or `aligned` where lanes does not
/// divide banks (ttsim_hls::lane_alignable). An estimate from the multiplexer structure, not
/// a csynth figure. `omitted`: the loops the build leaves out (ttsim_spec::omitted_loops),
/// whose sites build nothing.
double unit_bank_network_luts(UnitKind unit, int lanes, int banks, MuxBound bound = MuxBound::kEstimate,
                              bool aligned = false, unsigned omitted = 0);

/// Estimated LUTs of a design, Σ over unit kinds k with n_k = instances[k] instances and
/// lanes_k lanes, on arenas of B banks (the largest lane count, machine::Machine::partition):
///  - operators: n_k · unit_operator_luts(k, lanes_k) (FP cores, csynth figures, hw/lut_estimate.h);
///    every term over the loops the build does not omit (omitted_loops(arch));
///  - bank networks: n_k · unit_bank_network_luts(k, lanes_k, B, shape.unit_lane_aligned[k]);
///  - control: n_k · unit_pipelined_loops(k) · kControlLutsPerPipelinedLoop (fitted on real
///    csynth loop modules, hw/lut_estimate.h);
///  - local memories: n_k · unit_local_memory_luts(k, lanes_k, B) (the kernels' LUTRAM
///    accumulators and transpose tile buffers);
///  - array select (from the bindings): each read site of an instance picks its words among
///    the A_k = shape.unit_arrays[k] arrays its tasks use, an A_k:1 multiplexer of 32 bits
///    per bank for a lane read site and of 32 bits for a scalar one (after its bank
///    multiplexer): n_k · 32 · mux_luts(A_k) · (B · lane read sites + scalar read sites);
///  - port multiplexers (from the bindings): each array's banks have two ports shared by
///    the U = Σ_{k bound to it} n_k instances that use it, so each port's inputs (data,
///    address, write enable: ArrayPorts::port_bits) pass a ceil(U / 2):1 multiplexer:
///    Σ_arrays partitions · 2 · port_bits · mux_luts(ceil(U / 2)).
///  - call arguments (from the top's call sites): Σ over `calls` (one entry per kernel module
///    of the machine, machine::module_calls_into) of call_argument_luts(argument_bits, call_sites).
/// mux_luts: LUT6 per bit of a tree of 4:1 multiplexers (hls/include/banked.h). LutTerms
/// mux_low / mux_high: the three multiplexer terms and the local memories again with every
/// select, rotator and LUTRAM memory mapped at the low / high end of its range (hw/lut_estimate.h MuxBound). An estimate
/// from operator figures, a fitted control figure and multiplexer structure, not csynth.
double design_luts(const std::array<int, kUnitKinds>& instances, const ArchSpec& arch,
                   const BankActivityShape& shape, const std::vector<ModuleCalls>& calls);

/// The terms of design_luts (same arguments), LUTs (hw/lut_estimate.h LutTerms).
LutTerms design_lut_terms(const std::array<int, kUnitKinds>& instances, const ArchSpec& arch,
                          const BankActivityShape& shape, const std::vector<ModuleCalls>& calls);

/// Activity of `schedule` (tasks by id of `graph`) on `instances` unit instances per kind:
///  - DSP: units = Σ_k instances[k] · unit_dsp(k, lanes_k); busy = Σ_tasks
///    (end − start) · unit_dsp of the task's unit / (units · makespan);
///  - BRAM36 / URAM288: units = the shape's blocks; busy = Σ_tasks (end − start) ·
///    task blocks of that kind / (units · makespan);
///  - logic: units = design_luts / 1,000; busy = the DSP busy fraction (the datapath
///    logic toggles with the arithmetic it feeds; used by the busy-scaled scenario only).
/// Fractions are clamped to [0, 1]; a zero-cycle schedule gives zero busy fractions.
/// `luts`, when given, receives the LUT estimate by term.
/// Throws std::invalid_argument when the schedule or shape does not cover the graph's tasks.
FpgaActivity schedule_activity(const TaskGraph& graph, const Schedule& schedule,
                               const std::array<int, kUnitKinds>& instances,
                               const BankActivityShape& shape, const std::vector<ModuleCalls>& calls,
                               const ArchSpec& arch, const DeviceSpec& device, LutTerms* luts = nullptr);

}  // namespace ttsim
