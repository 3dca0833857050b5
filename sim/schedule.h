#pragma once
// The outcome of executing a SchedGraph: when each task ran and on which unit instance.
// Produced identically (same tie-breaking) by the analytic evaluator
// (sim/analytic.h) and the SystemC engine (sim/sc_engine.h).

#include <cstdint>
#include <vector>

namespace ttsim {

/// Timing of one task (cycles from the start of the step).
struct TaskTime {
  std::int64_t start = 0;
  std::int64_t end = 0;  ///< start + latency (+ port stretch under contention)
  int unit_index = -1;   ///< instance of its unit class it ran on (0-based)
};

/// A complete schedule of one training step.
struct Schedule {
  std::vector<TaskTime> tasks;  ///< indexed by task id
  std::int64_t makespan = 0;    ///< cycles of the step: the latest end
  std::uint64_t events = 0;     ///< dispatch + completion events processed
};

}  // namespace ttsim
