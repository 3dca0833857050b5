// Grid, random and NSGA-II on toy spaces whose Pareto front is known in closed form, and the
// ask/tell interface they share.
#include "dse/search/search.h"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

namespace ttsim::dse {
namespace {

// x in 0..15, y in 0..7, z in 0..3; f1 = x + z, f2 = (15 - x) + y + z.
// Front: y = 0, z = 0 for every x (16 points).
DesignSpace toy_space() {
  auto range = [](int n) {
    std::vector<Json> v;
    for (int i = 0; i < n; ++i) v.push_back(i);
    return v;
  };
  return DesignSpace({{"x", range(16)}, {"y", range(8)}, {"z", range(4)}});
}

Candidate score(const DesignSpace& s, PointId id) {
  const auto g = s.decode(id);
  return Candidate{id, {double(g[0] + g[2]), double(15 - g[0] + g[1] + g[2])}, 0};
}

std::set<PointId> known_front(const DesignSpace& s) {
  std::set<PointId> f;
  for (int x = 0; x < 16; ++x) f.insert(s.encode({x, 0, 0}));
  return f;
}

std::set<PointId> front_of(const DesignSpace& s, const std::vector<PointId>& ids) {
  std::vector<Candidate> c;
  for (PointId id : ids) c.push_back(score(s, id));
  std::set<PointId> out;
  for (auto i : pareto_front(c)) out.insert(c[i].id);
  return out;
}

TEST(Search, DecodeEncodeRoundTripMixedRadix) {
  const auto s = toy_space();
  EXPECT_EQ(s.grid_size(), 16u * 8 * 4);
  EXPECT_EQ(s.decode(0), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(s.decode(1), (std::vector<int>{0, 0, 1}));  // last axis fastest
  for (PointId id = 0; id < s.grid_size(); id += 37) EXPECT_EQ(s.encode(s.decode(id)), id);
}

TEST(Search, GridVisitsEveryPointOnceAndFindsTheFront) {
  const auto s = toy_space();
  const auto ids = grid_points(s);
  EXPECT_EQ(ids.size(), s.grid_size());
  EXPECT_EQ(std::set<PointId>(ids.begin(), ids.end()).size(), ids.size());
  EXPECT_EQ(front_of(s, ids), known_front(s));
}

TEST(Search, GridPutsReferencePointsFirst) {
  auto s = toy_space();
  const PointId grid_ref = s.add_reference({3, 0, 0}, "on grid");
  const PointId extra = s.add_reference({kBaseValue, 2, 1}, "base x");
  EXPECT_EQ(grid_ref, s.encode({3, 0, 0}));
  EXPECT_EQ(extra, s.grid_size());
  const auto ids = grid_points(s);
  EXPECT_EQ(ids.size(), s.grid_size() + 1);
  EXPECT_EQ(ids[0], grid_ref);
  EXPECT_EQ(ids[1], extra);
}

TEST(Search, RandomIsSeededDistinctAndSubsetOfTheFrontIsSound) {
  const auto s = toy_space();
  const auto a = random_points(s, 100, 7), b = random_points(s, 100, 7), c = random_points(s, 100, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(a.size(), 100u);
  EXPECT_EQ(std::set<PointId>(a.begin(), a.end()).size(), 100u);
  // Every true front point sampled is on the sample's front, and no sample-front point
  // with y > 0 or z > 0 can beat a sampled true-front point.
  const auto kf = known_front(s);
  const auto f = front_of(s, a);
  for (PointId id : a) {
    if (kf.count(id)) {
      EXPECT_TRUE(f.count(id)) << id;
    }
  }
  EXPECT_EQ(random_points(s, 10000, 1).size(), s.grid_size());
}

TEST(Search, Nsga2FindsTheKnownFrontDeterministically) {
  const auto s = toy_space();
  int batches = 0;
  BatchEvaluate eval = [&](const std::vector<PointId>& ids) {
    ++batches;
    std::vector<Candidate> out;
    for (PointId id : ids) out.push_back(score(s, id));
    return out;
  };
  Nsga2Options o;
  o.population = 24;
  o.generations = 60;
  o.seed = 3;
  const auto r1 = run_nsga2(s, o, {}, eval);
  const auto r2 = run_nsga2(s, o, {}, eval);
  EXPECT_EQ(r1.evaluated, r2.evaluated);
  EXPECT_EQ(r1.population, r2.population);
  EXPECT_EQ(r1.generations_run, 60);
  EXPECT_LT(r1.evaluated.size(), s.grid_size());  // it did not just enumerate the grid
  EXPECT_EQ(front_of(s, r1.evaluated), known_front(s));
  EXPECT_EQ(front_of(s, r1.population), known_front(s));
}

TEST(Search, Nsga2RespectsPointBudgetAndStopsOnShortBatch) {
  const auto s = toy_space();
  BatchEvaluate eval = [&](const std::vector<PointId>& ids) {
    std::vector<Candidate> out;
    for (PointId id : ids) out.push_back(score(s, id));
    return out;
  };
  Nsga2Options o;
  o.population = 16;
  o.generations = 50;
  o.max_points = 40;
  const auto r = run_nsga2(s, o, {}, eval);
  EXPECT_EQ(r.evaluated.size(), 40u);

  int calls = 0;
  BatchEvaluate stopping = [&](const std::vector<PointId>& ids) {
    std::vector<Candidate> out;
    if (++calls == 1) {
      for (PointId id : ids) out.push_back(score(s, id));
    } else {
      out.push_back(score(s, ids[0]));
    }
    return out;
  };
  o.max_points = 0;
  const auto r2 = run_nsga2(s, o, {}, stopping);
  EXPECT_TRUE(r2.stopped);
  EXPECT_EQ(r2.generations_run, 0);
}

TEST(Search, Nsga2EndsOnceEveryGridPointIsKnown) {
  // 32 points, population 1000, a million generations: the initial population covers the
  // whole grid, so the first generation brings nothing new and the search ends there.
  auto range = [](int n) {
    std::vector<Json> v;
    for (int i = 0; i < n; ++i) v.push_back(i);
    return v;
  };
  const DesignSpace s({{"x", range(8)}, {"y", range(4)}});
  std::size_t evaluated = 0;
  BatchEvaluate eval = [&](const std::vector<PointId>& ids) {
    std::vector<Candidate> out;
    for (PointId id : ids) {
      const auto g = s.decode(id);
      out.push_back(Candidate{id, {double(g[0]), double(7 - g[0] + g[1])}, 0});
    }
    evaluated += ids.size();
    return out;
  };
  Nsga2Options o;
  o.population = 1000;
  o.generations = 1000000;
  const auto r = run_nsga2(s, o, {}, eval);
  EXPECT_TRUE(r.space_exhausted);
  EXPECT_FALSE(r.stopped);
  EXPECT_EQ(evaluated, 32u);
  EXPECT_EQ(r.evaluated.size(), 32u);
  EXPECT_EQ(r.generations_run, 1);
}

TEST(Search, Nsga2PollsTheStopRequestEveryGeneration) {
  const auto s = toy_space();
  BatchEvaluate eval = [&](const std::vector<PointId>& ids) {
    std::vector<Candidate> out;
    for (PointId id : ids) out.push_back(score(s, id));
    return out;
  };
  Nsga2Options o;
  o.population = 8;
  o.generations = 1000000;
  int polls = 0;
  bool cancel = false;
  o.should_stop = [&] {
    if (++polls == 10) cancel = true;  // Ctrl-C while the search runs
    return cancel;
  };
  const auto r = run_nsga2(s, o, {}, eval);
  EXPECT_TRUE(r.stopped);
  EXPECT_FALSE(r.space_exhausted);
  EXPECT_LT(r.generations_run, 10);
  EXPECT_GE(r.generations_run, 4);  // polled at most twice per generation before the stop
}

TEST(Search, Nsga2SeedsJoinTheInitialPopulation) {
  auto s = toy_space();
  const PointId ref = s.add_reference({kBaseValue, 7, 3}, "ref");
  std::vector<PointId> first_batch;
  BatchEvaluate eval = [&](const std::vector<PointId>& ids) {
    if (first_batch.empty()) first_batch = ids;
    std::vector<Candidate> out;
    for (PointId id : ids) {
      out.push_back(id == ref ? Candidate{id, {100, 100}, 0} : score(s, id));
    }
    return out;
  };
  Nsga2Options o;
  o.population = 8;
  o.generations = 2;
  run_nsga2(s, o, {ref}, eval);
  ASSERT_FALSE(first_batch.empty());
  EXPECT_EQ(first_batch[0], ref);
}

TEST(Search, Nsga2HandsOutTheSameIdsInAnyBatchSize) {
  // Asked for 5 ids at a time and told each batch, NSGA-II evaluates the ids of whole
  // generations (run_nsga2) in the same order.
  auto s = toy_space();
  s.add_reference({kBaseValue, 7, 3}, "ref");
  Nsga2Options o;
  o.population = 24;
  o.generations = 12;
  o.seed = 11;
  o.max_points = 150;
  std::vector<PointId> whole;
  const auto r = run_nsga2(s, o, s.references(), [&](const std::vector<PointId>& ids) {
    whole.insert(whole.end(), ids.begin(), ids.end());
    std::vector<Candidate> out;
    for (PointId id : ids) out.push_back(score(s, id));
    return out;
  });
  Nsga2Search search(s, o, s.references());
  EXPECT_TRUE(search.wants_results());
  EXPECT_EQ(search.planned(), 150u);
  std::vector<PointId> sliced;
  for (;;) {
    const auto ids = search.next(5);
    if (ids.empty()) break;
    EXPECT_LE(ids.size(), 5u);
    sliced.insert(sliced.end(), ids.begin(), ids.end());
    std::vector<Candidate> out;
    for (PointId id : ids) out.push_back(score(s, id));
    search.report(out);
  }
  EXPECT_EQ(sliced, whole);
  EXPECT_EQ(search.result().evaluated, r.evaluated);
  EXPECT_EQ(search.result().population, r.population);
  EXPECT_EQ(search.result().generations_run, r.generations_run);
  EXPECT_EQ(whole.size(), 150u);
}

TEST(Search, APlanHandsOutItsIdsInOrderAndWantsNoResults) {
  auto s = toy_space();
  s.add_reference({3, 0, 0}, "ref");
  SearchSpec grid;
  BudgetSpec budget;
  budget.points = 100;
  const auto plan = make_search(s, grid, budget, 0, 1, false);
  EXPECT_FALSE(plan->wants_results());
  EXPECT_EQ(plan->planned(), 100u);
  std::vector<PointId> got;
  for (auto ids = plan->next(30); !ids.empty(); ids = plan->next(30)) got.insert(got.end(), ids.begin(), ids.end());
  EXPECT_EQ(got, plan_points(s, grid, 100));
  EXPECT_EQ(got.front(), s.encode({3, 0, 0}));  // the reference first
  // A shard's slice of a random plan, in ascending id, handed over whole.
  SearchSpec random;
  random.strategy = Strategy::kRandom;
  random.count = 40;
  random.seed = 4;
  const auto shard = make_search(s, random, BudgetSpec{}, 1, 3, true);
  std::vector<PointId> want = plan_points(s, random, 0, 1, 3);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(shard->planned(), want.size());
  EXPECT_EQ(shard->next(static_cast<std::size_t>(-1)), want);
  EXPECT_TRUE(shard->next(1).empty());
  EXPECT_EQ(plan_size(s, random, 0), 41u);  // the count and the reference
}

}  // namespace
}  // namespace ttsim::dse
