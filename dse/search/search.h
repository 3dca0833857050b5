#pragma once
// Search strategies over a DesignSpace, in the ask/tell shape: a strategy hands out the
// point ids to evaluate next (next, "ask") and, when its choice depends on them, is told their
// figures (report, "tell"). The strategies are the exhaustive grid and seeded random sampling
// (a plan fixed in advance) and NSGA-II (each generation bred from the figures of the last).
// Strategies only choose point ids; evaluation (parallel, memoised, possibly interrupted) is
// the caller's. For a given seed and evaluator, the ids handed out and their order are the
// same on every run, with any thread count and any batch size asked for.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "dse/search/pareto.h"
#include "dse/space/design_space.h"
#include "dse/space/search_spec.h"

namespace ttsim::dse {

/// A search strategy (see file comment). Drive it as
///   for (;;) { ids = s.next(n); if (ids.empty()) break; evaluate ids;
///              if (s.wants_results()) s.report(candidates of ids); }
/// reporting each batch before asking for the next.
class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  /// Ask: at most `n` (>= 1) further point ids to evaluate, distinct from those handed out
  /// before; empty when the search is over.
  virtual std::vector<PointId> next(std::size_t n) = 0;
  /// Whether report() reads the figures: false for a plan fixed in advance (grid, random),
  /// whose caller then builds no candidate per point (a pass over millions of designs).
  virtual bool wants_results() const = 0;
  /// Tell: the candidates of the ids of the last next(), in their order, leaving out those
  /// that were not evaluated (the run stopped: Ctrl-C, time budget); a short report ends the
  /// search. Ignored by a strategy that does not want results.
  virtual void report(const std::vector<Candidate>& results) = 0;
  /// The points it plans to evaluate at most (the progress line's ETA, the run's reservation).
  virtual std::uint64_t planned() const = 0;
  /// Polled while the strategy prepares its next points (NSGA-II: before each generation and
  /// every 4,096 offspring it breeds; Ctrl-C, a time budget): true ends the search. Null (the
  /// default) = never.
  void stop_when(std::function<bool()> should_stop) { should_stop_ = std::move(should_stop); }

 protected:
  bool stop_requested() const { return should_stop_ && should_stop_(); }

 private:
  std::function<bool()> should_stop_;
};

/// The reference points first, then every grid point in id order, up to `limit` points (0: all).
std::vector<PointId> grid_points(const DesignSpace& space, std::uint64_t limit = 0);

/// The reference points first, then `count` further distinct grid points drawn uniformly with
/// std::mt19937_64(seed) (all grid points, in id order, when count >= grid_size).
std::vector<PointId> random_points(const DesignSpace& space, std::uint64_t count,
                                   std::uint64_t seed);

/// Uniform integer in [0, n) from `rng` by rejection (same sequence on every platform,
/// unlike std::uniform_int_distribution). n >= 1.
std::uint64_t uniform_index(std::mt19937_64& rng, std::uint64_t n);

/// The points a grid or random `search` plans (grid_points / random_points, cut to
/// `budget_points` when not 0), restricted to shard `index` of `count`: positions p ≡ index
/// (mod count) of that list.
std::vector<PointId> plan_points(const DesignSpace& space, const SearchSpec& search,
                                 std::uint64_t budget_points, int index = 0, int count = 1);

/// How many points plan_points plans at most without sharding, without listing them: the
/// space's size, or the random search's count plus its references, cut to `budget_points`.
std::uint64_t plan_size(const DesignSpace& space, const SearchSpec& search, std::uint64_t budget_points);

/// A plan fixed in advance (grid, random): hands out its ids in order and ignores results.
class PlannedSearch : public SearchStrategy {
 public:
  explicit PlannedSearch(std::vector<PointId> ids) : ids_(std::move(ids)) {}
  std::vector<PointId> next(std::size_t n) override;
  bool wants_results() const override { return false; }
  void report(const std::vector<Candidate>&) override {}
  std::uint64_t planned() const override { return planned_; }

 private:
  std::vector<PointId> ids_;
  std::uint64_t planned_ = ids_.size();
  std::size_t handed_ = 0;  // ids handed out so far
};

