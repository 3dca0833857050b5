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

Schedule list_schedule(const SchedGraph& sg, const std::array<int, kUnitKinds>& units) {
  const int n = static_cast<int>(sg.tasks.size());
  Schedule s;
  s.tasks.resize(n);
  std::vector<int> pending(n);
  // Ready tasks per unit class, smallest id first (classes never compete for units).
  std::array<std::priority_queue<int, std::vector<int>, std::greater<int>>, kUnitKinds> ready;
  std::array<std::priority_queue<int, std::vector<int>, std::greater<int>>, kUnitKinds> free_units;
  std::array<int, kUnitKinds> next_unit{};
  std::array<int, kUnitKinds> limit{};
  for (int k = 0; k < kUnitKinds; ++k) limit[k] = units[k] <= 0 ? INT_MAX : units[k];
  for (int i = 0; i < n; ++i) {
    pending[i] = static_cast<int>(sg.tasks[i].deps.size());
    if (pending[i] == 0) ready[sg.tasks[i].unit].push(i);
  }
  // Running tasks by (end, id).
  std::priority_queue<std::pair<std::int64_t, int>, std::vector<std::pair<std::int64_t, int>>,
                      std::greater<std::pair<std::int64_t, int>>>
      running;
  std::int64_t now = 0;
  int done = 0;
  while (done < n) {
    for (int k = 0; k < kUnitKinds; ++k) {
      auto& rq = ready[k];
      while (!rq.empty()) {
        int unit;
        if (!free_units[k].empty()) {
          unit = free_units[k].top();
          free_units[k].pop();
        } else if (next_unit[k] < limit[k]) {
          unit = next_unit[k]++;
        } else {
          break;
        }
        const int t = rq.top();
        rq.pop();
        s.tasks[t] = {now, now + sg.tasks[t].cycles, unit};
        running.emplace(s.tasks[t].end, t);
        ++s.events;
      }
    }
    if (running.empty()) break;  // unreachable for a valid DAG
    now = running.top().first;
    while (!running.empty() && running.top().first == now) {
      const int t = running.top().second;
      running.pop();
      ++done;
      ++s.events;
      free_units[sg.tasks[t].unit].push(s.tasks[t].unit_index);
      for (int j = sg.succ_begin[t]; j < sg.succ_begin[t + 1]; ++j) {
        const int u = sg.succ[j];
        if (--pending[u] == 0) ready[sg.tasks[u].unit].push(u);
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
