#pragma once
// Pareto machinery for minimisation: constrained dominance (Deb 2002: a feasible point
// beats an infeasible one; two infeasible points compare by total violation), fast
// non-dominated sorting and crowding distance (NSGA-II, Deb et al., IEEE TEC 6(2) 2002).
// Every ordering breaks ties by point id, so results never depend on input order.

#include <cstddef>
#include <vector>

#include "dse/space/design_space.h"

namespace ttsim::dse {

/// One evaluated point as the search sees it.
struct Candidate {
  PointId id = 0;
  std::vector<double> objectives;  ///< to minimise (maximised metrics negated)
  double violation = 0;            ///< 0 when feasible, > 0 by how much constraints fail
  bool feasible() const { return violation <= 0; }
};

/// Plain Pareto dominance on objectives: a <= b everywhere and < somewhere.
bool dominates(const std::vector<double>& a, const std::vector<double>& b);
/// Constrained dominance (see file comment).
bool constrained_dominates(const Candidate& a, const Candidate& b);

/// Fronts F0, F1, ... of `c` under constrained dominance (indices into `c`, each front
/// sorted by id). O(m·n²); meant for NSGA-II populations.
std::vector<std::vector<std::size_t>> non_dominated_sort(const std::vector<Candidate>& c);

/// Crowding distance of each member of `front` (same order as `front`): boundary points
/// of every objective get +infinity; inner points the sum over objectives of the
/// normalised gap between their neighbours in (objective, id) order.
std::vector<double> crowding_distance(const std::vector<Candidate>& c,
                                      const std::vector<std::size_t>& front);

/// Indices of the feasible points that no feasible point dominates, sorted by id.
/// O(n log n + n·f) for front size f.
std::vector<std::size_t> pareto_front(const std::vector<Candidate>& c);

/// pareto_front of candidates offered one at a time, keeping only the front found so far:
/// memory in the front's size, not the number of points (a sweep of millions of designs).
/// O(f·m) per offer for front size f and m objectives. The result is pareto_front's (every
/// feasible point no feasible point dominates, ties kept) in any order of offers.
class ParetoArchive {
 public:
  /// Considers `c`: ignored when infeasible or dominated by a member; otherwise added, and
  /// the members it dominates dropped.
  void offer(Candidate c);
  /// The members sorted by id.
  std::vector<Candidate> sorted() const;
  std::size_t size() const { return members_.size(); }

 private:
  std::vector<Candidate> members_;
};

}  // namespace ttsim::dse
