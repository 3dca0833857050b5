#pragma once
// Kernel latency model: cycles a task holds its unit, computed from the kernel's loop
// nest (hls/loop_nest.h kernel_loops), the single source of truth shared with the HLS
// kernels. Per loop: (trip - 1) · II + depth, with
//   depth = memory read latency + Σ latency(op) over the loop's operator chain + 1
//   II    = max(target II of the unit, ceil(latency(last op) / recurrence_distance))
// (operator latencies from the device file at the arch clock); per task the unit's
// overhead cycles are added once.
// With a calibration (ArchSpec::calibration, sim/kernel_params.h) the kernels it covers
// use its fitted II, depth adjustment and overhead, and its operator latencies replace
// the device's. Synthesis reports show a pipelined loop as (trip − 1)·II + depth − 1 and
// sequential code adds FSM states; the uncalibrated formula above does not model either,
// the calibration absorbs both (depth_adjust, overhead).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hls/loop_nest.h"
#include "models/task_graph.h"
#include "sim/arch_spec.h"
#include "sim/device_spec.h"

namespace ttsim {

/// Latency of one loop of a kernel.
struct LoopLatency {
  std::string name;
  std::int64_t trip = 0;
  int ii = 1;     ///< achieved initiation interval (cycles)
  int depth = 0;  ///< pipeline depth (cycles)
  std::int64_t cycles = 0;  ///< (trip - 1) · ii + depth
};

/// Latency model for one (arch, device) pair. Operator latencies are resolved once at
/// construction (InputError when the device file lacks an operator used by a chain or
/// has no latency for the arch clock).
class KernelLatencyModel {
 public:
  KernelLatencyModel(const ArchSpec& arch, const DeviceSpec& device);

  /// Per-loop latencies of `op` on `shape` on a unit of kind `unit`.
  std::vector<LoopLatency> loops(UnitKind unit, TaskOp op, const TaskShape& shape) const;
  /// Cycles of a task on its unit: Σ loops(...).cycles + overhead of the unit.
  std::int64_t task_cycles(UnitKind unit, TaskOp op, const TaskShape& shape) const;
  std::int64_t task_cycles(const Task& t) const { return task_cycles(t.unit, t.op, t.shape); }
  /// Memory read latency assumed at the head of every pipeline (cycles): the larger of
  /// the device's BRAM and URAM read latencies.
  int read_latency() const { return read_latency_; }
  /// Model pipeline depth (cycles) of each loop of `op`'s kernel, in kernel_loops()
  /// order, before any calibrated depth adjustment: read latency + Σ latency(chain) + 1.
  std::vector<int> base_depths(TaskOp op) const;
  /// True when the arch's calibration covers `op`.
  bool calibrated(TaskOp op) const;
  /// Cycles of one invocation of `op`'s kernel on a unit of kind `unit` whose loops
  /// (kernel_loops order) run `trips` iterations: task_cycles with the trip counts given
  /// instead of derived from a shape, and without the recurrence bound on II (it depends
  /// on the shape, which csynth reports do not carry). Prices csynth report samples.
  /// Throws std::invalid_argument when trips.size() is not the kernel's loop count.
  std::int64_t cycles_for_trips(UnitKind unit, TaskOp op, const std::vector<std::int64_t>& trips) const;

 private:
  int op_latency(const std::string& op) const;
  const KernelParams* params(TaskOp op) const;
  LoopLatency price(const UnitSpec& u, const KernelParams* cal, const LoopSpec& l) const;
  std::int64_t overhead(UnitKind unit, TaskOp op) const;
  std::array<UnitSpec, kUnitKinds> units_;
  std::map<std::string, int> op_latency_;
  int read_latency_ = 1;
  std::shared_ptr<const KernelCalibration> calibration_;
};

}  // namespace ttsim
