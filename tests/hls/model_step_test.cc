// One full training step of a small 2-encoder model on the HLS kernels against the
// Eigen reference (models/reference, FP64): losses, every gradient, and every updated
// parameter; the flow choice (BTT vs sequential TT) must not change the result; the
// host API validates its input.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/errors.h"
#include "tests/hls/test_models.h"
#include "hls/host/hls_model.h"
#include "models/model_spec.h"
#include "models/reference/reference_model.h"

namespace {

// Relative L2 error; the denominator has a floor of 1e-3 (absolute) because some
// gradients are exactly zero in exact arithmetic (the key bias: softmax is invariant
// to a per-row shift) and only rounding noise remains in both implementations.
double rel(const std::vector<float>& got, const std::vector<double>& want) {
  double num = 0, den = 1e-6;
  for (std::size_t i = 0; i < want.size(); ++i) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / den);
}

template <typename M>
std::vector<double> flat(const M& m) {
  std::vector<double> v;
  for (int i = 0; i < m.rows(); ++i)
    for (int j = 0; j < m.cols(); ++j) v.push_back(m(i, j));
  return v;
}

// Copies the reference's initial parameters into the HLS model (FP64 → FP32) and
// rounds the reference's to FP32 so both start from the same numbers.
void sync(ttsim::reference::ReferenceModel& ref, ttsim::HlsModel& hls) {
  ASSERT_EQ(ref.parameter_names().size(), hls.parameter_names().size());
  for (const auto& name : hls.parameter_names()) {
    auto& p = ref.parameter(name);
    std::vector<float> v;
    for (int i = 0; i < p.rows(); ++i)
      for (int j = 0; j < p.cols(); ++j) {
        p(i, j) = static_cast<float>(p(i, j));
        v.push_back(static_cast<float>(p(i, j)));
      }
    hls.set_parameter(name, v);
  }
}

const std::vector<int> kTokens = {1, 19, 7, 7, 12};
const std::vector<int> kTags = {0, 3, -1, 6, 2};
constexpr int kIntent = 4;

TEST(ModelStep, ParameterNamesAndShapesMatchReference) {
  const ttsim::ModelSpec spec = ttsim::testing::tiny_2enc_spec();
  ttsim::reference::ReferenceModel ref(spec);
  ttsim::HlsModel hls(spec);
  ASSERT_EQ(ref.parameter_names(), hls.parameter_names());
  for (const auto& n : hls.parameter_names()) {
    EXPECT_EQ(ref.parameter_shape(n), hls.parameter_shape(n)) << n;
  }
  EXPECT_EQ(hls.parameter_count(), spec.compressed_params());
}

/// One step of `spec` against the Eigen reference: losses (1e-5), gradients (1e-4), the fused
/// train step's parameters against the reference's SGD (1e-5), and a second step from them.
void expect_step_matches_reference(const ttsim::ModelSpec& spec, const ttsim::HlsModelOptions& options = {}) {
  SCOPED_TRACE(spec.name);
  ttsim::reference::ReferenceModel ref(spec);
  ttsim::HlsModel hls(spec, options);
  sync(ref, hls);
  const auto want = ref.forward_backward(kTokens, kIntent, kTags);
  const ttsim::HlsLosses got = hls.forward_backward(kTokens, kIntent, kTags);
  EXPECT_NEAR(got.intent, want.intent_loss, 1e-5 * want.intent_loss);
  EXPECT_NEAR(got.slot, want.slot_loss, 1e-5 * want.slot_loss);
  for (const auto& n : hls.parameter_names()) {
    EXPECT_LE(rel(hls.gradient(n), flat(ref.gradient(n))), 1e-4) << n;
  }
  // The train step (SGD fused into the backward pass, group by group) from the same
  // parameters: the reference's end-of-step SGD, p − lr·g, to 1e-5, and the same losses.
  const double lr = 0.05;
  ref.sgd_update(lr);
  const ttsim::HlsLosses stepped = hls.train_step(kTokens, kIntent, kTags, static_cast<float>(lr));
  EXPECT_EQ(stepped.intent, got.intent);
  EXPECT_EQ(stepped.slot, got.slot);
  for (const auto& n : hls.parameter_names()) {
    EXPECT_LE(rel(hls.parameter(n), flat(ref.parameter(n))), 1e-5) << n;
  }
  // The next step starts from zero gradients (each update re-zeroes them) and still matches.
  const auto want2 = ref.forward_backward(kTokens, kIntent, kTags);
  const ttsim::HlsLosses got2 = hls.forward_backward(kTokens, kIntent, kTags);
  EXPECT_NEAR(got2.total(), want2.loss, 1e-5 * want2.loss);
  EXPECT_LT(got2.total(), got.total());
}

