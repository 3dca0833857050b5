#pragma once
// The loop structure of every HLS training kernel as the simulator sees it: the
// kernel specification hls/include/kernel_spec.h (constexpr data shared with the HLS
// kernels in hls/kernels, which take their loop bounds from it) evaluated for one task
// shape, variant and lane count. For each pipelined loop: its trip count, its operator
// chain (critical path of one iteration), its loop-carried recurrences and its array
// accesses per iteration. The latency model (hw/kernel_latency.h) derives each loop's
// II and depth from these and the device's operator latencies:
//   II = max(RecMII, ResMII)  (B. R. Rau, "Iterative modulo scheduling", MICRO 1994)
//   depth = Σ latency(op in chain)
// and prices a loop as (trip − 1) · II + depth cycles (UG1399, "pipelined loop latency").
//
// The TaskOp → kernel mapping is by name: the KernelSpec whose `task_op` equals
// to_string(op) (models/task_graph.h).

#include <cstdint>
#include <string>
#include <vector>

#include "hls/include/kernel_spec.h"
#include "models/task_graph.h"

namespace ttsim {

/// A loop-carried dependence cycle of a loop (kernel_spec.h Recurrence), operators
/// expanded: the cycle's latency is Σ latency(ops) and it closes every `distance`
/// iterations, so it bounds the II from below by ceil(Σ latency / distance).
struct LoopRecurrence {
  std::string variable;          ///< accumulator or array that carries it ("acc", "C", ...)
  std::vector<std::string> ops;  ///< operator names on the cycle (may be empty: latency 0)
  int distance = 1;              ///< iterations between a write and the next read (>= 1)
};

/// Accesses per iteration of a loop to one array (kernel_spec.h ArrayAccess): every
/// site, scalar or lane, is one access to each bank (hls/include/banked.h); a lane or
/// window-scalar site of more lanes than the arrays have banks, lane_site_accesses.
struct LoopAccess {
  std::string array;        ///< kernel argument name ("A", "in", "stat", ...)
  bool lane = false;        ///< kLaneAccess or kWindowScalarAccess (true: one access per lane window), or kScalarAccess
  int reads = 0, writes = 0;  ///< access sites of the body
  /// Accesses to one bank per iteration with `lanes` lanes on `banks` banks (0: as many as
  /// lanes): (reads + writes) · lane_site_accesses for a lane site, reads + writes otherwise.
  int bank_accesses(int lanes, int banks = 0) const {
    return (reads + writes) * (lane ? ttsim_spec::lane_site_accesses(lanes, banks) : 1);
  }
};

/// One flattened, pipelined loop of a kernel, for one task.
struct LoopSpec {
  std::string name;   ///< loop label in the HLS source and the csynth report, e.g. "contract_column"
  std::int64_t trip = 0;  ///< iterations of the pipelined body (0 in all_kernel_loops())
  /// Operators on the body's critical path, in order, kTree operators repeated
  /// ttsim_spec::tree_levels(lanes) times: "read", "write" (memory accesses, latencies
  /// from the device's memory section) and the device file's float_ops keys.
  std::vector<std::string> chain;
  std::vector<LoopRecurrence> recurrences;
  std::vector<LoopAccess> accesses;
  int index = 0;  ///< position of the loop in its KernelSpec (kernel_spec.h order)
  /// The loop's entry in ttsim_spec::kKernelSpecs (static storage).
  const ttsim_spec::LoopSpec* spec = nullptr;
};

/// ceil(a / b) for a >= 0, b >= 1.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The specification of `op`'s kernel: the entry of ttsim_spec::kKernelSpecs whose
/// task_op is to_string(op). Throws std::invalid_argument when there is none.
const ttsim_spec::KernelSpec& kernel_spec(TaskOp op);

/// Operator names of `ops[0..n)` with kTree entries repeated tree_levels(lanes) times
/// (ttsim_spec::kOprNames). `lanes` >= 1.
std::vector<std::string> expand_ops(const ttsim_spec::ChainOp* ops, int n, int lanes);

/// Trip count of loop `l` for a task of shape `shape` on `lanes` lanes and arrays of `banks`
/// banks (0: as many as lanes): ttsim_spec::loop_trip(l.trip, l.variant, shape.variant,
/// batch, rows, inner, cols, lanes, banks); 0 when the loop does not run for the shape's
/// variant. No validation.
std::int64_t loop_trip(const ttsim_spec::LoopSpec& l, const TaskShape& shape, int lanes, int banks = 0);

/// The loops that run for `op` on `shape` with `lanes` parallel lanes (the UNROLL factor
/// of the body): every loop of the kernel's specification whose trip for this shape and
/// variant is > 0, in specification (program) order, each with its trip count, chain,
/// recurrences and accesses.
/// Throws std::invalid_argument when lanes < 1, a shape extent is < 1, the variant is
/// negative, or the variant selects no loop of the kernel (e.g. a contraction form 3, an
/// add variant other than kAddAccumulate / kAddColumnSum / kAddTranspose).
/// `banks`: of the arrays (0: as many as lanes; fewer banks than lanes pair the column
/// form's rows and the dot form's columns, ttsim_spec::column_rows_paired, dot_cols_paired).
std::vector<LoopSpec> kernel_loops(TaskOp op, const TaskShape& shape, int lanes, int banks = 0);

/// Every loop of `op`'s kernel regardless of variant (the loops a csynth report of the
/// kernel module may show), in specification order, with chains expanded for `lanes`
/// lanes and trip 0. Throws std::invalid_argument when lanes < 1.
std::vector<LoopSpec> all_kernel_loops(TaskOp op, int lanes);

/// Sum of the trip counts of kernel_loops(op, shape, lanes) (same errors).
std::int64_t total_trips(TaskOp op, const TaskShape& shape, int lanes, int banks = 0);

}  // namespace ttsim
