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
  if (std::find(fused.begin(), fused.end(), true) == fused.end()) {  // every buffer whole
    for (const Buffer& b : graph.buffers) fp[b.id] = b.words;
    return;
  }
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

namespace {

// (time, +/- bytes, class).
struct Ev {
  std::int64_t time;
  std::int64_t delta;
  int cls;
};

/// True when task starts and ends never decrease with the task id (a sequential step's
/// chain): a buffer then lives from the start of the first task touching it to the end of
/// the last, and its events come out in time order from a counting sort by task id.
bool monotone(const TaskGraph& graph, const Schedule& schedule) {
  for (std::size_t i = 1; i < graph.tasks.size(); ++i) {
    if (schedule.tasks[i].start < schedule.tasks[i - 1].start || schedule.tasks[i].end < schedule.tasks[i - 1].end) {
      return false;
    }
  }
  return true;
}

}  // namespace

void compute_occupancy_into(const TaskGraph& graph, const Schedule& schedule,
                            const std::vector<std::int64_t>& footprint, Occupancy& occ) {
  const std::size_t nb = graph.buffers.size();
  const std::size_t nt = graph.tasks.size();
  thread_local std::vector<std::int64_t> from, to;
  thread_local std::vector<int> first, last;  // the first and last task touching each buffer
  from.assign(nb, LLONG_MAX);
  to.assign(nb, -1);
  first.assign(nb, -1);
  last.assign(nb, -1);
  for (const Task& t : graph.tasks) {
    const TaskTime& tt = schedule.tasks[t.id];
    for (const auto* list : {&t.reads, &t.writes}) {
      for (int b : *list) {
        from[b] = std::min(from[b], tt.start);
        to[b] = std::max(to[b], tt.end);
        if (first[b] < 0 || t.id < first[b]) first[b] = t.id;
        last[b] = std::max(last[b], t.id);
      }
    }
  }
  const bool in_order = monotone(graph, schedule);
  thread_local std::vector<Ev> ev, starts, ends;
  ev.clear();
  starts.clear();
  ends.clear();
  ev.reserve(2 * nb + 2 * kBufferClasses);
  // Parameters and gradients live for the whole step: one event per class and end (the
  // sum of their bytes), the same samples as one per buffer.
  std::int64_t whole[kBufferClasses] = {};
  bool any_whole[kBufferClasses] = {};
  thread_local std::vector<int> start_count, end_count;  // counting sort by task id
  if (in_order) {
    start_count.assign(nt + 1, 0);
    end_count.assign(nt + 1, 0);
  }
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
    if (in_order) {
      ++start_count[first[b.id] + 1];
      ++end_count[last[b.id] + 1];
    }
    ev.push_back({s, bytes, static_cast<int>(b.cls)});
    ev.push_back({e, -bytes, static_cast<int>(b.cls)});
  }
  if (in_order) {
    // The start events by first task and the end events by last task are each in time
    // order; merged, every event precedes the later ones (ties in any order: every change
    // at one time is applied before that time's sample).
    for (std::size_t i = 1; i <= nt; ++i) {
      start_count[i] += start_count[i - 1];
      end_count[i] += end_count[i - 1];
    }
    starts.resize(ev.size() / 2);
    ends.resize(ev.size() / 2);
    std::size_t k = 0;
    for (const Buffer& b : graph.buffers) {
      const bool whole_step = b.cls == BufferClass::kParameter || b.cls == BufferClass::kGradient;
      if (whole_step || to[b.id] < 0 || from[b.id] == LLONG_MAX) continue;
      starts[start_count[first[b.id]]++] = ev[k];
      ends[end_count[last[b.id]]++] = ev[k + 1];
      k += 2;
    }
    ev.clear();
    for (int c = 0; c < kBufferClasses; ++c) {
      if (any_whole[c]) ev.push_back({0, whole[c], c});
    }
    std::size_t i = 0, j = 0;
    while (i < starts.size() || j < ends.size()) {
      if (j == ends.size() || (i < starts.size() && starts[i].time <= ends[j].time)) {
        ev.push_back(starts[i++]);
      } else {
        ev.push_back(ends[j++]);
      }
    }
    for (int c = 0; c < kBufferClasses; ++c) {
      if (any_whole[c]) ev.push_back({schedule.makespan, -whole[c], c});
    }
  } else {
    for (int c = 0; c < kBufferClasses; ++c) {
      if (!any_whole[c]) continue;
      ev.push_back({0, whole[c], c});
      ev.push_back({schedule.makespan, -whole[c], c});
    }
    // Every change at one time is applied before that time's sample, so only the times
    // need ordering.
    std::sort(ev.begin(), ev.end(), [](const Ev& a, const Ev& b) { return a.time < b.time; });
  }
  occ.peak_bytes.fill(0);
  occ.peak_total_bytes = 0;
  occ.series.clear();
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
}

Occupancy compute_occupancy(const TaskGraph& graph, const Schedule& schedule,
                            const std::vector<std::int64_t>& footprint) {
  Occupancy occ;
  compute_occupancy_into(graph, schedule, footprint, occ);
  return occ;
}

}  // namespace ttsim
