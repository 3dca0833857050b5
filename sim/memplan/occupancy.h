#pragma once
// Live on-chip bytes over one training step, from buffer lifetimes.
//
// Time is the task index of the TaskGraph (tasks are in a topological order, so the
// index is a valid execution order). A buffer is live at task t when it is a parameter
// or gradient (they live for the whole step), when no task touches it (conservatively
// whole step), or when first_task <= t <= last_task. Temporaries and activations free
// their space after their last task, so peak occupancy is below the sum of all buffers.

#include <cstdint>
#include <vector>

#include "models/task_graph.h"

namespace ttsim::memplan {

/// Bytes per buffer class (BufferClass order: parameter, gradient, activation, temporary).
struct ClassBytes {
  std::int64_t parameter = 0;
  std::int64_t gradient = 0;
  std::int64_t activation = 0;
  std::int64_t temporary = 0;
  std::int64_t total() const { return parameter + gradient + activation + temporary; }
  std::int64_t& of(BufferClass c);
  std::int64_t of(BufferClass c) const;
};

/// Occupancy of one step.
struct Occupancy {
  /// Live bytes by class at each task index (size = number of tasks).
  std::vector<ClassBytes> by_task;
  /// Each class's own peak over the step (the classes may peak at different tasks).
  ClassBytes peak_by_class;
  /// Peak of the total live bytes, the task index where it occurs (first such index;
  /// -1 for a graph without tasks) and the split by class at that task.
  std::int64_t peak_total = 0;
  int peak_task = -1;
  ClassBytes at_peak;
  /// Bytes of every buffer added up, as if nothing were ever freed.
  ClassBytes no_reuse;
};

/// True when buffer `b` is live for the whole step (a parameter, or untouched).
bool whole_step(const Buffer& b);

/// Occupancy of `graph` with `bytes_per_word` bytes per word (FP32: 4).
/// Throws InputError when a buffer has first_task > last_task or a task index out of range.
Occupancy compute_occupancy(const TaskGraph& graph, int bytes_per_word = 4);

}  // namespace ttsim::memplan