TEST(ModelStep, OneStepMatchesReferenceLossGradientsAndUpdate) {
  expect_step_matches_reference(ttsim::testing::tiny_2enc_spec());
}

// The rank-1 ends in their plain form (the TTM's last lookup, the attention layers' last
// right merge) and transposed (FFN-in): losses, gradients and update as the reference's.
TEST(ModelStep, PlainRankOneEndsMatchReference) {
  expect_step_matches_reference(ttsim::testing::tiny_plain_ends_spec());
}

// The accumulating products of a dual-port machine's step through partials and adds
// (ttsim_spec::accumulate_by_add for 16 contraction lanes on 8 banks, and for
// u50_unit_lanes' 128 on 64: the BTT layers' and the intent
// head's dX, the TTM scatter token by token, each partial in words the layout holds dead
// then) — losses, gradients and update as the reference's; with recomputed encoders (their
// shared activation region) the same step bit for bit. (tiny_spec(3) is not held to the
// reference: its enc1.k.bias, a column sum that cancels, lands at 1.02e-4 of it, the adds'
// summation order; its recomputed step equals its kept one exactly.)
void expect_recomputation_exact(const ttsim::ModelSpec& spec, const ttsim::HlsModelOptions& re,
                                const ttsim::HlsModelOptions& base);

TEST(ModelStep, AccumulatingThroughAddsMatchesReference) {
  ttsim::HlsModelOptions dual;
  dual.contraction_lanes = 16;
  dual.arena_banks = 8;
  ttsim::HlsModelOptions u50 = dual;
  u50.contraction_lanes = 128;
  u50.arena_banks = 64;
  expect_step_matches_reference(ttsim::load_model_spec(ttsim::testing::model_preset_path("atis_2enc.json")), u50);
  for (const ttsim::ModelSpec& spec : {ttsim::testing::tiny_ttm4_spec()}) {
    const ttsim_hls::ModelDims dims = ttsim::hls_model_dims(spec, dual);
    int split = dims.intent_dx_by_add;
    for (int e = 0; e < dims.encoders; ++e) split += dims.lin[e][0].dx_by_add + dims.lin[e][4].dx_by_add;
    for (int k = 2; k <= dims.emb.d; ++k) split += dims.emb.core_by_add[k];
    EXPECT_GE(split, 3) << spec.name << ": the rule splits some of each kind";
    expect_step_matches_reference(spec, dual);
  }
  ttsim::HlsModelOptions re = dual;
  re.recompute_encoders = true;
  expect_recomputation_exact(ttsim::testing::tiny_spec(3), re, dual);
  expect_step_matches_reference(ttsim::testing::tiny_2enc_spec(), dual);
}

