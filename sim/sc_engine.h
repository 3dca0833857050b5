#pragma once
// Transaction-level SystemC execution of a training step. Modules:
//   KernelUnit (one per unit instance: contraction engines and nonlinear units) holds a
//     task for its latency and reports completion;
//   BankPorts  (one per BRAM36/URAM288 bank of the BankMap) owns a port budget; a task
//     reserves, for every bank it touches, the ports it needs for the words it moves,
//     so tasks hammering one bank serialize;
//   Scheduler  dispatches ready tasks (ascending task id, policy edges already in the
//     SchedGraph) to the lowest-numbered free unit of their class.
// One clock cycle is modelled as 1 ns of SystemC time. Each run builds a fresh
// sc_core::sc_simcontext, so any number of runs can happen in one process; runs are
// deterministic (same inputs, same schedule). SystemC's current context is a global,
// so concurrent calls from several threads are serialized by a process-wide lock.
//
// Port model (per task t and bank b it touches with W words, latency L cycles, port
// width w words/cycle, P ports): t reserves p = min(P, ceil(W / (L · w))) ports of b for
// its whole duration, and its duration becomes max(L, ceil(W / (p · w))) (stretched only
// when even all ports cannot move W words in L cycles). A task starts only when its
// unit and all its port reservations are available.

#include <cstdint>
#include <vector>

#include "sim/bank_map.h"
#include "sim/sched_graph.h"
#include "sim/schedule.h"

namespace ttsim {

/// Words a task moves through one bank.
struct BankTraffic {
  int bank = -1;
  std::int64_t words = 0;
};

/// Per task (by id), the banks it reads or writes and the words moved through each:
/// the footprint words of every buffer it touches, summed per bank (each buffer
/// streamed once), a non-contraction task's capped at its elements (Task::elements: it
/// touches no more of a buffer than that), a contraction's (the distinct words of each
/// operand, each streamed once: a lower bound of what its lane reads move) at its operands' elements (C:
/// batch·rows·cols, one batch when reduced; A: batch·rows·inner; B: batch·inner·cols; A
/// and B the first two reads other than C outside index_mem). Buffers without a bank are
/// skipped.
std::vector<std::vector<BankTraffic>> task_bank_traffic(const TaskGraph& graph, const BankMap& banks,
                                                        const std::vector<std::int64_t>& footprint);

/// Run options.
struct EngineOptions {
  bool unlimited_units = false;  ///< one instance per task of each class
  bool port_contention = true;   ///< false: banks impose no limits
  /// true: the analytic list schedule of the same units (sim/analytic.h list_schedule,
  /// no port model) instead of a SystemC run; the explorer's fast fidelity.
  bool analytic = false;
  /// false: StepResult::occupancy is left empty (the explorer's analytic pass, whose
  /// figures never read it); true: the step's live bytes per buffer class over time.
  bool occupancy = true;
  /// Extra cycles added to each task's duration (by id); empty = none. Used by the
  /// randomized stress tests.
  std::vector<std::int64_t> extra_cycles;
};

/// One bank occupation (for the trace).
struct BankSlice {
  int bank = -1;
  int task = -1;
  int ports = 0;
  std::int64_t start = 0, end = 0;
};

/// Result of a SystemC run.
struct EngineResult {
  Schedule schedule;
  std::vector<BankSlice> bank_slices;
  std::array<int, kUnitKinds> instances{};  ///< unit instances elaborated per class
};

/// Runs the step in SystemC. Throws std::runtime_error if the simulation ends with
/// tasks not executed (deadlock), which a valid DAG never causes.
EngineResult run_systemc(const SchedGraph& sg, const BankMap& banks,
                         const std::vector<std::vector<BankTraffic>>& traffic,
                         const EngineOptions& options);

}  // namespace ttsim
