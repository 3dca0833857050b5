#include "sim/occupancy.h"

#include <algorithm>
#include <climits>

namespace ttsim {

std::vector<bool> fused_buffers(const TaskGraph& graph, bool fusion) {
  std::vector<bool> fused(graph.buffers.size(), false);
  if (!fusion) return fused;
  std::vector<int> writers(graph.buffers.size(), 0), writer(graph.buffers.size(), -1);
  std::vector<std::vector<int>> readers(graph.buffers.size());
  for (const Task& t : graph.tasks) {
    for (int b : t.writes) ++writers[b], writer[b] = t.id;
    for (int b : t.reads) readers[b].push_back(t.id);
  }
  for (const Buffer& b : graph.buffers) {
    if (b.cls != BufferClass::kTemporary || writers[b.id] != 1 || readers[b.id].empty()) continue;
    const Task& p = graph.tasks[writer[b.id]];
    if (p.op != TaskOp::kContraction) continue;
    bool ok = true;
    for (int r : readers[b.id]) {
      const Task& c = graph.tasks[r];
      ok = ok && c.op == TaskOp::kContraction &&
           std::find(c.deps.begin(), c.deps.end(), p.id) != c.deps.end();
    }
    fused[b.id] = ok;
  }
  return fused;
}

void buffer_footprints_into(const TaskGraph& graph, const std::vector<bool>& fused, std::vector<std::int64_t>& fp) {
  fp.resize(graph.buffers.size());
  thread_local std::vector<int> writer;
  writer.assign(graph.buffers.size(), -1);
  for (const Task& t : graph.tasks) {
    for (int b : t.writes) writer[b] = t.id;
  }
  for (const Buffer& b : graph.buffers) {
    fp[b.id] = b.words;
    if (fused[b.id] && writer[b.id] >= 0) {
      fp[b.id] = std::min(b.words, 2 * graph.tasks[writer[b.id]].shape.cols);
    }
  }
}

std::vector<std::int64_t> buffer_footprints(const TaskGraph& graph, const std::vector<bool>& fused) {
  std::vector<std::int64_t> fp;
  buffer_footprints_into(graph, fused, fp);
  return fp;
}

Occupancy compute_occupancy(const TaskGraph& graph, const Schedule& schedule,
                            const std::vector<std::int64_t>& footprint) {
  const std::size_t nb = graph.buffers.size();
  thread_local std::vector<std::int64_t> from, to;
  from.assign(nb, LLONG_MAX);
  to.assign(nb, -1);
  for (const Task& t : graph.tasks) {
    const TaskTime& tt = schedule.tasks[t.id];
    for (const auto* list : {&t.reads, &t.writes}) {
      for (int b : *list) {
        from[b] = std::min(from[b], tt.start);
        to[b] = std::max(to[b], tt.end);
      }
    }
  }
  // (time, +/- bytes, class).
  struct Ev { std::int64_t time; std::int64_t delta; int cls; };
  thread_local std::vector<Ev> ev;
  ev.clear();
  ev.reserve(2 * nb + 2 * kBufferClasses);
  // Parameters and gradients live for the whole step: one event per class and end (the
  // sum of their bytes), the same samples as one per buffer.
  std::int64_t whole[kBufferClasses] = {};
  bool any_whole[kBufferClasses] = {};
  for (const Buffer& b : graph.buffers) {
    const std::int64_t s = from[b.id], e = to[b.id];
    const bool whole_step = b.cls == BufferClass::kParameter || b.cls == BufferClass::kGradient;
    if (!whole_step && (e < 0 || s == LLONG_MAX)) continue;  // never touched
    const std::int64_t bytes = 4 * footprint[b.id];
    if (whole_step) {
      whole[static_cast<int>(b.cls)] += bytes;
      any_whole[static_cast<int>(b.cls)] = true;
      continue;
    }
    ev.push_back({s, bytes, static_cast<int>(b.cls)});
    ev.push_back({e, -bytes, static_cast<int>(b.cls)});
  }
  for (int c = 0; c < kBufferClasses; ++c) {
    if (!any_whole[c]) continue;
    ev.push_back({0, whole[c], c});
    ev.push_back({schedule.makespan, -whole[c], c});
  }
  // Every change at one time is applied before that time's sample, so only the times
  // need ordering.
  std::sort(ev.begin(), ev.end(), [](const Ev& a, const Ev& b) { return a.time < b.time; });
  Occupancy occ;
  occ.series.reserve(ev.size());
  OccupancySample cur;
  for (std::size_t i = 0; i < ev.size();) {
    const std::int64_t t = ev[i].time;
    for (; i < ev.size() && ev[i].time == t; ++i) cur.bytes[ev[i].cls] += ev[i].delta;
    cur.time = t;
    std::int64_t total = 0;
    for (int c = 0; c < kBufferClasses; ++c) {
      occ.peak_bytes[c] = std::max(occ.peak_bytes[c], cur.bytes[c]);
      total += cur.bytes[c];
    }
    occ.peak_total_bytes = std::max(occ.peak_total_bytes, total);
    occ.series.push_back(cur);
  }
  return occ;
}

}  // namespace ttsim
