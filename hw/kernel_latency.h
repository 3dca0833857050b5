#pragma once
// Kernel latency model: cycles a task holds its unit, derived from the kernel
// specification hls/include/kernel_spec.h (through hw/loop_nest.h) and the device's
// operator latencies at the arch clock. No initiation interval is a free parameter.
//
// Per pipelined loop l of the task's kernel that runs for its variant (trip_l > 0):
//   RecMII_l = max over recurrences r of l: ceil(Σ latency(op on r) / distance_r)
//              (1 when l has none; a recurrence with no operators has latency 0)
//   ResMII_l = max over arrays a of l: ceil(accesses per iteration to one bank of a /
//              ttsim_spec::kBankPorts), accesses = a's scalar sites + its lane sites ·
//              ceil(lanes / banks) (hls/include/banked.h: a lane site addresses each bank
//              once per window of `banks` lanes at its compile-time index — once while
//              lanes <= banks, twice for the contraction's dual-port lanes — and a scalar
//              site at a runtime index holds one port of every bank; banks: the arch's
//              arena_banks). Arrays are the kernel's
//              arguments; arguments a task places in one physical memory
//              (TaskShape::memories) pool their accesses on its ports
//              (shared_resource_mii).
//   II_l     = max(1, RecMII_l, ResMII_l)
//              (lower bound of modulo scheduling: B. R. Rau, "Iterative modulo
//              scheduling", MICRO 1994; Vitis HLS reaches it for the kernels'
//              II = 1 pragmas when it holds, UG1399 "pipeline" / "dependence")
//   depth_l  = max(1, Σ latency(op in chain_l))
//   cycles_l = (trip_l − 1) · II_l + depth_l          (UG1399: pipelined loop latency)
// and per task: Σ_l cycles_l + the unit's overhead (cycles, arch file).
// Operator latencies: "read" = max(device BRAM, URAM read latency), "write" = the
// device's memory write_latency, every other operator the device file's float_ops entry
// at the arch clock (a calibration's op_latency replaces them where it has one).
//
// With a calibration (ArchSpec::calibration, hw/kernel_params.h) covering a kernel,
// each of its loop classes gets the fitted depth adjustment (depth_l =
// max(1, round(Σ latency + depth_adjust[l]))) and the task the fitted overhead; the II
// stays the derived one. Synthesis reports show a pipelined loop as (trip − 1)·II +
// depth − 1 and sequential code adds FSM states; the uncalibrated formula above does
// not model either, a calibration absorbs both.
//
// Pricing a task allocates nothing: the II, RecMII, ResMII and depth of every loop of
// every kernel on every unit kind (its lane count) are resolved once at construction;
// a task only evaluates ttsim_spec::loop_trip() per loop (constexpr arithmetic).

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "hls/include/kernel_spec.h"
#include "hw/loop_nest.h"
#include "models/task_graph.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"

