// GraphReshaper against build_training_graph: a graph built once and reshaped for other
// TT ranks (uniform per layer, different at every bond, rank 1, the TTM embedding's)
// equals the graph built for those ranks, field by field, for every flow, for a
// shorter token count and with the encoders recomputed; a reshape whose flow plans change structure leaves the graph
// untouched; same_graph_structure tells the models apart that share a graph.

#include "models/graph_reshape.h"

#include <random>

#include <gtest/gtest.h>

namespace ttsim {
namespace {

ModelSpec preset(const char* name) { return load_model_spec(std::string("configs/models/") + name + ".json"); }

void expect_same_graph(const TaskGraph& got, const TaskGraph& want) {
  ASSERT_EQ(got.tasks.size(), want.tasks.size());
  ASSERT_EQ(got.buffers.size(), want.buffers.size());
  for (std::size_t i = 0; i < want.tasks.size(); ++i) {
    const Task &a = got.tasks[i], &b = want.tasks[i];
    SCOPED_TRACE(b.name);
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.op, b.op);
    EXPECT_EQ(a.unit, b.unit);
    EXPECT_EQ(a.stage, b.stage);
    EXPECT_EQ(a.layer, b.layer);
    EXPECT_EQ(a.encoder, b.encoder);
    EXPECT_EQ(a.role, b.role);
    EXPECT_EQ(a.shape.batch, b.shape.batch);
    EXPECT_EQ(a.shape.rows, b.shape.rows);
    EXPECT_EQ(a.shape.inner, b.shape.inner);
    EXPECT_EQ(a.shape.cols, b.shape.cols);
    EXPECT_EQ(a.shape.variant, b.shape.variant);
    EXPECT_EQ(a.shape.memories, b.shape.memories);
    EXPECT_EQ(a.macs, b.macs);
    EXPECT_EQ(a.elements, b.elements);
    EXPECT_EQ(a.reads, b.reads);
    EXPECT_EQ(a.writes, b.writes);
    EXPECT_EQ(a.deps, b.deps);
    EXPECT_EQ(a.macs, b.macs) << b.name;
    EXPECT_EQ(a.elements, b.elements) << b.name;
  }
  for (std::size_t i = 0; i < want.buffers.size(); ++i) {
    const Buffer &a = got.buffers[i], &b = want.buffers[i];
    SCOPED_TRACE(b.name);
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.cls, b.cls);
    EXPECT_EQ(a.words, b.words);
    EXPECT_EQ(a.shape, b.shape);
    EXPECT_EQ(a.layer, b.layer);
    EXPECT_EQ(a.first_task, b.first_task);
    EXPECT_EQ(a.last_task, b.last_task);
    EXPECT_EQ(a.memory, b.memory);
  }
}

/// Every interior bond of every TT layer of `m` drawn from `ranks` (one draw per layer
/// when `uniform`), and the TTM embedding's too.
void draw_ranks(ModelSpec& m, std::mt19937& rng, const std::vector<std::int64_t>& ranks, bool uniform) {
  std::uniform_int_distribution<std::size_t> pick(0, ranks.size() - 1);
  auto fill = [&](std::vector<std::int64_t>& r) {
    const std::int64_t one = ranks[pick(rng)];
    for (std::size_t k = 1; k + 1 < r.size(); ++k) r[k] = uniform ? one : ranks[pick(rng)];
  };
  for (auto& l : m.linears) {
    if (l.format == WeightFormat::kTT) fill(l.tt.ranks);
  }
  if (m.token_embedding.format == WeightFormat::kTTM) fill(m.token_embedding.ttm.ranks);
}

struct Case {
  Flow flow;
  std::int64_t tokens;
  bool recompute_encoders = false;  ///< GraphOptions::recompute_encoders (its ".re" layer sites)
  /// GraphOptions::by_add: 128 dual-port lanes on 64 banks, where the accumulating dX and the
  /// TTM scatter run through partials and adds (their tasks and buffers reshaped too).
  bool by_add = false;
};

class Reshape : public ::testing::TestWithParam<Case> {};

