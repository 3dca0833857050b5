#pragma once
// Search strategies over a DesignSpace: exhaustive grid, seeded random sampling and
// NSGA-II. Strategies only choose point ids; evaluation (parallel, memoised, possibly
// interrupted) is the caller's BatchEvaluate. For a given seed and evaluator, the ids
// chosen and their order are the same on every run and with any thread count.

#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "dse/space/design_space.h"
#include "dse/search/pareto.h"

namespace ttsim::dse {

/// Evaluates `ids` and returns their candidates in the same order. May return a
/// shorter prefix when the run is stopped (Ctrl-C, time budget); the search then ends.
using BatchEvaluate = std::function<std::vector<Candidate>(const std::vector<PointId>&)>;

/// The reference points first, then every grid point in id order.
std::vector<PointId> grid_points(const DesignSpace& space);

/// The reference points first, then `count` further distinct grid points drawn uniformly with
/// std::mt19937_64(seed) (all grid points, in id order, when count >= grid_size).
std::vector<PointId> random_points(const DesignSpace& space, std::uint64_t count,
                                   std::uint64_t seed);

/// Uniform integer in [0, n) from `rng` by rejection (same sequence on every platform,
/// unlike std::uniform_int_distribution). n >= 1.
std::uint64_t uniform_index(std::mt19937_64& rng, std::uint64_t n);

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
  /// the search with `stopped` set. Null = never.
  std::function<bool()> should_stop;
};

/// Outcome of an NSGA-II search over point ids.
struct Nsga2Result {
  std::vector<PointId> evaluated;   ///< distinct ids in order of first evaluation
  std::vector<PointId> population;  ///< final population, sorted by id
  int generations_run = 0;
  bool stopped = false;             ///< BatchEvaluate returned a short batch or should_stop fired
  /// Every grid point was evaluated and a generation brought no new id: the search ended
  /// before `generations` (no later generation could evaluate anything new).
  bool space_exhausted = false;
};

/// Runs NSGA-II. `seeds` (e.g. the reference points) join the initial population,
/// which is filled up with random distinct grid points.
Nsga2Result run_nsga2(const DesignSpace& space, const Nsga2Options& options,
                      const std::vector<PointId>& seeds, const BatchEvaluate& evaluate);

}  // namespace ttsim::dse
