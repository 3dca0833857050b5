#include "dse/search/search.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <unordered_set>

namespace ttsim::dse {

std::uint64_t uniform_index(std::mt19937_64& rng, std::uint64_t n) {
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                              std::numeric_limits<std::uint64_t>::max() % n;
  std::uint64_t x;
  do {
    x = rng();
  } while (x >= limit);
  return x % n;
}

std::vector<PointId> grid_points(const DesignSpace& space) {
  std::vector<PointId> out = space.references();
  std::unordered_set<PointId> seen(out.begin(), out.end());
  for (PointId id = 0; id < space.grid_size(); ++id) {
    if (!seen.count(id)) out.push_back(id);
  }
  return out;
}

std::vector<PointId> random_points(const DesignSpace& space, std::uint64_t count,
                                   std::uint64_t seed) {
  if (count >= space.grid_size()) return grid_points(space);
  std::vector<PointId> out = space.references();
  std::unordered_set<PointId> seen(out.begin(), out.end());
  std::mt19937_64 rng(seed);
  std::uint64_t drawn = 0;
  while (drawn < count) {
    const PointId id = uniform_index(rng, space.grid_size());
    if (seen.insert(id).second) {
      out.push_back(id);
      ++drawn;
    }
  }
  return out;
}

namespace {

struct Ranked {
  int front = 0;
  double crowding = 0;
};

// Front index and crowding distance of each candidate of `pop`.
std::vector<Ranked> rank_population(const std::vector<Candidate>& pop) {
  std::vector<Ranked> r(pop.size());
  const auto fronts = non_dominated_sort(pop);
  for (std::size_t f = 0; f < fronts.size(); ++f) {
    const auto cd = crowding_distance(pop, fronts[f]);
    for (std::size_t k = 0; k < fronts[f].size(); ++k) {
      r[fronts[f][k]] = {static_cast<int>(f), cd[k]};
    }
  }
  return r;
}

// True when a is preferred to b: lower front, then larger crowding, then smaller id.
bool better(const Ranked& ra, PointId a, const Ranked& rb, PointId b) {
  if (ra.front != rb.front) return ra.front < rb.front;
  if (ra.crowding != rb.crowding) return ra.crowding > rb.crowding;
  return a < b;
}

}  // namespace

Nsga2Result run_nsga2(const DesignSpace& space, const Nsga2Options& options,
                      const std::vector<PointId>& seeds, const BatchEvaluate& evaluate) {
  Nsga2Result result;
  std::mt19937_64 rng(options.seed);
  std::map<PointId, Candidate> known;
  const std::size_t n_axes = space.axes().size();
  const std::size_t pop_size = static_cast<std::size_t>(options.population);

  // Evaluates the ids not yet known (respecting max_points); returns false when stopped.
  auto eval_new = [&](const std::vector<PointId>& ids) {
    std::vector<PointId> fresh;
    std::set<PointId> batch;
    for (PointId id : ids) {
      if (!known.count(id) && batch.insert(id).second) fresh.push_back(id);
    }
    bool budget_hit = false;
    if (options.max_points) {
      const std::uint64_t left = options.max_points - std::min<std::uint64_t>(
                                                          options.max_points, known.size());
      if (fresh.size() > left) {
        fresh.resize(left);
        budget_hit = true;
      }
    }
    if (fresh.empty()) return !budget_hit;
    const auto got = evaluate(fresh);
    for (const auto& c : got) {
      known[c.id] = c;
      result.evaluated.push_back(c.id);
    }
    if (got.size() < fresh.size()) result.stopped = true;
    return got.size() == fresh.size() && !budget_hit;
  };

  // Initial population: seeds, then random distinct grid points.
  std::vector<PointId> pop_ids;
  std::set<PointId> in_pop;
  for (PointId s : seeds) {
    if (pop_ids.size() < pop_size && in_pop.insert(s).second) pop_ids.push_back(s);
  }
  const std::uint64_t target = std::min<std::uint64_t>(pop_size, space.grid_size() + pop_ids.size());
  std::uint64_t attempts = 0;
  while (pop_ids.size() < target && attempts < 64 * pop_size + space.grid_size()) {
    ++attempts;
    const PointId id = uniform_index(rng, space.grid_size());
    if (in_pop.insert(id).second) pop_ids.push_back(id);
  }
  bool running = eval_new(pop_ids);
  std::vector<Candidate> pop;
  for (PointId id : pop_ids) {
    if (known.count(id)) pop.push_back(known[id]);
  }
  auto random_gene = [&](std::size_t axis) {
    return static_cast<int>(uniform_index(rng, space.axes()[axis].values.size()));
  };

  auto stop_requested = [&] {
    if (options.should_stop && options.should_stop()) result.stopped = true;
    return result.stopped;
  };
  // Grid points known so far (extras such as reference points are never bred).
  auto known_grid = [&] {
    return static_cast<std::uint64_t>(std::distance(known.begin(), known.lower_bound(space.grid_size())));
  };

  for (int gen = 1; running && gen <= options.generations && !pop.empty(); ++gen) {
    if (stop_requested()) break;
    const std::size_t known_before = known.size();
    const auto ranks = rank_population(pop);
    auto tournament = [&]() -> std::size_t {
      const std::size_t a = uniform_index(rng, pop.size());
      const std::size_t b = uniform_index(rng, pop.size());
      return better(ranks[a], pop[a].id, ranks[b], pop[b].id) ? a : b;
    };
    std::vector<PointId> offspring;
    while (offspring.size() < pop_size) {
      if (offspring.size() % 4096 == 0 && stop_requested()) break;
      auto g1 = space.decode(pop[tournament()].id);
      auto g2 = space.decode(pop[tournament()].id);
      const bool cross = std::generate_canonical<double, 53>(rng) < options.crossover;
      for (std::size_t i = 0; i < n_axes; ++i) {
        if (cross && (rng() & 1)) std::swap(g1[i], g2[i]);
      }
      for (auto* g : {&g1, &g2}) {
        for (std::size_t i = 0; i < n_axes; ++i) {
          if ((*g)[i] == kBaseValue) (*g)[i] = random_gene(i);
          const std::size_t n = space.axes()[i].values.size();
          if (n > 1 && uniform_index(rng, n_axes) == 0) {
            const int shift = 1 + static_cast<int>(uniform_index(rng, n - 1));
            (*g)[i] = static_cast<int>(((*g)[i] + shift) % n);
          }
        }
        if (offspring.size() < pop_size) offspring.push_back(space.encode(*g));
      }
    }
    if (result.stopped) break;
    running = eval_new(offspring);
    // Environmental selection over parents ∪ offspring (distinct ids).
    std::set<PointId> ids;
    for (const auto& c : pop) ids.insert(c.id);
    for (PointId id : offspring) {
      if (known.count(id)) ids.insert(id);
    }
    std::vector<Candidate> merged;
    for (PointId id : ids) merged.push_back(known[id]);
    const auto fronts = non_dominated_sort(merged);
    std::vector<Candidate> next;
    for (const auto& front : fronts) {
      if (next.size() + front.size() <= pop_size) {
        for (std::size_t i : front) next.push_back(merged[i]);
        continue;
      }
      const auto cd = crowding_distance(merged, front);
      std::vector<std::size_t> order(front.size());
      for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (cd[a] != cd[b]) return cd[a] > cd[b];
        return merged[front[a]].id < merged[front[b]].id;
      });
      for (std::size_t k = 0; next.size() < pop_size; ++k) next.push_back(merged[front[order[k]]]);
      break;
    }
    pop = std::move(next);
    if (running) result.generations_run = gen;
    if (running && known.size() == known_before && known_grid() == space.grid_size()) {
      result.space_exhausted = true;  // every later generation would only re-select known points
      break;
    }
  }
  for (const auto& c : pop) result.population.push_back(c.id);
  std::sort(result.population.begin(), result.population.end());
  return result;
}

}  // namespace ttsim::dse
