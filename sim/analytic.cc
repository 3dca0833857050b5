#include "sim/analytic.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <queue>
#include <set>
#include <utility>

namespace ttsim {

std::int64_t critical_path_cycles(const SchedGraph& sg) {
  const std::size_t n = sg.tasks.size();
  std::vector<std::int64_t> end(n, 0);
  std::int64_t best = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t start = 0;
    for (int d : sg.tasks[i].deps) start = std::max(start, end[d]);
    end[i] = start + sg.tasks[i].cycles;
    best = std::max(best, end[i]);
  }
  return best;
}

namespace {

/// Ready tasks of all unit classes: one bitset over task ids per class, popped
/// smallest id first (the order a min-heap would give), with a cursor per class on the
/// lowest word that may hold a set bit (every word below it is zero).
class ReadySets {
 public:
  explicit ReadySets(int n) : stride_((n + 63) / 64), words_(kUnitKinds * stride_, 0) {
    low_.fill(stride_);
  }
  bool empty(int k) const { return size_[k] == 0; }
  void push(int k, int t) {
    const int w = t >> 6;
    words_[k * stride_ + w] |= std::uint64_t{1} << (t & 63);
    if (w < low_[k]) low_[k] = w;
    ++size_[k];
  }
  int pop(int k) {
    std::uint64_t* row = &words_[k * stride_];
    int w = low_[k];
    while (row[w] == 0) ++w;
    low_[k] = w;
    const int bit = __builtin_ctzll(row[w]);
    row[w] &= row[w] - 1;
    --size_[k];
    return w * 64 + bit;
  }

 private:
  int stride_;
  std::vector<std::uint64_t> words_;
  std::array<int, kUnitKinds> low_{};
  std::array<int, kUnitKinds> size_{};
};

/// Free instances of one unit class, lowest index first: released instances 0..63 in
/// a bit mask, higher ones (classes of more than 64 instances) in a min-heap; never
/// used instances come from `next`, which is above every released one.
class FreeUnits {
 public:
  explicit FreeUnits(int limit = 0) : limit_(limit) {}
  /// Lowest free instance, or -1 when all `limit` instances are busy.
  int take() {
    if (mask_ != 0) {
      const int u = __builtin_ctzll(mask_);
      mask_ &= mask_ - 1;
      return u;
    }
    if (!high_.empty()) {
      std::pop_heap(high_.begin(), high_.end(), std::greater<int>());
      const int u = high_.back();
      high_.pop_back();
      return u;
    }
    return next_ < limit_ ? next_++ : -1;
  }
  void release(int u) {
    if (u < 64) {
      mask_ |= std::uint64_t{1} << u;
    } else {
      high_.push_back(u);
      std::push_heap(high_.begin(), high_.end(), std::greater<int>());
    }
  }

 private:
  std::uint64_t mask_ = 0;
  std::vector<int> high_;
  int next_ = 0;
  int limit_;
};

/// Running tasks, a binary min-heap on (end, task id).
class RunningHeap {
 public:
  struct Item {
    std::int64_t end;
    int task;
  };
  bool empty() const { return h_.empty(); }
  const Item& top() const { return h_.front(); }
  void push(Item x) {
    std::size_t i = h_.size();
    h_.push_back(x);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!less(x, h_[parent])) break;
      h_[i] = h_[parent];
      i = parent;
    }
    h_[i] = x;
  }
  void pop() {
    const Item x = h_.back();
    h_.pop_back();
    const std::size_t n = h_.size();
    if (n == 0) return;
    std::size_t i = 0;
    for (;;) {
      std::size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && less(h_[c + 1], h_[c])) ++c;
      if (!less(h_[c], x)) break;
      h_[i] = h_[c];
      i = c;
    }
    h_[i] = x;
  }

 private:
  static bool less(const Item& a, const Item& b) {
    return a.end < b.end || (a.end == b.end && a.task < b.task);
  }
  std::vector<Item> h_;
};

}  // namespace

