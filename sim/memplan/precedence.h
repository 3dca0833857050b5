#pragma once
// Dependency order between buffers of a task graph, used to decide which buffers may
// share addresses: A may reuse B's addresses only if every task touching A is a
// (transitive) predecessor of every task touching B, or the other way round.

#include <cstdint>
#include <vector>

#include "models/task_graph.h"

namespace ttsim::memplan {

class BufferOrder {
 public:
  /// Builds ancestor sets of every task (bitsets, tasks² bits) and, per buffer, the
  /// tasks that touch it. `graph` must be validated (deps earlier than their task,
  /// buffer ids in range).
  explicit BufferOrder(const TaskGraph& graph);

  /// Tasks that read or write buffer `b`, ascending, without duplicates.
  const std::vector<int>& touching(int b) const { return touch_[b]; }
  /// True when every access of buffer `a` happens before every access of buffer `b`
  /// in any schedule that respects the dependencies. False if either is untouched.
  bool precedes(int a, int b) const;
  /// True when `a` and `b` can never be live at the same time (either precedes the other).
  bool disjoint(int a, int b) const { return precedes(a, b) || precedes(b, a); }
  /// True when task `u` is a transitive predecessor of task `v`.
  bool is_ancestor(int u, int v) const {
    return (anc_[v][u >> 6] >> (u & 63)) & 1u;
  }

 private:
  std::vector<std::vector<std::uint64_t>> anc_;         ///< per task: ancestor bitset
  std::vector<std::vector<int>> touch_;                 ///< per buffer: touching tasks
  std::vector<std::vector<std::uint64_t>> common_anc_;  ///< per buffer: ∩ anc(touchers)
};

}  // namespace ttsim::memplan
