// The full reference training step: gradients against finite differences for every
// parameter of a tiny model (TT and dense), agreement between flows and between the TT
// model and its dense equivalent, the SGD update, counted MACs against models/flows.h,
// and a step of the atis_2enc preset.

#include <cmath>
#include <cstdlib>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "core/errors.h"
#include "models/flows.h"
#include "models/reference/reference_model.h"
#include "models/tt_init.h"
#include "tests/models/reference_test_util.h"

namespace ttsim::reference {
namespace {

using testing::rel_err;

/// Two encoders, every format: TTM embedding, TT layers with uniform and per-bond ranks,
/// an output side of three cores, one dense override, dense heads, one head without bias.
ModelSpec tiny_spec() {
  return parse_model_spec(Json::parse(R"({
    "name": "tiny", "encoders": 2, "d_model": 8, "heads": 2, "ffn_dim": 12, "seq_len": 5,
    "vocab": 12, "intents": 3, "slot_tags": 4,
    "token_embedding": {"format": "ttm", "vocab_factors": [3, 4], "dim_factors": [2, 4], "rank": 3},
    "layers": {
      "attention": {"format": "tt", "in_factors": [2, 4], "out_factors": [4, 2], "rank": 3},
      "ffn_in": {"format": "tt", "in_factors": [2, 4], "out_factors": [3, 4], "rank": 2},
      "ffn_out": {"format": "tt", "in_factors": [3, 4], "out_factors": [2, 2, 2], "ranks": [1, 2, 3, 2, 2, 1]},
      "intent_head": {"format": "dense"},
      "slot_head": {"format": "dense", "bias": false}
    },
    "overrides": {"enc1.v": {"format": "dense"}}
  })"),
                          "tiny.json");
}

const std::vector<int> kTokens = {7, 0, 11, 3};
const int kIntent = 2;
const std::vector<int> kSlots = {1, -1, 3, 0};  // -1: not counted

/// Central finite differences of the loss for every entry of every parameter.
template <typename Model>
void expect_gradients_match_finite_differences(Model& model) {
  model.forward_backward(kTokens, kIntent, kSlots);
  const double h = 1e-5;
  int checked = 0;
  for (const auto& name : model.parameter_names()) {
    Mat<double>& p = model.parameter(name);
    const Mat<double>& g = model.gradient(name);
    ASSERT_EQ(g.size(), p.size()) << name;
    for (Eigen::Index i = 0; i < p.size(); ++i) {
      const double keep = p.data()[i];
      p.data()[i] = keep + h;
      const double up = model.forward(kTokens, kIntent, kSlots).loss;
      p.data()[i] = keep - h;
      const double down = model.forward(kTokens, kIntent, kSlots).loss;
      p.data()[i] = keep;
      const double fd = (up - down) / (2 * h);
      ASSERT_NEAR(g.data()[i], fd, 1e-6 + 1e-5 * std::abs(fd)) << name << "[" << i << "]";
      ++checked;
    }
  }
  EXPECT_EQ(checked, model.parameter_count());
}

class ReferenceModelFlows : public ::testing::TestWithParam<Flow> {};

TEST_P(ReferenceModelFlows, EveryGradientMatchesFiniteDifferences) {
  ReferenceModel model(tiny_spec(), {3, GetParam()});
  expect_gradients_match_finite_differences(model);
}

TEST_P(ReferenceModelFlows, CountedMacsEqualFlowFormulas) {
  const ModelSpec spec = tiny_spec();
  ReferenceModel model(spec, {5, GetParam()});
  model.forward_backward(kTokens, kIntent, kSlots);
  const std::int64_t k = static_cast<std::int64_t>(kTokens.size());
  for (const auto& l : spec.linears) {
    // The heads: the intent head runs on the first token only.
    const std::int64_t rows = l.name == "intent_head" ? 1 : k;
    const auto& m = model.macs(l.name);
    EXPECT_EQ(m.forward.macs, linear_cost(l, GetParam(), rows, FlowStage::kForward).macs) << l.name;
    EXPECT_EQ(m.grad_input.macs, linear_cost(l, GetParam(), rows, FlowStage::kGradInput).macs)
        << l.name;
    EXPECT_EQ(m.grad_weights.macs, linear_cost(l, GetParam(), rows, FlowStage::kGradWeights).macs)
        << l.name;
  }
  const FlowPlan ttm = plan_ttm_lookup(spec.token_embedding.ttm, k);
  EXPECT_EQ(model.macs("embedding.token").forward.macs, stage_cost(ttm, FlowStage::kForward).macs);
  EXPECT_EQ(model.macs("embedding.token").grad_weights.macs,
            stage_cost(ttm, FlowStage::kGradWeights).macs);
  const FlowPlan attn = plan_attention(1, k, spec.heads, spec.head_dim());
  for (int e = 0; e < spec.encoders; ++e) {
    const auto& m = model.macs("enc" + std::to_string(e) + ".attention");
    EXPECT_EQ(m.forward.macs, stage_cost(attn, FlowStage::kForward).macs);
    EXPECT_EQ(m.grad_input.macs, stage_cost(attn, FlowStage::kGradInput).macs);
  }
}

INSTANTIATE_TEST_SUITE_P(AllFlows, ReferenceModelFlows,
                         ::testing::Values(Flow::kMM, Flow::kTT, Flow::kBTT),
                         [](const auto& info) { return std::string(to_string(info.param)); });

/// A random tiny model: 1-2 encoders, d_model = heads·c, random factors and ranks.
ModelSpec gen_tiny_spec() {
  const int heads = *rc::gen::inRange(1, 3), c = *rc::gen::inRange(1, 4);
  const int f1 = *rc::gen::inRange(1, 4), f2 = *rc::gen::inRange(1, 4);
  const int v1 = *rc::gen::inRange(1, 4), v2 = *rc::gen::inRange(2, 5);
  auto rank = [] { return *rc::gen::inRange(1, 4); };
  Json doc = {
      {"name", "random"}, {"encoders", *rc::gen::inRange(1, 3)}, {"d_model", heads * c},
      {"heads", heads}, {"ffn_dim", f1 * f2}, {"seq_len", 4}, {"vocab", v1 * v2},
      {"intents", 3}, {"slot_tags", 3},
      {"token_embedding",
       {{"format", "ttm"}, {"vocab_factors", {v1, v2}}, {"dim_factors", {heads, c}},
        {"ranks", {1, rank(), 1}}}},
      {"layers",
       {{"attention",
         {{"format", "tt"}, {"in_factors", {heads, c}}, {"out_factors", {c, heads}},
          {"ranks", {1, rank(), rank(), rank(), 1}}}},
        {"ffn_in",
         {{"format", "tt"}, {"in_factors", {heads * c}}, {"out_factors", {f1, f2}},
          {"ranks", {1, rank(), rank(), 1}}}},
        {"ffn_out",
         {{"format", "tt"}, {"in_factors", {f1, f2}}, {"out_factors", {heads * c}},
          {"rank", rank()}}}}}};
  return parse_model_spec(doc, "random.json");
}

RC_GTEST_PROP(ReferenceModelProperty, DenseEquivalentAndFlowsAgreeOnRandomTinyModels, ()) {
  const ModelSpec spec = gen_tiny_spec();
  const auto tokens = *rc::gen::container<std::vector<int>>(
      static_cast<std::size_t>(*rc::gen::inRange(1, 5)),
      rc::gen::inRange(0, static_cast<int>(spec.vocab)));
  const auto slots = *rc::gen::container<std::vector<int>>(tokens.size(), rc::gen::inRange(-1, 3));
  const int intent = *rc::gen::inRange(0, 3);
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  ReferenceModel btt(spec, {seed, Flow::kBTT}), tt(spec, {seed, Flow::kTT});
  const double loss = btt.forward_backward(tokens, intent, slots).loss;
  RC_ASSERT(std::isfinite(loss));
  RC_ASSERT(std::abs(tt.forward_backward(tokens, intent, slots).loss - loss) <=
            1e-12 * std::max(1.0, loss));
  for (const auto& name : btt.parameter_names()) {
    RC_ASSERT(rel_err(tt.gradient(name), btt.gradient(name)) <= 1e-9);
  }
  const double dense = btt.dense_equivalent().forward(tokens, intent, slots).loss;
  RC_ASSERT(std::abs(dense - loss) <= 1e-12 * std::max(1.0, loss));
}

TEST(ReferenceModel, DenseModelGradientsMatchFiniteDifferences) {
  ReferenceModel model(densified(tiny_spec()), {4});
  expect_gradients_match_finite_differences(model);
}

TEST(ReferenceModel, ParameterCountsEqualTheSpec) {
  const ModelSpec spec = tiny_spec();
  ReferenceModel model(spec);
  EXPECT_EQ(model.parameter_count(), spec.compressed_params());
  EXPECT_EQ(model.dense_equivalent().parameter_count(), spec.dense_params());
  EXPECT_EQ(model.parameter_shape("enc0.q.core1"), (std::vector<std::int64_t>{3, 4, 3}));
  EXPECT_EQ(model.parameter_shape("embedding.token.core0"), (std::vector<std::int64_t>{1, 3, 2, 3}));
  EXPECT_EQ(model.parameter_shape("enc1.v.weight"), (std::vector<std::int64_t>{8, 8}));
  EXPECT_THROW(model.parameter("slot_head.bias"), InputError);
  EXPECT_THROW(model.gradient("nope"), InputError);
}

TEST(ReferenceModel, FlowsGiveTheSameLossAndGradients) {
  ReferenceModel mm(tiny_spec(), {9, Flow::kMM}), tt(tiny_spec(), {9, Flow::kTT}),
      btt(tiny_spec(), {9, Flow::kBTT});
  const double l_mm = mm.forward_backward(kTokens, kIntent, kSlots).loss;
  const double l_tt = tt.forward_backward(kTokens, kIntent, kSlots).loss;
  const double l_btt = btt.forward_backward(kTokens, kIntent, kSlots).loss;
  EXPECT_NEAR(l_mm, l_btt, 1e-12 * std::abs(l_btt));
  EXPECT_NEAR(l_tt, l_btt, 1e-12 * std::abs(l_btt));
  for (const auto& name : btt.parameter_names()) {
    EXPECT_LE(rel_err(mm.gradient(name), btt.gradient(name)), 1e-10) << name;
    EXPECT_LE(rel_err(tt.gradient(name), btt.gradient(name)), 1e-10) << name;
  }
}

TEST(ReferenceModel, DenseEquivalentGivesTheSameForward) {
  ReferenceModel tt(tiny_spec(), {11});
  ReferenceModel dense = tt.dense_equivalent();
  const auto a = tt.forward_backward(kTokens, kIntent, kSlots);
  const auto b = dense.forward_backward(kTokens, kIntent, kSlots);
  EXPECT_NEAR(a.loss, b.loss, 1e-12 * std::abs(a.loss));
  EXPECT_LE(rel_err(a.slot_logits, b.slot_logits), 1e-12);
  EXPECT_LE(rel_err(a.intent_logits, b.intent_logits), 1e-12);
  // Parameters shared by both formats get the same gradient.
  for (const char* name : {"embedding.position", "enc0.ln1.gain", "enc1.q.bias", "slot_head.weight"}) {
    EXPECT_LE(rel_err(tt.gradient(name), dense.gradient(name)), 1e-10) << name;
  }
}

TEST(ReferenceModel, TrainStepAppliesSgdInPlaceAndLowersTheLoss) {
  ReferenceModel model(tiny_spec(), {13});
  ReferenceModel probe = model;
  probe.forward_backward(kTokens, kIntent, kSlots);
  const double lr = 0.05;
  const auto first = model.train_step(kTokens, kIntent, kSlots, lr);
  EXPECT_DOUBLE_EQ(first.loss, first.intent_loss + first.slot_loss);
  EXPECT_EQ(first.slot_logits.rows(), 4);
  EXPECT_EQ(first.predicted_slots.size(), 4u);
  for (const auto& name : model.parameter_names()) {
    const Mat<double> expected = probe.parameter(name) - lr * probe.gradient(name);
    EXPECT_LE(rel_err(model.parameter(name), expected), 1e-14) << name;
  }
  double loss = first.loss;
  for (int i = 0; i < 20; ++i) loss = model.train_step(kTokens, kIntent, kSlots, lr).loss;
  EXPECT_LT(loss, 0.5 * first.loss);
}

TEST(ReferenceModel, Fp32StepTracksFp64) {
  ReferenceModelT<float> f(tiny_spec(), {17});
  ReferenceModel d(tiny_spec(), {17});
  for (const auto& name : d.parameter_names()) f.parameter(name) = d.parameter(name).cast<float>();
  const double lf = f.forward_backward(kTokens, kIntent, kSlots).loss;
  const double ld = d.forward_backward(kTokens, kIntent, kSlots).loss;
  EXPECT_NEAR(lf, ld, 1e-4 * std::abs(ld));
  for (const auto& name : d.parameter_names()) {
    EXPECT_LE(rel_err(f.gradient(name).cast<double>(), d.gradient(name)), 1e-3) << name;
  }
}

TEST(ReferenceModel, RejectsBadInputs) {
  ReferenceModel model(tiny_spec());
  EXPECT_THROW(model.forward({}, 0, {}), InputError);
  EXPECT_THROW(model.forward({1, 2, 3, 4, 5, 6}, 0, {0, 0, 0, 0, 0, 0}), InputError);  // > seq_len
  EXPECT_THROW(model.forward({12}, 0, {0}), InputError);      // token ≥ vocab
  EXPECT_THROW(model.forward({1}, 3, {0}), InputError);       // intent ≥ intents
  EXPECT_THROW(model.forward({1, 2}, 0, {0}), InputError);    // one tag per token
  EXPECT_THROW(model.forward({1}, 0, {4}), InputError);       // tag ≥ slot_tags
  EXPECT_THROW(model.forward({1}, 0, {-2}), InputError);
}

TEST(ReferenceModel, Atis2EncPresetStepMatchesItsDenseEquivalent) {
  const ModelSpec spec = load_model_spec("configs/models/atis_2enc.json");
  ReferenceModel tt(spec, {1});
  EXPECT_EQ(tt.parameter_count(), spec.compressed_params());
  std::vector<int> tokens, slots;
  for (int t = 0; t < spec.seq_len; ++t) {
    tokens.push_back((t * 977 + 13) % static_cast<int>(spec.vocab));
    slots.push_back(t % static_cast<int>(spec.slot_tags));
  }
  // The gain-balanced TT init (models/tt_init.h) gives the reconstructed matrix the
  // variance gain^{6/5}·r/(M·N) (6 cores, rank r = 12).
  const Mat<double> w = reconstruct(TtTensor<double>{
      spec.linears[0].tt,
      {tt.parameter("enc0.q.core0"), tt.parameter("enc0.q.core1"), tt.parameter("enc0.q.core2"),
       tt.parameter("enc0.q.core3"), tt.parameter("enc0.q.core4"), tt.parameter("enc0.q.core5")}});
  const double var = w.squaredNorm() / static_cast<double>(w.size());
  const double want = std::pow(kTtInitGain, 6.0 / 5.0) * 12.0 / (768.0 * 768.0);
  EXPECT_NEAR(var, want, 0.35 * want);
  ReferenceModel dense = tt.dense_equivalent();
  const auto a = tt.forward(tokens, 5, slots);
  const auto b = dense.forward(tokens, 5, slots);
  ASSERT_TRUE(std::isfinite(a.loss));
  EXPECT_NEAR(a.loss, b.loss, 1e-9 * std::abs(a.loss));
  const auto r = tt.train_step(tokens, 5, slots, 4e-3);
  EXPECT_NEAR(r.loss, a.loss, 1e-12 * std::abs(a.loss));
  EXPECT_LT(tt.forward(tokens, 5, slots).loss, a.loss);
}

}  // namespace
}  // namespace ttsim::reference
