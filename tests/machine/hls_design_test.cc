// What the HLS kernel tree can build of a model (machine/hls_dims.h hls_design): one sample
// per step (batch 1, else an error at the model's /batch), one TT factorisation per layer
// kind, and a TT rank per encoder layer (the emitted design_config.h kLayerRanks).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/json_view.h"
#include "hls/host/layout_fields.h"
#include "machine/hls_dims.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"

namespace ttsim {
namespace {

Json atis_2enc() { return load_json_file("configs/models/atis_2enc.json"); }
ArchSpec paper() { return load_arch_spec("configs/arch/u50_paper.json"); }

std::string error_of(const Json& model) {
  try {
    machine::hls_design(parse_model_spec(model, "m.json"), paper(), "a.json", "m.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(HlsDesign, RefusesABatchOtherThanOneAtTheModelsBatch) {
  Json m = atis_2enc();
  m["batch"] = 2;
  const std::string e = error_of(m);
  EXPECT_NE(e.find("m.json: /batch: expected 1"), std::string::npos) << e;
  EXPECT_NE(e.find("found 2"), std::string::npos) << e;
}

// A one-core TTM embedding (a plain table lookup) is not what the kernels' TTM chain runs:
// refused at the model's vocab factors, naming the core counts the tree takes.
TEST(HlsDesign, RefusesATtmEmbeddingOfOneCoreAtItsFactors) {
  Json m = atis_2enc();
  m["token_embedding"]["vocab_factors"] = Json::array({2500});
  m["token_embedding"]["dim_factors"] = Json::array({768});
  const std::string e = error_of(m);
  EXPECT_NE(e.find("m.json: /token_embedding/vocab_factors"), std::string::npos) << e;
  EXPECT_NE(e.find("takes 2 to 6 cores, found 1"), std::string::npos) << e;
}

// /memory/recompute "btt_merges": every BTT layer recomputes its merges; the sequential TT
// flow has none to recompute, and such an arch is refused naming the key.
// Every linear of the kernel tree adds a bias and the heads are dense (dense_forward): a
// layer without a bias or a TT head is refused where simulate, explore and emit all read it,
// naming the layer and both places its setting can come from.
TEST(HlsDesign, RefusesALayerWithoutBiasAndATtHead) {
  Json m = atis_2enc();
  m["overrides"] = Json{{"enc0.q", m["layers"]["attention"]}};
  m["overrides"]["enc0.q"]["bias"] = false;
  std::string e = error_of(m);
  EXPECT_NE(e.find("m.json: /layers/attention/bias or /overrides/enc0.q/bias: the HLS kernel tree's linear layers "
                   "all have a bias, found none for enc0.q"),
            std::string::npos)
      << e;
  m = atis_2enc();
  m["overrides"] = Json{{"slot_head",
                         {{"format", "tt"}, {"in_factors", {12, 8, 8}}, {"out_factors", {127}}, {"rank", 4}}}};
  e = error_of(m);
  EXPECT_NE(e.find("/layers/slot_head/format or /overrides/slot_head/format: the HLS kernel tree's heads are dense, "
                   "found tt for slot_head"),
            std::string::npos)
      << e;
}

TEST(HlsDesign, RecomputesMergesOfTheBttFlowOnly) {
  const ModelSpec m = parse_model_spec(atis_2enc(), "m.json");
  ArchSpec a = load_arch_spec("configs/arch/u50_paper_recompute.json");
  ASSERT_TRUE(a.recompute_merges);
  const machine::HlsDesign d = machine::hls_design(m, a, "a.json", "m.json");
  EXPECT_TRUE(d.recompute);
  for (int e = 0; e < 2; ++e) {
    for (int i = 0; i < 6; ++i) EXPECT_TRUE(d.dims.lin[e][i].recompute) << e << " " << i;
  }
  for (auto& [kind, f] : a.flow_by_kind) f = Flow::kTT;
  try {
    machine::hls_design(m, a, "a.json", "m.json");
    FAIL() << "a tt-flow arch recomputing BTT merges was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a.json: /memory/recompute"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(machine::hls_design(m, paper(), "a.json", "m.json").dims.lin[0][0].recompute);
}

// /memory/recompute "encoders": the layout shares one region among the encoders (smaller
// activation arenas than keeping them); a model of one encoder has nothing to recompute, and
// such an arch is refused naming the key and the encoder count.
TEST(HlsDesign, RecomputesEncodersOfModelsWithTwoOrMore) {
  const ModelSpec m = parse_model_spec(atis_2enc(), "m.json");
  const ArchSpec a = load_arch_spec("configs/arch/u50_paper_recompute_encoders.json");
  ASSERT_TRUE(a.recompute_encoders);
  ASSERT_FALSE(a.recompute_merges);
  const machine::HlsDesign d = machine::hls_design(m, a, "a.json", "m.json");
  const machine::HlsDesign kept = machine::hls_design(m, paper(), "a.json", "m.json");
  EXPECT_TRUE(d.dims.recompute_encoders);
  EXPECT_FALSE(kept.dims.recompute_encoders);
  EXPECT_LT(d.layout.act_words, kept.layout.act_words);
  EXPECT_EQ(d.layout.param_words, kept.layout.param_words);
  // Both encoders' first activation slots start the region: one place for both.
  EXPECT_EQ(d.layout.enc[0].ctx, d.layout.enc[1].ctx);
  EXPECT_NE(d.layout.enc[0].h2, d.layout.enc[1].h2);
  Json one = atis_2enc();
  one["encoders"] = 1;
  try {
    machine::hls_design(parse_model_spec(one, "m.json"), a, "a.json", "m.json");
    FAIL() << "a 1-encoder model recomputing its encoders was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("a.json: /memory/recompute: \"encoders\""), std::string::npos) << what;
    EXPECT_NE(what.find("1 encoder:"), std::string::npos) << what;
  }
}

TEST(HlsDesign, TakesARankPerEncoderLayer) {
  Json m = atis_2enc();
  m["overrides"] = {{"enc1.q", {{"rank", 4}}}, {"enc0.ffn_out", {{"rank", 20}}}};
  const machine::HlsDesign d = machine::hls_design(parse_model_spec(m, "m.json"), paper(), "a.json", "m.json");
  for (int e = 0; e < 2; ++e) {
    for (int i = 0; i < 6; ++i) {
      const int want = e == 1 && i == 0 ? 4 : e == 0 && i == 5 ? 20 : 12;
      const auto& t = d.dims.lin[e][i].t;
      EXPECT_EQ(t.r[0], 1);
      EXPECT_EQ(t.r[t.d + t.e], 1);
      for (int k = 1; k < t.d + t.e; ++k) EXPECT_EQ(t.r[k], want) << "enc" << e << " layer " << i << " r_" << k;
    }
  }
}

// No encoder, or more than the shape tables hold, is refused at the model's /encoders.
TEST(HlsDesign, RefusesEncoderCountsOutsideTheTables) {
  for (int n : {0, ttsim_hls::kMaxEncoders + 1}) {
    Json m = atis_2enc();
    m["encoders"] = n;
    const std::string e = error_of(m);
    EXPECT_NE(e.find("m.json: /encoders: the HLS kernel tree takes 1 to " + std::to_string(ttsim_hls::kMaxEncoders) +
                     " encoders, found " + std::to_string(n)),
              std::string::npos)
        << e;
  }
}

TEST(HlsDesign, RefusesFactorsThatDifferWithinAKind) {
  Json m = atis_2enc();
  m["overrides"] = {{"enc1.k", {{"in_factors", {8, 12, 8}}}}};
  const std::string e = error_of(m);
  EXPECT_NE(e.find("m.json: /overrides: layer enc1.k has TT factors [8,12,8]x[8,8,12], enc0.q has [12,8,8]x[8,8,12]"),
            std::string::npos)
      << e;
}

// Every int and flag of a design, in one list (the shape tables over all their entries):
// what hls_design_into must leave equal to a fresh hls_design.
std::vector<long> fields_of(const machine::HlsDesign& d) {
  std::vector<long> v;
  const ttsim_hls::ModelDims& m = d.dims;
  for (int x : {m.encoders, m.d_model, m.heads, m.ffn_dim, m.seq_len, m.intents, m.slot_tags, m.emb.d}) v.push_back(x);
  for (int k = 0; k < ttsim_hls::kMaxTtmFactors; ++k) v.insert(v.end(), {m.emb.v[k], m.emb.e[k]});
  for (int k = 0; k <= ttsim_hls::kMaxTtmFactors; ++k) v.insert(v.end(), {m.emb.r[k], m.emb.core_by_add[k]});
  v.insert(v.end(), {m.recompute_encoders, m.intent_dx_by_add, d.btt, d.recompute});
  for (const auto& enc : m.lin) {
    for (const ttsim_hls::LinearDims& l : enc) {
      v.insert(v.end(), {l.tt, l.btt, l.recompute, l.dx_by_add, l.in_dim, l.out_dim, l.t.d, l.t.e});
      v.insert(v.end(), std::begin(l.t.m), std::end(l.t.m));
      v.insert(v.end(), std::begin(l.t.n), std::end(l.t.n));
      v.insert(v.end(), std::begin(l.t.r), std::end(l.t.r));
    }
  }
  ttsim_hls::for_each_layout_field(d.layout, [&](const std::string&, const int& x) { v.push_back(x); });
  v.push_back(d.layout.n_tensors);
  return v;
}

// The sweep lays out one design after another in one HlsDesign (hls_design_into), which
// rewrites of the shape tables only the entries the previous design held: each must come
// out as a fresh hls_design, field for field — after a larger model, a smaller one, other
// flows and recomputation, the additions' by-add flags, and a design refused midway.
TEST(HlsDesign, LaidOutAgainInOneObjectEqualsAFreshOne) {
  Json six = load_json_file("configs/models/atis_6enc.json");
  Json two = atis_2enc();
  two["overrides"] = {{"enc1.q", {{"rank", 4}}}};
  Json bad_batch = atis_2enc();
  bad_batch["batch"] = 2;
  const std::vector<std::pair<Json, std::string>> designs = {
      {six, "configs/arch/u50_paper.json"},
      {two, "configs/arch/u50_tt_sequential.json"},
      {load_json_file("configs/models/atis_4enc.json"), "configs/arch/u50_unit_lanes.json"},
      {six, "configs/arch/u50_paper_recompute_encoders_btt_merges.json"},
      {bad_batch, "configs/arch/u50_paper.json"},
      {two, "configs/arch/u50_dual_port.json"},
  };
  machine::HlsDesign reused;
  for (const auto& [model_json, arch_file] : designs) {
    const ModelSpec model = parse_model_spec(model_json, "m.json");
    const ArchSpec arch = load_arch_spec(arch_file);
    bool refused = false;
    try {
      machine::hls_design_into(reused, model, arch, arch_file);
    } catch (const InputError&) {
      refused = true;
    }
    if (refused) {
      EXPECT_THROW(machine::hls_design(model, arch, arch_file), InputError);
      continue;
    }
    const auto fresh = std::make_unique<machine::HlsDesign>(machine::hls_design(model, arch, arch_file));
    const std::vector<long> want = fields_of(*fresh), got = fields_of(reused);
    ASSERT_EQ(want.size(), got.size());
    std::size_t first_diff = 0;
    while (first_diff < want.size() && want[first_diff] == got[first_diff]) ++first_diff;
    EXPECT_EQ(first_diff, want.size()) << arch_file << ": field " << first_diff << " of " << want.size();
  }
}

}  // namespace
}  // namespace ttsim
