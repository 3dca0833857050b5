#pragma once
// The loop structure of every HLS training kernel, as functions of the task shape and
// the lane count: the single source of truth shared by the kernels in hls/kernels
// (whose C-simulation loop counters must equal these trip counts) and by the
// simulator's kernel latency model (sim/), which turns each loop into cycles as
// (trip - 1) · II + depth.

#include <cstdint>
#include <string>
#include <vector>

#include "models/task_graph.h"

namespace ttsim {

/// One flattened, pipelined loop of a kernel.
struct LoopSpec {
  std::string name;   ///< loop label in the HLS source, e.g. "contract", "softmax_exp_sum"
  std::int64_t trip;  ///< trip count (iterations of the pipelined body)
  /// Floating-point operators on the body's critical path, in order; with the memory
  /// read latency they set the pipeline depth: depth = read_latency + Σ latency(op) + 1.
  std::vector<std::string> chain;
  /// Loop-carried dependence through the last operator of `chain` (the accumulation):
  /// iterations between an update of an accumulator and its next update; 0 when the
  /// body carries no dependence. The achievable II is at least
  /// ceil(latency(last op) / recurrence_distance).
  std::int64_t recurrence_distance = 0;
};

/// ceil(a / b) for a >= 0, b >= 1.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The loops, in program order, of the kernel that runs `op` on `shape` with `lanes`
/// parallel lanes (the UNROLL factor of the body; lanes >= 1).
///
/// Contraction: one loop "contract" of trip batch · rows · inner · ceil(cols / lanes):
///   the lanes compute `lanes` adjacent output columns; the reduction index is outside
///   the column tile so the fadd accumulation has a dependence distance of
///   rows · ceil(cols / lanes) iterations (II = 1 when that is >= the fadd latency).
/// Row-wise and element-wise ops: each pass over the data is a loop of trip
///   batch · rows · ceil(cols / lanes).
/// Throws std::invalid_argument when lanes < 1 or a shape extent is < 1.
std::vector<LoopSpec> kernel_loops(TaskOp op, const TaskShape& shape, int lanes);

/// Sum of the trip counts of kernel_loops(op, shape, lanes).
std::int64_t total_trips(TaskOp op, const TaskShape& shape, int lanes);

}  // namespace ttsim
