#include "sim/memplan/occupancy.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace ttsim::memplan {

std::int64_t& ClassBytes::of(BufferClass c) {
  switch (c) {
    case BufferClass::kParameter: return parameter;
    case BufferClass::kGradient: return gradient;
    case BufferClass::kActivation: return activation;
    case BufferClass::kTemporary: return temporary;
  }
  return temporary;
}

std::int64_t ClassBytes::of(BufferClass c) const { return const_cast<ClassBytes*>(this)->of(c); }

bool whole_step(const Buffer& b) {
  // A gradient lives from its first write to its (fused) update, like any other buffer.
  return b.cls == BufferClass::kParameter || b.first_task < 0 || b.last_task < 0;
}

Occupancy compute_occupancy(const TaskGraph& graph, int bytes_per_word) {
  const int n = static_cast<int>(graph.tasks.size());
  Occupancy occ;
  occ.by_task.assign(n, ClassBytes{});
  // Difference array per class: +bytes at first, -bytes after last.
  std::vector<ClassBytes> delta(n + 1);
  ClassBytes always;
  for (const Buffer& b : graph.buffers) {
    const std::int64_t bytes = b.words * bytes_per_word;
    occ.no_reuse.of(b.cls) += bytes;
    if (whole_step(b)) {
      always.of(b.cls) += bytes;
      continue;
    }
    if (b.first_task > b.last_task || b.last_task >= n) {
      throw InputError(fmt::format(
          "buffer \"{}\": lifetime tasks [{}, {}] invalid for a graph of {} tasks", b.name,
          b.first_task, b.last_task, n));
    }
    delta[b.first_task].of(b.cls) += bytes;
    delta[b.last_task + 1].of(b.cls) -= bytes;
  }
  ClassBytes running = always;
  occ.peak_by_class = always;
  occ.peak_total = always.total();
  occ.at_peak = always;
  for (int t = 0; t < n; ++t) {
    for (BufferClass c : {BufferClass::kParameter, BufferClass::kGradient, BufferClass::kActivation,
                          BufferClass::kTemporary}) {
      running.of(c) += delta[t].of(c);
      if (running.of(c) > occ.peak_by_class.of(c)) occ.peak_by_class.of(c) = running.of(c);
    }
    occ.by_task[t] = running;
    if (occ.peak_task < 0 || running.total() > occ.peak_total) {
      occ.peak_total = running.total();
      occ.peak_task = t;
      occ.at_peak = running;
    }
  }
  return occ;
}

}  // namespace ttsim::memplan
