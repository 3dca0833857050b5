#pragma once
// On-chip occupancy over simulated time: which buffers are live when, their footprint
// (after contraction fusion), and the peak bytes per buffer class.

#include <array>
#include <cstdint>
#include <vector>

#include "models/task_graph.h"
#include "sim/schedule.h"

namespace ttsim {

/// Number of BufferClass values.
inline constexpr int kBufferClasses = 4;

/// Buffers that fusion streams between a producer and its consumers: a temporary written
/// by exactly one contraction task P and read only by contraction tasks that each depend
/// on P directly (P's output rows are consumed as they are produced). All false when
/// `fusion` is off.
std::vector<bool> fused_buffers(const TaskGraph& graph, bool fusion);

/// On-chip words of each buffer: its words, or for a fused buffer one output row of its
/// producer double-buffered, min(words, 2 · producer.shape.cols) (the O(r)-sized
/// sub-tensor of the reference design's fine-grained fusion).
std::vector<std::int64_t> buffer_footprints(const TaskGraph& graph, const std::vector<bool>& fused);
/// buffer_footprints into `out` (its storage reused: a design re-simulated in place).
void buffer_footprints_into(const TaskGraph& graph, const std::vector<bool>& fused, std::vector<std::int64_t>& out);

/// Live bytes per class at one instant.
struct OccupancySample {
  std::int64_t time = 0;                            ///< cycles
  std::array<std::int64_t, kBufferClasses> bytes{};  ///< by BufferClass
};

/// Occupancy of a schedule. Parameters are live for the whole step; any other buffer (a
/// gradient included, from its first write to its fused update) from the start of the first task touching it to the end of the last.
struct Occupancy {
  std::array<std::int64_t, kBufferClasses> peak_bytes{};  ///< peak of each class alone
  std::int64_t peak_total_bytes = 0;                      ///< peak of the sum
  std::vector<OccupancySample> series;  ///< one sample per time the live set changes
};

/// Computes occupancy from FP32 footprints (4 bytes per word) and task times.
Occupancy compute_occupancy(const TaskGraph& graph, const Schedule& schedule,
                            const std::vector<std::int64_t>& footprint);
/// compute_occupancy into `occ` (its storage reused: a design re-simulated in place).
void compute_occupancy_into(const TaskGraph& graph, const Schedule& schedule,
                            const std::vector<std::int64_t>& footprint, Occupancy& occ);

}  // namespace ttsim
