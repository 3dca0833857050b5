#include "dse/search/pareto.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace ttsim::dse {
namespace {

Candidate C(PointId id, std::vector<double> o, double violation = 0) {
  return Candidate{id, std::move(o), violation};
}

TEST(Pareto, DominanceIsStrictSomewhere) {
  EXPECT_TRUE(dominates({1, 2}, {1, 3}));
  EXPECT_FALSE(dominates({1, 2}, {1, 2}));
  EXPECT_FALSE(dominates({1, 3}, {2, 2}));
}

TEST(Pareto, FeasibleBeatsInfeasibleAndViolationOrdersInfeasible) {
  EXPECT_TRUE(constrained_dominates(C(1, {9, 9}), C(2, {0, 0}, 1)));
  EXPECT_TRUE(constrained_dominates(C(1, {9, 9}, 0.5), C(2, {0, 0}, 1)));
  EXPECT_FALSE(constrained_dominates(C(1, {0, 0}, 1), C(2, {9, 9}, 0.5)));
}

TEST(Pareto, NonDominatedSortFindsLayers) {
  std::vector<Candidate> c = {C(5, {1, 4}), C(3, {2, 2}), C(4, {4, 1}), C(1, {3, 3}),
                              C(2, {5, 5}), C(0, {0, 0}, 2)};
  const auto fronts = non_dominated_sort(c);
  ASSERT_EQ(fronts.size(), 4u);
  // Front 0 sorted by id: ids 3, 4, 5.
  EXPECT_EQ(fronts[0], (std::vector<std::size_t>{1, 2, 0}));
  EXPECT_EQ(fronts[1], (std::vector<std::size_t>{3}));
  EXPECT_EQ(fronts[2], (std::vector<std::size_t>{4}));
  EXPECT_EQ(fronts[3], (std::vector<std::size_t>{5}));  // the infeasible point comes last
}

TEST(Pareto, CrowdingDistanceBoundariesInfiniteInnerNormalised) {
  std::vector<Candidate> c = {C(0, {0, 4}), C(1, {1, 3}), C(2, {3, 1}), C(3, {4, 0})};
  const auto d = crowding_distance(c, {0, 1, 2, 3});
  EXPECT_TRUE(std::isinf(d[0]));
  EXPECT_TRUE(std::isinf(d[3]));
  EXPECT_DOUBLE_EQ(d[1], (3.0 - 0.0) / 4 + (4.0 - 1.0) / 4);
  EXPECT_DOUBLE_EQ(d[2], (4.0 - 1.0) / 4 + (3.0 - 0.0) / 4);
}

TEST(Pareto, FrontIgnoresInputOrderAndKeepsTies) {
  std::vector<Candidate> a = {C(7, {1, 1}), C(2, {1, 1}), C(4, {0, 2}), C(9, {2, 2}), C(1, {0, 0}, 1)};
  std::vector<Candidate> b(a.rbegin(), a.rend());
  auto ids = [](const std::vector<Candidate>& c, const std::vector<std::size_t>& idx) {
    std::vector<PointId> out;
    for (auto i : idx) out.push_back(c[i].id);
    return out;
  };
  EXPECT_EQ(ids(a, pareto_front(a)), (std::vector<PointId>{2, 4, 7}));
  EXPECT_EQ(ids(b, pareto_front(b)), (std::vector<PointId>{2, 4, 7}));
}

TEST(Pareto, AnArchiveOfferedPointsOneByOneKeepsTheFront) {
  // Random candidates on a coarse grid (many ties and dominance chains), some infeasible,
  // offered in two orders: the archive's members are pareto_front's.
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Candidate> c;
    const int n = 1 + static_cast<int>(rng() % 60);
    const int m = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
      std::vector<double> o(m);
      for (double& x : o) x = static_cast<double>(rng() % 6);
      c.push_back(C(static_cast<PointId>(i * 7 % 61), o, rng() % 5 == 0 ? 1.0 : 0.0));
    }
    std::vector<PointId> want;
    for (std::size_t i : pareto_front(c)) want.push_back(c[i].id);
    std::sort(want.begin(), want.end());
    for (int order = 0; order < 2; ++order) {
      ParetoArchive a;
      if (order == 0) {
        for (const Candidate& x : c) a.offer(x);
      } else {
        for (auto it = c.rbegin(); it != c.rend(); ++it) a.offer(*it);
      }
      std::vector<PointId> got;
      for (const Candidate& x : a.sorted()) got.push_back(x.id);
      EXPECT_EQ(got, want) << "trial " << trial << " order " << order;
    }
  }
}

}  // namespace
}  // namespace ttsim::dse
