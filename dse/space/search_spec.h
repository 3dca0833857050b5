#pragma once
// How a sweep searches its design space (its "search" and "budget" keys, dse/space/sweep_spec.h):
// the strategy, parsed once from the sweep file, with its settings, and the budget.

#include <cstdint>

namespace ttsim::dse {

/// The search strategies (dse/search/search.h): every grid point, a seeded random sample of
/// them, or NSGA-II.
enum class Strategy { kGrid, kRandom, kNsga2 };

/// "grid", "random" or "nsga2", as the sweep file names the strategy.
inline const char* to_string(Strategy s) {
  switch (s) {
    case Strategy::kGrid:
      return "grid";
    case Strategy::kRandom:
      return "random";
    case Strategy::kNsga2:
      return "nsga2";
  }
  return "?";
}

/// How a sweep searches its space (the sweep file's /search): the strategy, parsed once, and
/// its settings; a setting another strategy does not use keeps its default.
struct SearchSpec {
  Strategy strategy = Strategy::kGrid;
  std::uint64_t count = 0;  ///< random: points to draw
  std::uint64_t seed = 1;   ///< random, nsga2
  int population = 32;      ///< nsga2
  int generations = 20;     ///< nsga2
};

/// Where a run stops (the sweep file's /budget): after `points` evaluated points or `seconds`
/// of wall clock, whichever comes first.
struct BudgetSpec {
  std::uint64_t points = 0;  ///< 0 = unlimited; deterministic
  double seconds = 0;        ///< 0 = unlimited; wall-clock, so results depend on speed
};

}  // namespace ttsim::dse
