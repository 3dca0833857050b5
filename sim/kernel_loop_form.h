#pragma once
// Closed form of each kernel's loop nest, derived from hls/loop_nest.h kernel_loops()
// (which stays the single source of truth) so the latency model can price a task
// without building LoopSpec vectors: every loop's trip count and recurrence distance
// written as a monomial of the shape
//   value = coeff · batch^b · rows^r · inner^i · tiles^t,  tiles = ceil(cols / lanes),
// with exponents 0 or 1, and its operator chain, which does not depend on the shape.
//
// Derivation (once per process): kernel_loops(op, {1,1,1,1}, 1) gives the coefficient
// and the chains; doubling one extent at a time (cols with lanes = 1 for tiles) gives
// each exponent (ratio 1 → 0, ratio 2 → 1). The form is then checked against
// kernel_loops() on a fixed set of probe shapes and lane counts (names, chains, trip
// counts, recurrence distances); an op whose loops are not of this form, or do not
// match on every probe, is marked not closed and is priced from kernel_loops() itself.

#include <cstdint>
#include <string>
#include <vector>

#include "models/task_graph.h"

namespace ttsim {

/// Number of TaskOp values (TaskOp::kSgdUpdate is the last); ops at or beyond it have
/// no closed form and are priced from kernel_loops().
inline constexpr int kTaskOpCount = static_cast<int>(TaskOp::kSgdUpdate) + 1;

/// coeff · batch^b · rows^r · inner^i · tiles^t with each exponent 0 or 1.
struct ShapeMonomial {
  std::int64_t coeff = 0;
  bool batch = false, rows = false, inner = false, tiles = false;
  /// Value on `s` with `tiles` = ceil(s.cols / lanes).
  std::int64_t eval(const TaskShape& s, std::int64_t tiles_) const {
    std::int64_t v = coeff;
    if (batch) v *= s.batch;
    if (rows) v *= s.rows;
    if (inner) v *= s.inner;
    if (tiles) v *= tiles_;
    return v;
  }
};

/// One loop of a kernel in closed form.
struct LoopForm {
  std::string name;                ///< LoopSpec::name
  std::vector<std::string> chain;  ///< LoopSpec::chain (shape-independent)
  std::vector<int> chain_ids;      ///< chain as indices into kernel_operators()
  ShapeMonomial trip;              ///< LoopSpec::trip
  ShapeMonomial recurrence;        ///< LoopSpec::recurrence_distance (coeff 0: none)
};

/// The loops of one op's kernel, in kernel_loops() order.
struct KernelForm {
  /// True when `loops` reproduces kernel_loops() on every probe; when false, only the
  /// names and chains (taken at shape {1,1,1,1}, lanes 1) are meaningful.
  bool closed = false;
  std::vector<LoopForm> loops;
};

/// The closed form of `op`'s kernel, derived from kernel_loops() on first use
/// (thread-safe; the result lives for the process). Throws std::out_of_range for an op
/// at or beyond kTaskOpCount.
const KernelForm& kernel_form(TaskOp op);

/// The distinct operator names of every kernel's chains, in order of first use over
/// the ops in TaskOp order (the index space of LoopForm::chain_ids).
const std::vector<std::string>& kernel_operators();

}  // namespace ttsim