namespace ttsim {

/// Latency (cycles) of each operator of the specification, indexed by ttsim_spec::Opr.
using OperatorLatencies = std::array<int, ttsim_spec::kOprCount>;

/// Cycles of every floating-point operator of `device` (float_ops) as KernelLatencyModel
/// prices them at `clock_mhz`: `calibration`'s op_latency where it has one, else the
/// device's table (null calibration: the table). Throws InputError for a clock above an
/// operator's table.
std::map<std::string, int> priced_operator_latencies(const DeviceSpec& device, double clock_mhz,
                                                     const KernelCalibration* calibration);

/// Σ latency(op) over ops[0..n), kTree operators counted tree_levels(lanes) times (cycles).
int ops_latency(const ttsim_spec::ChainOp* ops, int n, const OperatorLatencies& lat, int lanes);

/// RecMII of one recurrence: ceil(Σ latency(op on the cycle) / distance) cycles; 0 for a
/// recurrence without operators. Throws std::invalid_argument for a distance < 1.
int recurrence_mii(const ttsim_spec::Recurrence& r, const OperatorLatencies& lat, int lanes);

/// Initiation-interval bounds and depth of one loop (cycles).
struct LoopTiming {
  int rec_mii = 1;  ///< max(1, max over recurrences recurrence_mii)
  int res_mii = 1;  ///< max(1, max over arrays ceil(per-bank accesses / kBankPorts))
  int ii = 1;       ///< max(rec_mii, res_mii)  (Rau 1994)
  int depth = 1;    ///< max(1, Σ latency(op in chain))
};

/// ResMII of a loop on `lanes` lanes over arrays of `banks` banks (0: as many as lanes) from
/// its array accesses: per array (sites naming the same array are summed) its scalar sites
/// plus its lane and window-scalar sites times ttsim_spec::lane_site_accesses(lanes, banks)
/// (one access per bank per window of `banks` lanes, banked.h), ceil(· / kBankPorts); at
/// least 1. Throws
/// std::invalid_argument for lanes < 1.
int resource_mii(const ttsim_spec::LoopSpec& l, int lanes, int banks = 0);

/// resource_mii when some of the kernel's arguments share a physical memory: arguments
/// whose ttsim_spec::memory_of(memories, slot) is the same non-zero memory pool their
/// accesses on that memory's kBankPorts ports; 0 keeps an argument apart. `k` is the kernel
/// of `l`. Equals resource_mii(l, lanes, banks) when memories == 0.
int shared_resource_mii(const ttsim_spec::LoopSpec& l, const ttsim_spec::KernelSpec& k, int lanes, int banks,
                        std::uint64_t memories);

/// A loop's latencies resolved for given operator latencies, before the lane count is
/// known: every path's latency as once + levels · tree, where `once` sums its kOnce
/// operators, `tree` its kTree operators and levels = tree_levels(lanes) (cycles).
struct LoopCost {
  int chain_once = 0, chain_tree = 0;  ///< the chain (depth)
  struct Rec {
    int once = 0, tree = 0;
    int distance = 1;
  };
  std::array<Rec, std::extent<decltype(ttsim_spec::LoopSpec::rec)>::value> rec{};  ///< recurrences
  int n_rec = 0;
  /// Per distinct array: access sites per iteration of lane kind and of scalar kind
  /// (resource_mii at a lane count).
  struct Sites {
    int lane = 0, scalar = 0;
  };
  std::array<Sites, std::extent<decltype(ttsim_spec::LoopSpec::access)>::value> sites{};
  int n_arrays = 0;
};

/// The cost of loop `l` at operator latencies `lat`. Throws std::invalid_argument for a
/// recurrence distance < 1.
LoopCost loop_cost(const ttsim_spec::LoopSpec& l, const OperatorLatencies& lat);

/// The II bounds and depth of a loop of cost `c` on `lanes` >= 1 lanes over arrays of
/// `banks` banks (0: as many as lanes): the formulas of this header. Throws
/// std::invalid_argument for lanes < 1.
LoopTiming loop_timing(const LoopCost& c, int lanes, int banks = 0);

/// The II bounds and depth of loop `l` on `lanes` lanes with operator latencies `lat`:
/// loop_timing(loop_cost(l, lat), lanes), the functions the model prices every loop with
/// (so recurrence_mii(r, lat, lanes) = ceil((once + levels · tree) / distance) of r).
/// Throws std::invalid_argument for lanes < 1 or a recurrence distance < 1.
LoopTiming loop_timing(const ttsim_spec::LoopSpec& l, const OperatorLatencies& lat, int lanes, int banks = 0);

/// Latency of one loop of a kernel.
struct LoopLatency {
  std::string name;          ///< kernel_spec.h loop name (loop class)
  std::int64_t trip = 0;     ///< iterations
  int ii = 1;                ///< initiation interval, cycles: max(rec_mii, res_mii)
  int rec_mii = 1;           ///< recurrence bound on the II, cycles
  int res_mii = 1;           ///< memory-port bound on the II, cycles
  int depth = 0;             ///< pipeline depth, cycles (calibrated when the kernel is)
  std::int64_t cycles = 0;   ///< (trip − 1) · ii + depth; 0 when trip is 0
};

/// Latency model for one (arch, device) pair. Operator latencies are resolved once at
/// construction: InputError when the device file lacks an operator some kernel's chain
/// or recurrence uses (and no calibration gives it) or has no latency for the arch clock.
class KernelLatencyModel {
 public:
  KernelLatencyModel(const ArchSpec& arch, const DeviceSpec& device);

  /// Per-loop latencies of `op` on `shape` on a unit of kind `unit` (its lanes): the
  /// loops kernel_loops() runs, in specification order. Errors as kernel_loops().
  std::vector<LoopLatency> loops(UnitKind unit, TaskOp op, const TaskShape& shape) const;
  /// Cycles of a task on its unit: Σ loops(...).cycles + overhead of the unit (or the
  /// calibrated overhead), computed without allocating. Throws std::invalid_argument like
  /// kernel_loops() (a shape extent < 1, a negative variant or one that selects no loop,
  /// a unit with lanes < 1).
  std::int64_t task_cycles(UnitKind unit, TaskOp op, const TaskShape& shape) const;
  std::int64_t task_cycles(const Task& t) const { return task_cycles(t.unit, t.op, t.shape); }
  /// Memory read latency of the "read" operator (cycles): the larger of the device's BRAM
  /// and URAM read latencies.
  int read_latency() const { return lat_[ttsim_spec::kRead]; }
  /// Latency of the "write" operator (cycles): the device's memory write_latency.
  int write_latency() const { return lat_[ttsim_spec::kWrite]; }
  /// The operator latencies the model prices with (cycles; -1 for an operator no kernel
  /// uses and neither the device nor the calibration defines).
  const OperatorLatencies& operator_latencies() const { return lat_; }
  /// Every loop class of `op`'s kernel (all variants, specification order) on a unit of
  /// kind `unit`: name, ii, rec_mii, res_mii and depth (calibrated when the kernel is),
  /// trip and cycles 0.
  std::vector<LoopLatency> loop_classes(UnitKind unit, TaskOp op) const;
  /// loop_classes(unit, op)[loop].ii without building the list (cycles). Throws
  /// std::invalid_argument for a unit with lanes < 1 or a loop outside the kernel's.
  int class_ii(UnitKind unit, TaskOp op, int loop) const;
  /// Model depth (cycles) of each loop of `op`'s kernel on `unit`, all variants in
  /// specification order, before any calibrated depth adjustment: max(1, Σ latency(chain)).
  std::vector<int> base_depths(UnitKind unit, TaskOp op) const;
  /// True when the arch's calibration covers `op`.
  bool calibrated(TaskOp op) const;
  /// Cycles of one invocation of `op`'s kernel on a unit of kind `unit` whose loops run
  /// `trips` iterations: `trips` has one entry per loop of the kernel in specification
  /// order (all variants, all_kernel_loops()), 0 for a loop that does not run. Σ over
  /// loops with trip > 0 of (trip − 1) · II + depth, plus the overhead: task_cycles with
  /// the trip counts given instead of derived from a shape (the II and depth do not
  /// depend on the shape). Prices csynth report samples.
  /// Throws std::invalid_argument when trips.size() is not the kernel's loop count or a
  /// trip is negative.
  std::int64_t cycles_for_trips(UnitKind unit, TaskOp op, const std::vector<std::int64_t>& trips) const;