/// NSGA-II settings. Variation on the axis-index genome: binary tournament on
/// (front, crowding distance, id), uniform crossover with probability `crossover`,
/// then each gene mutates to a different value with probability 1 / axes.
struct Nsga2Options {
  int population = 32;           ///< >= 4
  int generations = 20;          ///< >= 1 (generation 0 is the initial population)
  std::uint64_t seed = 1;
  std::uint64_t max_points = 0;  ///< distinct points evaluated at most; 0 = no limit
  double crossover = 0.9;
  /// Polled before each generation and while breeding it (Ctrl-C, time budget): true ends
  /// the search with `stopped` set. Null = never (SearchStrategy::stop_when).
  std::function<bool()> should_stop;
};

/// Outcome of an NSGA-II search over point ids.
struct Nsga2Result {
  std::vector<PointId> evaluated;   ///< distinct ids in order of first evaluation
  std::vector<PointId> population;  ///< final population, sorted by id
  int generations_run = 0;
  bool stopped = false;             ///< a short report or should_stop ended it
  /// Every grid point was evaluated and a generation brought no new id: the search ended
  /// before `generations` (no later generation could evaluate anything new).
  bool space_exhausted = false;
};

/// NSGA-II (Deb et al., IEEE TEC 6(2) 2002) over the axis-index genome. Generation 0 is
/// `seeds` (e.g. the reference points) filled up with random distinct grid points; each later
/// one breeds offspring from the population (variation), evaluates the new ones and keeps the
/// best of parents and offspring (environmental selection). A generation's new ids are handed
/// out in order, over as many next() calls as the batch size asks for.
class Nsga2Search : public SearchStrategy {
 public:
  Nsga2Search(const DesignSpace& space, Nsga2Options options, std::vector<PointId> seeds);
  std::vector<PointId> next(std::size_t n) override;
  bool wants_results() const override { return true; }
  void report(const std::vector<Candidate>& results) override;
  /// population × (generations + 1), at most max_points when set.
  std::uint64_t planned() const override;
  /// The outcome so far (final once next() returned nothing).
  Nsga2Result result() const;

 private:
  bool advance();
  void start_initial();
  bool start_generation();
  std::vector<PointId> breed();
  void offer(const std::vector<PointId>& ids);
  void end_batch();
  void select();
  std::uint64_t known_grid() const;

  const DesignSpace& space_;
  Nsga2Options options_;
  std::vector<PointId> seeds_;
  std::mt19937_64 rng_;
  std::map<PointId, Candidate> known_;  // every point reported
  std::vector<Candidate> population_;
  int generation_ = -1;               // the generation under way: -1 before generation 0
  bool running_ = true;               // no short report or budget cut so far
  bool finished_ = false;
  std::vector<PointId> bred_;         // the ids of the generation under way (its offspring)
  std::vector<PointId> batch_;        // its new ids, handed out in order
  std::size_t handed_ = 0;            // of batch_
  std::size_t reported_ = 0;          // of batch_, ids whose report came back
  bool budget_hit_ = false;           // batch_ was cut to max_points
  bool short_report_ = false;         // a report of the batch left ids out
  std::size_t known_before_ = 0;      // known_.size() when the generation began
  Nsga2Result result_;
};

/// The strategy of `search` for a run: the grid or random plan (plan_points: cut to
/// `budget.points`, restricted to shard `index` of `count`, in ascending id when `ascending`),
/// or NSGA-II seeded with the references (at most `budget.points` distinct points; one shard
/// only).
std::unique_ptr<SearchStrategy> make_search(const DesignSpace& space, const SearchSpec& search,
                                            const BudgetSpec& budget, int index, int count, bool ascending);

/// Evaluates `ids` and returns their candidates in the same order. May return fewer when the
/// run is stopped (Ctrl-C, time budget); the search then ends.
using BatchEvaluate = std::function<std::vector<Candidate>(const std::vector<PointId>&)>;

/// Runs NSGA-II to its end with `evaluate` (each generation's new ids as one batch).
Nsga2Result run_nsga2(const DesignSpace& space, const Nsga2Options& options,
                      const std::vector<PointId>& seeds, const BatchEvaluate& evaluate);

}  // namespace ttsim::dse
