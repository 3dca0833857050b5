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

/// Per buffer: the earliest start and latest end of the tasks touching it (LLONG_MAX /
/// -1 when none does), and the first and last such task id (-1 when none).
struct LiveSpans {
  std::vector<std::int64_t> from, to;
  std::vector<int> first, last;
};

/// Fills `spans` from the tasks' reads and writes and their times (storage reused). Kept
/// out of line: inlined into compute_occupancy_into, its inner loop spills to the stack.
[[gnu::noinline]] void live_spans(const TaskGraph& graph, const Schedule& schedule, LiveSpans& spans) {
  const std::size_t nb = graph.buffers.size();
  spans.from.assign(nb, LLONG_MAX);
  spans.to.assign(nb, -1);
  spans.first.assign(nb, -1);
  spans.last.assign(nb, -1);
  for (const Task& t : graph.tasks) {
    const TaskTime& tt = schedule.tasks[t.id];
    for (const auto* list : {&t.reads, &t.writes}) {
      for (int b : *list) {
        spans.from[b] = std::min(spans.from[b], tt.start);
        spans.to[b] = std::max(spans.to[b], tt.end);
        if (spans.first[b] < 0 || t.id < spans.first[b]) spans.first[b] = t.id;
        spans.last[b] = std::max(spans.last[b], t.id);
      }
    }
  }
}

/// True for the classes live for the whole step: parameters (a gradient lives from its
/// first write to its fused update).
bool whole_step_class(BufferClass c) { return c == BufferClass::kParameter; }

/// Bytes of the whole-step buffers of each class, and whether a class has any.
struct WholeStep {
  std::int64_t bytes[kBufferClasses] = {};
  bool any[kBufferClasses] = {};
};

/// Counting-sort scratch of the in-order event merge: per task id, the start and end
/// events of the buffers first / last touched by it (as offsets once summed), and the
/// events sorted by them.
struct EventSort {
  std::vector<int> start_count, end_count;
  std::vector<Ev> starts, ends;
};

/// Appends the start and end event of every touched buffer that is not whole-step to
/// `ev` (by buffer id) and sums the whole-step ones into `whole`; with `by_task` (in-order
/// schedules) counts the events per first and last task.
void buffer_events(const TaskGraph& graph, const std::vector<std::int64_t>& footprint, const LiveSpans& spans,
                   std::vector<Ev>& ev, WholeStep& whole, EventSort* by_task) {
  for (const Buffer& b : graph.buffers) {
    const std::int64_t s = spans.from[b.id], e = spans.to[b.id];
    const bool whole_step = whole_step_class(b.cls);
    if (!whole_step && (e < 0 || s == LLONG_MAX)) continue;  // never touched
    const std::int64_t bytes = 4 * footprint[b.id];
    if (whole_step) {
      whole.bytes[static_cast<int>(b.cls)] += bytes;
      whole.any[static_cast<int>(b.cls)] = true;
      continue;
    }
    if (by_task) {
      ++by_task->start_count[spans.first[b.id] + 1];
      ++by_task->end_count[spans.last[b.id] + 1];
    }
    ev.push_back({s, bytes, static_cast<int>(b.cls)});
    ev.push_back({e, -bytes, static_cast<int>(b.cls)});
  }
}

/// Orders the events of an in-order schedule without a comparison sort: the start events
/// by first task and the end events by last task are each in time order; merged, every
/// event precedes the later ones (ties in any order: every change at one time is applied
/// before that time's sample). The whole-step classes open at 0 and close at the makespan.
void merge_in_order(const TaskGraph& graph, const Schedule& schedule, const LiveSpans& spans,
                    const WholeStep& whole, EventSort& by_task, std::vector<Ev>& ev) {
  const std::size_t nt = graph.tasks.size();
  for (std::size_t i = 1; i <= nt; ++i) {
    by_task.start_count[i] += by_task.start_count[i - 1];
    by_task.end_count[i] += by_task.end_count[i - 1];
  }
  by_task.starts.resize(ev.size() / 2);
  by_task.ends.resize(ev.size() / 2);
  std::size_t k = 0;
  for (const Buffer& b : graph.buffers) {
    if (whole_step_class(b.cls) || spans.to[b.id] < 0 || spans.from[b.id] == LLONG_MAX) continue;
    by_task.starts[by_task.start_count[spans.first[b.id]]++] = ev[k];
    by_task.ends[by_task.end_count[spans.last[b.id]]++] = ev[k + 1];
    k += 2;
  }
  ev.clear();
  for (int c = 0; c < kBufferClasses; ++c) {
    if (whole.any[c]) ev.push_back({0, whole.bytes[c], c});
  }
  const std::vector<Ev>& starts = by_task.starts;
  const std::vector<Ev>& ends = by_task.ends;
  std::size_t i = 0, j = 0;
  while (i < starts.size() || j < ends.size()) {
    if (j == ends.size() || (i < starts.size() && starts[i].time <= ends[j].time)) {
      ev.push_back(starts[i++]);
    } else {
      ev.push_back(ends[j++]);
    }
  }
  for (int c = 0; c < kBufferClasses; ++c) {
    if (whole.any[c]) ev.push_back({schedule.makespan, -whole.bytes[c], c});
  }
}

/// Adds the whole-step classes' events (0 and the makespan) to `ev` and sorts it by time:
/// every change at one time is applied before that time's sample, so only the times need
/// ordering.
void sort_events(const Schedule& schedule, const WholeStep& whole, std::vector<Ev>& ev) {
  for (int c = 0; c < kBufferClasses; ++c) {
    if (!whole.any[c]) continue;
    ev.push_back({0, whole.bytes[c], c});
    ev.push_back({schedule.makespan, -whole.bytes[c], c});
  }
  std::sort(ev.begin(), ev.end(), [](const Ev& a, const Ev& b) { return a.time < b.time; });
}

/// Replays the time-ordered events `ev` into occ's series (one sample per time) and peaks.
void replay_events(const std::vector<Ev>& ev, Occupancy& occ) {
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

}  // namespace

void compute_occupancy_into(const TaskGraph& graph, const Schedule& schedule,
                            const std::vector<std::int64_t>& footprint, Occupancy& occ) {
  const std::size_t nb = graph.buffers.size();
  const std::size_t nt = graph.tasks.size();
  thread_local LiveSpans spans;
  live_spans(graph, schedule, spans);
  const bool in_order = monotone(graph, schedule);
  thread_local std::vector<Ev> ev;
  thread_local EventSort by_task;
  ev.clear();
  by_task.starts.clear();
  by_task.ends.clear();
  ev.reserve(2 * nb + 2 * kBufferClasses);
  // Parameters live for the whole step: one event per class and end (the
  // sum of their bytes), the same samples as one per buffer.
  WholeStep whole;
  if (in_order) {
    by_task.start_count.assign(nt + 1, 0);
    by_task.end_count.assign(nt + 1, 0);
  }
  buffer_events(graph, footprint, spans, ev, whole, in_order ? &by_task : nullptr);
  if (in_order) {
    merge_in_order(graph, schedule, spans, whole, by_task, ev);
  } else {
    sort_events(schedule, whole, ev);
  }
  replay_events(ev, occ);
}

Occupancy compute_occupancy(const TaskGraph& graph, const Schedule& schedule,
                            const std::vector<std::int64_t>& footprint) {
  Occupancy occ;
  compute_occupancy_into(graph, schedule, footprint, occ);
  return occ;
}

}  // namespace ttsim