// The fused update is the SGD of the gradients the step computes, bit for bit: the train
// step's parameters equal p − lr·g with the gradient mode's g (a tensor updated before its
// last reader would differ); recomputing the BTT merges in the backward pass gives the same
// losses, gradients and updated parameters, bit for bit.
/// A step of `spec` with the recomputation `re` against the step that keeps every forward
/// value: the same losses and gradients, and after the fused update the parameters w − lr·g
/// of the kept step's gradients, bit for bit.
void expect_recomputation_exact(const ttsim::ModelSpec& spec, const ttsim::HlsModelOptions& re,
                                const ttsim::HlsModelOptions& base = {}) {
  ttsim::HlsModel kept(spec, base), again(spec, re);
  const float lr = 0.05f;
  const ttsim::HlsLosses g1 = kept.forward_backward(kTokens, kIntent, kTags);
  const ttsim::HlsLosses g2 = again.forward_backward(kTokens, kIntent, kTags);
  EXPECT_EQ(g1.intent, g2.intent);
  EXPECT_EQ(g1.slot, g2.slot);
  std::vector<std::vector<float>> want;
  for (const auto& n : kept.parameter_names()) {
    EXPECT_EQ(kept.gradient(n), again.gradient(n)) << n;
    std::vector<float> p = kept.parameter(n);
    const std::vector<float> g = kept.gradient(n);
    for (std::size_t i = 0; i < p.size(); ++i) p[i] = p[i] - lr * g[i];
    want.push_back(p);
  }
  kept.train_step(kTokens, kIntent, kTags, lr);
  again.train_step(kTokens, kIntent, kTags, lr);
  std::size_t i = 0;
  for (const auto& n : kept.parameter_names()) {
    EXPECT_EQ(kept.parameter(n), want[i]) << n;
    EXPECT_EQ(again.parameter(n), want[i]) << n;
    ++i;
  }
}

// A four-core TTM whose temporaries, in the words of act and out while the embedding runs,
// are larger than those arrays' activations: the arrays are the embedding's size, and the
// step (its forward from them, its backward chain through them) is the reference's.
TEST(ModelStep, FourCoreTtmWithTemporariesLargerThanTheActivationsMatchesReference) {
  const ttsim::ModelSpec spec = ttsim::testing::tiny_ttm4_spec();
  const ttsim_hls::ModelDims dims = ttsim::hls_model_dims(spec);
  ASSERT_EQ(dims.emb.d, 4);
  ASSERT_TRUE(ttsim_hls::ttm_last_transposed(dims.emb));
  ttsim_hls::Layout layout;
  ASSERT_TRUE(ttsim_hls::make_layout(dims, &layout));
  EXPECT_EQ(layout.words[ttsim_hls::kActArena], ttsim_hls::ttm_scratch_words(dims.emb, dims.seq_len, 1));
  EXPECT_EQ(layout.words[ttsim_hls::kOutArena], ttsim_hls::ttm_scratch_words(dims.emb, dims.seq_len, 0));
  expect_step_matches_reference(spec);
}

TEST(ModelStep, FusedUpdateAndRecomputedMergesAreExact) {
  ttsim::HlsModelOptions re;
  re.recompute_merges = true;
  expect_recomputation_exact(ttsim::testing::tiny_2enc_spec(), re);
}

// Encoder recomputation (each encoder but the last runs its forward again before its
// backward, its activations in one region shared with the other encoders'): 2 and 3
// encoders (the middle one recomputed from the first one's kept output), encoders of
// uneven ranks (the region sized by the largest encoder of each arena), alone and with the
// BTT merges recomputed too.
TEST(ModelStep, RecomputedEncodersAreExact) {
  for (const ttsim::ModelSpec& spec :
       {ttsim::testing::tiny_spec(2), ttsim::testing::tiny_spec(3), ttsim::testing::tiny_uneven_spec()}) {
    for (bool merges : {false, true}) {
      SCOPED_TRACE(spec.name + ", merges " + (merges ? "recomputed" : "kept"));
      ttsim::HlsModelOptions re;
      re.recompute_encoders = true;
      re.recompute_merges = merges;
      expect_recomputation_exact(spec, re);
    }
  }
}

