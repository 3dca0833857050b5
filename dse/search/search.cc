#include "dse/search/search.h"

#include <algorithm>
#include <limits>
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

std::vector<PointId> grid_points(const DesignSpace& space, std::uint64_t limit) {
  std::vector<PointId> out = space.references();
  std::unordered_set<PointId> seen(out.begin(), out.end());
  for (PointId id = 0; id < space.grid_size() && (limit == 0 || out.size() < limit); ++id) {
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

std::vector<PointId> plan_points(const DesignSpace& space, const SearchSpec& search,
                                 std::uint64_t budget_points, int index, int count) {
  std::vector<PointId> ids = search.strategy == Strategy::kGrid ? grid_points(space, budget_points)
                                                                : random_points(space, search.count, search.seed);
  if (budget_points && ids.size() > budget_points) ids.resize(budget_points);
  if (count <= 1) return ids;
  std::vector<PointId> slice;
  for (std::size_t p = index; p < ids.size(); p += count) slice.push_back(ids[p]);
  return slice;
}

std::uint64_t plan_size(const DesignSpace& space, const SearchSpec& search, std::uint64_t budget_points) {
  std::uint64_t n = space.size();
  if (search.strategy == Strategy::kRandom) {
    n = std::min<std::uint64_t>(n, search.count + space.references().size());
  }
  if (budget_points) n = std::min<std::uint64_t>(n, budget_points);
  return n;
}

std::vector<PointId> PlannedSearch::next(std::size_t n) {
  if (handed_ >= ids_.size()) return {};
  if (handed_ == 0 && n >= ids_.size()) {  // the whole plan: handed over, not copied
    std::vector<PointId> all = std::move(ids_);
    ids_.clear();
    return all;
  }
  const std::size_t end = handed_ + std::min(n, ids_.size() - handed_);
  std::vector<PointId> out(ids_.begin() + static_cast<std::ptrdiff_t>(handed_),
                           ids_.begin() + static_cast<std::ptrdiff_t>(end));
  handed_ = end;
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

// The `size` best of `merged` (distinct ids, ascending): whole fronts while they fit, then
// the last front's members by decreasing crowding distance, then id.
std::vector<Candidate> best_of(const std::vector<Candidate>& merged, std::size_t size) {
  std::vector<Candidate> next;
  for (const auto& front : non_dominated_sort(merged)) {
    if (next.size() + front.size() <= size) {
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
    for (std::size_t k = 0; next.size() < size; ++k) next.push_back(merged[front[order[k]]]);
    break;
  }
  return next;
}

}  // namespace

Nsga2Search::Nsga2Search(const DesignSpace& space, Nsga2Options options, std::vector<PointId> seeds)
    : space_(space), options_(std::move(options)), seeds_(std::move(seeds)), rng_(options_.seed) {
  stop_when(options_.should_stop);
}

std::uint64_t Nsga2Search::planned() const {
  const std::uint64_t n = static_cast<std::uint64_t>(options_.population) * (options_.generations + 1);
  return options_.max_points ? std::min(n, options_.max_points) : n;
}

std::vector<PointId> Nsga2Search::next(std::size_t n) {
  while (!finished_ && handed_ == batch_.size()) {
    if (!advance()) finished_ = true;
  }
  if (finished_) return {};
  const std::size_t end = handed_ + std::min(n, batch_.size() - handed_);
  std::vector<PointId> out(batch_.begin() + static_cast<std::ptrdiff_t>(handed_),
                           batch_.begin() + static_cast<std::ptrdiff_t>(end));
  handed_ = end;
  return out;
}

void Nsga2Search::report(const std::vector<Candidate>& results) {
  for (const auto& c : results) {
    known_[c.id] = c;
    result_.evaluated.push_back(c.id);
  }
  if (results.size() < handed_ - reported_) {
    short_report_ = true;
    result_.stopped = true;
    handed_ = batch_.size();  // none of the rest is handed out
  }
  reported_ = handed_;
}

// Ends the generation whose new ids are all handed out and reported (when one is under way)
// and starts the next one; false when the search is over.
bool Nsga2Search::advance() {
  if (generation_ >= 0) {
    end_batch();
    if (finished_) return false;
  }
  if (generation_ < 0) {
    start_initial();
    return true;
  }
  return start_generation();
}

// Generation 0: the seeds, then random distinct grid points up to the population size.
void Nsga2Search::start_initial() {
  const std::size_t pop_size = static_cast<std::size_t>(options_.population);
  std::vector<PointId> pop_ids;
  std::set<PointId> in_pop;
  for (PointId s : seeds_) {
    if (pop_ids.size() < pop_size && in_pop.insert(s).second) pop_ids.push_back(s);
  }
  const std::uint64_t target = std::min<std::uint64_t>(pop_size, space_.grid_size() + pop_ids.size());
  std::uint64_t attempts = 0;
  while (pop_ids.size() < target && attempts < 64 * pop_size + space_.grid_size()) {
    ++attempts;
    const PointId id = uniform_index(rng_, space_.grid_size());
    if (in_pop.insert(id).second) pop_ids.push_back(id);
  }
  generation_ = 0;
  bred_ = std::move(pop_ids);
  offer(bred_);
}

// The next generation's offspring, unless a stop is requested first.
bool Nsga2Search::start_generation() {
  if (stop_requested()) {
    result_.stopped = true;
    return false;
  }
  ++generation_;
  known_before_ = known_.size();
  bred_ = breed();
  if (result_.stopped) return false;
  offer(bred_);
  return true;
}

// Variation: population-size offspring, each pair from two binary tournaments, uniform
// crossover, then per-gene mutation (a base value of an extra point becomes a random one).
std::vector<PointId> Nsga2Search::breed() {
  const std::size_t pop_size = static_cast<std::size_t>(options_.population);
  const std::size_t n_axes = space_.axes().size();
  const auto ranks = rank_population(population_);
  auto tournament = [&]() -> std::size_t {
    const std::size_t a = uniform_index(rng_, population_.size());
    const std::size_t b = uniform_index(rng_, population_.size());
    return better(ranks[a], population_[a].id, ranks[b], population_[b].id) ? a : b;
  };
  std::vector<PointId> offspring;
  while (offspring.size() < pop_size) {
    if (offspring.size() % 4096 == 0 && stop_requested()) {
      result_.stopped = true;
      break;
    }
    auto g1 = space_.decode(population_[tournament()].id);
    auto g2 = space_.decode(population_[tournament()].id);
    const bool cross = std::generate_canonical<double, 53>(rng_) < options_.crossover;
    for (std::size_t i = 0; i < n_axes; ++i) {
      if (cross && (rng_() & 1)) std::swap(g1[i], g2[i]);
    }
    for (auto* g : {&g1, &g2}) {
      for (std::size_t i = 0; i < n_axes; ++i) {
        const std::size_t n = space_.axes()[i].values.size();
        if ((*g)[i] == kBaseValue) (*g)[i] = static_cast<int>(uniform_index(rng_, n));
        if (n > 1 && uniform_index(rng_, n_axes) == 0) {
          const int shift = 1 + static_cast<int>(uniform_index(rng_, n - 1));
          (*g)[i] = static_cast<int>(((*g)[i] + shift) % n);
        }
      }
      if (offspring.size() < pop_size) offspring.push_back(space_.encode(*g));
    }
  }
  return offspring;
}

// The generation's batch: the distinct ids of `ids` not evaluated yet, in order, cut to
// what max_points leaves.
void Nsga2Search::offer(const std::vector<PointId>& ids) {
  batch_.clear();
  std::set<PointId> seen;
  for (PointId id : ids) {
    if (!known_.count(id) && seen.insert(id).second) batch_.push_back(id);
  }
  budget_hit_ = false;
  if (options_.max_points) {
    const std::uint64_t left =
        options_.max_points - std::min<std::uint64_t>(options_.max_points, known_.size());
    if (batch_.size() > left) {
      batch_.resize(left);
      budget_hit_ = true;
    }
  }
  handed_ = reported_ = 0;
  short_report_ = false;
}

// The generation's batch is evaluated: generation 0 becomes the population, a later one's
// offspring compete with it (select); the search ends after a short report or a budget cut,
// after the last generation, or once a generation brings nothing new in a fully known grid.
void Nsga2Search::end_batch() {
  running_ = !short_report_ && !budget_hit_;
  if (generation_ == 0) {
    for (PointId id : bred_) {
      if (known_.count(id)) population_.push_back(known_[id]);
    }
  } else {
    select();
    if (running_) result_.generations_run = generation_;
    if (running_ && known_.size() == known_before_ && known_grid() == space_.grid_size()) {
      result_.space_exhausted = true;  // every later generation would only re-select known points
      finished_ = true;
    }
  }
  if (!running_ || generation_ + 1 > options_.generations || population_.empty()) finished_ = true;
}

// Environmental selection over parents ∪ offspring (distinct ids).
void Nsga2Search::select() {
  std::set<PointId> ids;
  for (const auto& c : population_) ids.insert(c.id);
  for (PointId id : bred_) {
    if (known_.count(id)) ids.insert(id);
  }
  std::vector<Candidate> merged;
  for (PointId id : ids) merged.push_back(known_[id]);
  population_ = best_of(merged, static_cast<std::size_t>(options_.population));
}

// Grid points known so far (extras such as reference points are never bred).
std::uint64_t Nsga2Search::known_grid() const {
  return static_cast<std::uint64_t>(std::distance(known_.begin(), known_.lower_bound(space_.grid_size())));
}

Nsga2Result Nsga2Search::result() const {
  Nsga2Result r = result_;
  for (const auto& c : population_) r.population.push_back(c.id);
  std::sort(r.population.begin(), r.population.end());
  return r;
}

std::unique_ptr<SearchStrategy> make_search(const DesignSpace& space, const SearchSpec& search,
                                            const BudgetSpec& budget, int index, int count, bool ascending) {
  if (search.strategy == Strategy::kNsga2) {
    Nsga2Options o;
    o.population = search.population;
    o.generations = search.generations;
    o.seed = search.seed;
    o.max_points = budget.points;
    return std::make_unique<Nsga2Search>(space, std::move(o), space.references());
  }
  std::vector<PointId> ids = plan_points(space, search, budget.points, index, count);
  if (ascending) std::sort(ids.begin(), ids.end());
  return std::make_unique<PlannedSearch>(std::move(ids));
}

Nsga2Result run_nsga2(const DesignSpace& space, const Nsga2Options& options,
                      const std::vector<PointId>& seeds, const BatchEvaluate& evaluate) {
  Nsga2Search search(space, options, seeds);
  for (;;) {
    const std::vector<PointId> ids = search.next(std::numeric_limits<std::size_t>::max());
    if (ids.empty()) break;
    search.report(evaluate(ids));
  }
  return search.result();
}

}  // namespace ttsim::dse