TEST_P(Reshape, EqualsTheGraphBuiltForTheNewRanks) {
  const ModelSpec base = preset("atis_2enc");
  GraphOptions o;
  for (const char* k : {"attention", "ffn_in", "ffn_out"}) o.flow_by_kind[k] = GetParam().flow;
  o.tokens = GetParam().tokens;
  o.recompute_encoders = GetParam().recompute_encoders;
  if (GetParam().by_add) o.by_add = {128, 64};
  TaskGraph g = build_training_graph(base, o);
  GraphReshaper reshaper(base, o, g);
  std::mt19937 rng(7);
  int reshaped = 0;
  for (int trial = 0; trial < 24; ++trial) {
    ModelSpec m = base;
    draw_ranks(m, rng, {2, 4, 8, 12, 16, 32}, trial % 2 == 0);
    ASSERT_TRUE(same_graph_structure(base, m));
    ASSERT_TRUE(reshaper.reshape(m, g)) << "trial " << trial;
    expect_same_graph(g, build_training_graph(m, o));
    ++reshaped;
  }
  EXPECT_EQ(reshaped, 24);
  // Back to the ranks it was built with.
  ASSERT_TRUE(reshaper.reshape(base, g));
  expect_same_graph(g, build_training_graph(base, o));
}

INSTANTIATE_TEST_SUITE_P(Flows, Reshape,
                         ::testing::Values(Case{Flow::kBTT, 0}, Case{Flow::kTT, 0}, Case{Flow::kMM, 0},
                                           Case{Flow::kBTT, 17}, Case{Flow::kTT, 9}, Case{Flow::kBTT, 0, true},
                                           Case{Flow::kTT, 9, true}, Case{Flow::kBTT, 0, false, true},
                                           Case{Flow::kBTT, 17, true, true}));

TEST(Reshape, RankOneEitherMatchesOrLeavesTheGraphUntouched) {
  // Rank 1 bonds may turn contractions into other variants or degenerate shapes; the
  // reshape either reproduces the built graph or refuses and changes nothing. The graph
  // it starts from has ranks 1, 2 and 4 mixed, so layers of one shape may start from
  // plans of different structure (each keeps its own class of plans).
  std::mt19937 rng(3);
  for (int start = 0; start < 3; ++start) {
    ModelSpec base = preset("atis_2enc");
    if (start > 0) draw_ranks(base, rng, {1, 2, 4}, false);
    const GraphOptions o;
    TaskGraph g = build_training_graph(base, o);
    const TaskGraph before = g;
    GraphReshaper reshaper(base, o, g);
    for (int trial = 0; trial < 8; ++trial) {
      ModelSpec m = preset("atis_2enc");
      draw_ranks(m, rng, {1, 2, 4}, trial % 2 == 0);
      TaskGraph h = g;
      if (reshaper.reshape(m, h)) {
        expect_same_graph(h, build_training_graph(m, o));
      } else {
        expect_same_graph(h, g);
      }
    }
    expect_same_graph(g, before);
  }
}

TEST(Reshape, StructureDiffersWithEncodersFactorsOrFormat) {
  const ModelSpec a = preset("atis_2enc");
  ModelSpec b = a;
  b.linears[0].tt.ranks[1] = 3;
  b.name = "other";
  EXPECT_TRUE(same_graph_structure(a, b));
  EXPECT_FALSE(same_graph_structure(a, preset("atis_4enc")));
  ModelSpec c = a;
  c.seq_len += 1;
  EXPECT_FALSE(same_graph_structure(a, c));
  ModelSpec d = a;
  for (auto& l : d.linears) {
    if (l.format == WeightFormat::kTT && l.tt.in_factors.size() >= 2) {
      std::swap(l.tt.in_factors[0], l.tt.in_factors[1]);
      if (l.tt.in_factors[0] != l.tt.in_factors[1]) break;
    }
  }
  EXPECT_FALSE(same_graph_structure(a, d));
  ModelSpec e = a;
  e.linears.back().bias = !e.linears.back().bias;
  EXPECT_FALSE(same_graph_structure(a, e));
}

}  // namespace
}  // namespace ttsim