  /// Prices every loop at its instance's II from now on: one RTL instance per kernel
  /// module has one static schedule, so a loop runs every call at the largest II over the
  /// tasks of `graph` that run it (a task whose arguments share an arena needs the larger
  /// ResMII, shared_resource_mii). loops(), task_cycles() and loop_classes() then report
  /// max(the task's own II, the instance's); loop_classes() gives the instance's for loops
  /// the graph runs. Calling it again rebinds to the new graph. Throws like task_cycles()
  /// for a task the model cannot price.
  void bind_instances(const TaskGraph& graph);
  /// bind_instances over the tasks `tasks` of `graph` only (ids): the same binding when
  /// every task of the graph has the unit, op and shape of one of them (as the
  /// representatives of the schedule graph's latency classes, SchedGraph::price_rep).
  void bind_instances(const TaskGraph& graph, const std::vector<int>& tasks);
  /// bind_instances(graph, tasks), then cycles[k] = task_cycles(graph.tasks[tasks[k]]) under
  /// that binding (cycles resized to tasks.size()): the same figures, each task's loop trips
  /// and own IIs computed once for both. Throws like task_cycles() for a task the model
  /// cannot price.
  void bind_instances(const TaskGraph& graph, const std::vector<int>& tasks, std::vector<std::int64_t>& cycles);
  /// True after bind_instances().
  bool bound() const { return bound_; }

 private:
  /// Most loops a kernel specification holds.
  static constexpr int kMaxLoops = static_cast<int>(std::extent<decltype(ttsim_spec::KernelSpec::loops)>::value);
  /// One loop with its timing resolved for one unit kind.
  struct PricedLoop {
    const ttsim_spec::LoopSpec* spec = nullptr;
    LoopTiming timing;     ///< uncalibrated
    int depth = 1;         ///< timing.depth with the calibrated adjustment, if any
  };
  /// A kernel on one unit kind.
  struct PricedKernel {
    int loop_count = 0;
    std::array<PricedLoop, kMaxLoops> loops{};
    std::int64_t overhead = 0;  ///< unit overhead, or max(0, round(calibrated overhead))
  };

  /// One loop of one task as bind_over saw it: its trip count (<= 0: it does not run) and
  /// the task's own II (before the instance's binding).
  struct OwnLoop {
    std::int64_t trip = 0;
    int ii = 0;
  };
  /// bind_instances(graph, tasks); with `own`, also each listed task's OwnLoop per loop
  /// ((*own)[k] for tasks[k]).
  void bind_over(const TaskGraph& graph, const std::vector<int>& tasks,
                 std::vector<std::array<OwnLoop, kMaxLoops>>* own);
  const KernelParams* params(TaskOp op) const;
  const PricedKernel& priced(UnitKind unit, TaskOp op) const;
  LoopLatency latency_of(const PricedLoop& l, std::int64_t trip) const;
  /// (II, ResMII) of loop `i` of `op` for a task whose arguments occupy `memories`
  /// (TaskShape::memories), raised to the instance's when bound.
  std::pair<int, int> loop_ii(const PricedLoop& l, int i, TaskOp op, int lanes, std::uint64_t memories) const;

  std::array<UnitSpec, kUnitKinds> units_;
  int banks_ = 1;  ///< banks of every arena (arena_banks of the arch)
  OperatorLatencies lat_{};
  std::shared_ptr<const KernelCalibration> calibration_;
  std::array<std::array<PricedKernel, kTaskOpCount>, kUnitKinds> priced_{};
  bool bound_ = false;
  /// By op and loop: the instance's II and ResMII over the bound graph (0: not run).
  std::array<std::array<int, kMaxLoops>, kTaskOpCount> instance_ii_{}, instance_res_mii_{};
};

}  // namespace ttsim
