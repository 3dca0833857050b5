#include "dse/search/pareto.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace ttsim::dse {

bool dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool strictly = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    if (a[i] < b[i]) strictly = true;
  }
  return strictly;
}

bool constrained_dominates(const Candidate& a, const Candidate& b) {
  if (a.feasible() != b.feasible()) return a.feasible();
  if (!a.feasible()) return a.violation < b.violation;
  return dominates(a.objectives, b.objectives);
}

std::vector<std::vector<std::size_t>> non_dominated_sort(const std::vector<Candidate>& c) {
  const std::size_t n = c.size();
  std::vector<std::vector<std::size_t>> dominated(n);
  std::vector<int> count(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      if (constrained_dominates(c[i], c[j])) {
        dominated[i].push_back(j);
        ++count[j];
      } else if (constrained_dominates(c[j], c[i])) {
        dominated[j].push_back(i);
        ++count[i];
      }
    }
  }
  std::vector<std::vector<std::size_t>> fronts;
  std::vector<std::size_t> current;
  for (std::size_t i = 0; i < n; ++i) {
    if (count[i] == 0) current.push_back(i);
  }
  auto by_id = [&](std::size_t a, std::size_t b) { return c[a].id < c[b].id; };
  while (!current.empty()) {
    std::sort(current.begin(), current.end(), by_id);
    std::vector<std::size_t> next;
    for (std::size_t i : current) {
      for (std::size_t j : dominated[i]) {
        if (--count[j] == 0) next.push_back(j);
      }
    }
    fronts.push_back(std::move(current));
    current = std::move(next);
  }
  return fronts;
}

std::vector<double> crowding_distance(const std::vector<Candidate>& c,
                                      const std::vector<std::size_t>& front) {
  const std::size_t n = front.size();
  std::vector<double> dist(n, 0.0);
  if (n == 0) return dist;
  const double inf = std::numeric_limits<double>::infinity();
  const std::size_t m = c[front[0]].objectives.size();
  std::vector<std::size_t> order(n);
  for (std::size_t k = 0; k < m; ++k) {
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const double va = c[front[a]].objectives[k], vb = c[front[b]].objectives[k];
      if (va != vb) return va < vb;
      return c[front[a]].id < c[front[b]].id;
    });
    const double lo = c[front[order.front()]].objectives[k];
    const double hi = c[front[order.back()]].objectives[k];
    dist[order.front()] = inf;
    dist[order.back()] = inf;
    if (hi <= lo) continue;
    for (std::size_t r = 1; r + 1 < n; ++r) {
      const double gap =
          c[front[order[r + 1]]].objectives[k] - c[front[order[r - 1]]].objectives[k];
      dist[order[r]] += gap / (hi - lo);
    }
  }
  return dist;
}

std::vector<std::size_t> pareto_front(const std::vector<Candidate>& c) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i].feasible()) order.push_back(i);
  }
  // Lexicographic order: no point can be dominated by a point after it.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (c[a].objectives != c[b].objectives) return c[a].objectives < c[b].objectives;
    return c[a].id < c[b].id;
  });
  std::vector<std::size_t> front;
  for (std::size_t i : order) {
    bool dominated = false;
    for (std::size_t f : front) {
      if (dominates(c[f].objectives, c[i].objectives)) {
        dominated = true;
        break;
      }
    }
    if (!dominated) front.push_back(i);
  }
  std::sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) { return c[a].id < c[b].id; });
  return front;
}

void ParetoArchive::offer(Candidate c) {
  if (!c.feasible()) return;
  for (const Candidate& m : members_) {
    if (dominates(m.objectives, c.objectives)) return;
  }
  members_.erase(std::remove_if(members_.begin(), members_.end(),
                                [&](const Candidate& m) { return dominates(c.objectives, m.objectives); }),
                 members_.end());
  members_.push_back(std::move(c));
}

std::vector<Candidate> ParetoArchive::sorted() const {
  std::vector<Candidate> out = members_;
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) { return a.id < b.id; });
  return out;
}

}  // namespace ttsim::dse