// The full 2-encoder ATIS preset (configs/models/atis_2enc.json: d_model 768, TT rank 12,
// TTM rank 30) on a 32-token sample: the kernels as emitted for the reference design
// (design_config.h lanes; slot-interleaved sums and lane trees) give the reference's
// losses to 1e-5 and every gradient to 1e-4 (relative L2).
TEST(ModelStep, FullAtis2EncoderStepMatchesReference) {
  const ttsim::ModelSpec spec = ttsim::load_model_spec(ttsim::testing::model_preset_path("atis_2enc.json"));
  ttsim::reference::ReferenceModel ref(spec);
  ttsim::HlsModel hls(spec);
  sync(ref, hls);
  std::vector<int> tokens, tags;
  for (int i = 0; i < 32; ++i) {
    tokens.push_back((i * 193 + 17) % 2500);
    tags.push_back(i % 9 == 4 ? -1 : (i * 7) % 127);
  }
  const auto want = ref.forward_backward(tokens, 11, tags);
  const ttsim::HlsLosses got = hls.forward_backward(tokens, 11, tags);
  EXPECT_NEAR(got.intent, want.intent_loss, 1e-5 * want.intent_loss);
  EXPECT_NEAR(got.slot, want.slot_loss, 1e-5 * want.slot_loss);
  for (const auto& n : hls.parameter_names()) {
    EXPECT_LE(rel(hls.gradient(n), flat(ref.gradient(n))), 1e-4) << n;
  }
}

TEST(ModelStep, SequentialTtFlowGivesTheSameStep) {
  const ttsim::ModelSpec spec = ttsim::testing::tiny_2enc_spec();
  ttsim::HlsModelOptions tt;
  tt.btt_by_kind = {{"attention", false}, {"ffn_in", false}, {"ffn_out", false}};
  ttsim::HlsModel a(spec), b(spec, tt);
  b.set_parameters(a.parameters());
  const auto la = a.train_step(kTokens, kIntent, kTags, 0.1f);
  const auto lb = b.train_step(kTokens, kIntent, kTags, 0.1f);
  EXPECT_NEAR(la.total(), lb.total(), 1e-5 * la.total());
  std::vector<double> pa(a.parameters().begin(), a.parameters().end());
  EXPECT_LE(rel(b.parameters(), pa), 1e-5);
}

TEST(ModelStep, PredictMatchesReferenceLogits) {
  const ttsim::ModelSpec spec = ttsim::testing::tiny_2enc_spec();
  ttsim::reference::ReferenceModel ref(spec);
  ttsim::HlsModel hls(spec);
  sync(ref, hls);
  const auto want = ref.forward(kTokens, kIntent, kTags);
  const ttsim::HlsPrediction p = hls.predict(kTokens);
  EXPECT_LE(rel(p.intent_logits, flat(want.intent_logits)), 1e-5);
  EXPECT_LE(rel(p.slot_logits, flat(want.slot_logits)), 1e-5);
  EXPECT_EQ(p.intent, want.predicted_intent);
  EXPECT_EQ(p.slots, want.predicted_slots);
}

TEST(ModelStep, RejectsBadInput) {
  ttsim::HlsModel hls(ttsim::testing::tiny_2enc_spec());
  EXPECT_THROW(hls.train_step({}, 0, {}, 0.1f), ttsim::InputError);
  EXPECT_THROW(hls.train_step({20}, 0, {0}, 0.1f), ttsim::InputError);          // token >= vocab
  EXPECT_THROW(hls.train_step({1, 2}, 0, {0}, 0.1f), ttsim::InputError);        // tag count
  EXPECT_THROW(hls.train_step({1}, 5, {0}, 0.1f), ttsim::InputError);           // intent
  EXPECT_THROW(hls.train_step(std::vector<int>(7, 1), 0, std::vector<int>(7, 0), 0.1f),
               ttsim::InputError);                                               // > seq_len
  EXPECT_THROW(hls.parameter("nope"), ttsim::InputError);
  EXPECT_THROW(hls.set_parameter("slot_head.bias", {1.0f}), ttsim::InputError);
}

}  // namespace
