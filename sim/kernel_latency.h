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
//
// Pricing a task allocates nothing: the model prices the closed form of each kernel's
// loops (sim/kernel_loop_form.h, derived from kernel_loops()) with per-loop operator
// latency sums resolved once at construction; kernels without a closed form, and
// shapes kernel_loops() rejects, go through kernel_loops() itself.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hls/loop_nest.h"
#include "models/task_graph.h"
#include "sim/arch_spec.h"
#include "sim/device_spec.h"
#include "sim/kernel_loop_form.h"

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
  /// Cycles of a task on its unit: Σ loops(...).cycles + overhead of the unit, computed
  /// without building loops(). Throws std::invalid_argument like kernel_loops() for a
  /// shape extent < 1 or a unit with lanes < 1.
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
  /// task_cycles from loops(): the path for kernels without a precomputed form.
  std::int64_t task_cycles_from_loops(UnitKind unit, TaskOp op, const TaskShape& shape) const;
  void precompute();

  /// Most loops a kernel may have to be priced from its precomputed form.
  static constexpr int kMaxPricedLoops = 4;
  /// One loop of a kernel's closed form with its operator latencies resolved.
  struct PricedLoop {
    ShapeMonomial trip, recurrence;
    int base_depth = 0;    ///< read latency + Σ latency(chain) + 1 (cycles)
    int last_latency = 0;  ///< latency of the chain's last operator (cycles)
    bool has_chain = false;
  };
  /// A kernel's precomputed form; `fast` false: price through kernel_loops().
  struct PricedKernel {
    bool fast = false;
    int loop_count = 0;
    std::array<PricedLoop, kMaxPricedLoops> loops{};
    const KernelParams* cal = nullptr;  ///< calibration of the op, if any
    std::int64_t cal_overhead = 0;      ///< max(0, round(cal->overhead)) when cal
  };

  std::array<UnitSpec, kUnitKinds> units_;
  std::map<std::string, int> op_latency_;
  int read_latency_ = 1;
  std::shared_ptr<const KernelCalibration> calibration_;
  std::array<PricedKernel, kTaskOpCount> priced_{};
};

}  // namespace ttsim