namespace {

/// The schedule of `sg` when it is a chain in id order (every task after the first depends
/// on the one before it, as the sequential policy makes it) and no latency is negative:
/// each task starts when the one before it ends, on instance 0 of its class (every instance
/// is free then), with a dispatch and a completion event each — what the list schedule
/// below gives such a graph, without its heap. False when `sg` is not such a chain.
bool chain_schedule(const SchedGraph& sg, Schedule& s) {
  const std::size_t n = sg.tasks.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (sg.tasks[i].cycles < 0) return false;
    if (i > 0 && (sg.tasks[i].deps.empty() || sg.tasks[i].deps.back() != static_cast<int>(i) - 1)) return false;
  }
  std::int64_t now = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s.tasks[i] = {now, now + sg.tasks[i].cycles, 0};
    now += sg.tasks[i].cycles;
  }
  s.makespan = now;
  s.events = 2 * static_cast<std::uint64_t>(n);
  return true;
}

}  // namespace

Schedule list_schedule(const SchedGraph& sg, const std::array<int, kUnitKinds>& units) {
  const int n = static_cast<int>(sg.tasks.size());
  Schedule s;
  s.tasks.resize(n);
  if (chain_schedule(sg, s)) return s;
  std::vector<int> pending(n);
  // Ready tasks per unit class, smallest id first (classes never compete for units, so
  // only classes that gained a ready task or a free instance need a dispatch pass).
  ReadySets ready(n);
  std::array<FreeUnits, kUnitKinds> free_units;
  for (int k = 0; k < kUnitKinds; ++k) free_units[k] = FreeUnits(units[k] <= 0 ? INT_MAX : units[k]);
  unsigned dirty = 0;  // bit k: class k may be able to dispatch
  for (int i = 0; i < n; ++i) {
    pending[i] = static_cast<int>(sg.tasks[i].deps.size());
    if (pending[i] == 0) {
      ready.push(sg.tasks[i].unit, i);
      dirty |= 1u << sg.tasks[i].unit;
    }
  }
  RunningHeap running;
  std::int64_t now = 0;
  int done = 0;
  while (done < n) {
    for (; dirty != 0; dirty &= dirty - 1) {
      const int k = __builtin_ctz(dirty);
      FreeUnits& fu = free_units[k];
      while (!ready.empty(k)) {
        const int unit = fu.take();
        if (unit < 0) break;
        const int t = ready.pop(k);
        const std::int64_t end = now + sg.tasks[t].cycles;
        s.tasks[t] = {now, end, unit};
        running.push({end, t});
        ++s.events;
      }
    }
    if (running.empty()) break;  // unreachable for a valid DAG
    now = running.top().end;
    while (!running.empty() && running.top().end == now) {
      const int t = running.top().task;
      running.pop();
      ++done;
      ++s.events;
      const int k = sg.tasks[t].unit;
      free_units[k].release(s.tasks[t].unit_index);
      dirty |= 1u << k;
      for (int j = sg.succ_begin[t]; j < sg.succ_begin[t + 1]; ++j) {
        const int u = sg.succ[j];
        if (--pending[u] == 0) {
          const int ku = sg.tasks[u].unit;
          ready.push(ku, u);
          dirty |= 1u << ku;
        }
      }
    }
    s.makespan = std::max(s.makespan, now);
  }
  return s;
}

int peak_concurrency(const SchedGraph& sg, const Schedule& s, UnitKind unit) {
  std::vector<std::pair<std::int64_t, int>> ev;
  for (std::size_t i = 0; i < sg.tasks.size(); ++i) {
    if (sg.tasks[i].unit != static_cast<int>(unit)) continue;
    ev.emplace_back(s.tasks[i].start, +1);
    ev.emplace_back(s.tasks[i].end, -1);
  }
  std::sort(ev.begin(), ev.end());  // ends (-1) before starts (+1) at equal times
  int cur = 0, best = 0;
  for (auto& e : ev) best = std::max(best, cur += e.second);
  return best;
}

}  // namespace ttsim
