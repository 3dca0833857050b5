// design_config.h describes the 2-encoder ATIS preset, its arena capacities equal the
// layout of that model, and the synthesis top ttsim_train_step computes the same step
// as the host API on the preset's shapes.

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/hls/test_models.h"

#include <cstdlib>
#include <cstring>
#include <utility>
#include <string>
#include <vector>

#include "hls/host/hls_model.h"
#include "hls/host/layout_fields.h"
#include "hls/include/design_config.h"
#include "hls/kernels/design_layout.h"
#include "hls/kernels/top.h"
#include "models/model_spec.h"

namespace {

// The top's compile-time layout (design_layout.h) is make_layout of the configured model,
// field by field.
TEST(DesignConfig, CompileTimeLayoutIsMakeLayoutOfTheConfiguredModel) {
  static constexpr ttsim_hls::Layout fixed = ttsim_hls::design_layout();
  ttsim_hls::Layout L;
  ASSERT_TRUE(ttsim_hls::make_layout(ttsim_hls::design_config_dims(), &L));
  int fields = 0;
  std::vector<std::pair<std::string, int>> made;
  ttsim_hls::for_each_layout_field(L, [&](const std::string& path, const int& v) { made.emplace_back(path, v); });
  ttsim_hls::for_each_layout_field(fixed, [&](const std::string& path, const int& v) {
    EXPECT_EQ(v, made[static_cast<std::size_t>(fields)].second) << path;
    ++fields;
  });
  EXPECT_EQ(fields, static_cast<int>(made.size()));
}

// The walk design_layout.h is rendered from reaches every byte of a Layout: a field added to
// the struct and not to hls/host/layout_fields.h fails here.
TEST(DesignConfig, LayoutWalkReachesEveryField) {
  auto* L = new ttsim_hls::Layout();
  std::memset(static_cast<void*>(L), 0xff, sizeof(ttsim_hls::Layout));
  ttsim_hls::for_each_layout_field(*L, [](const std::string&, int& v) { v = 0; });
  const auto* bytes = reinterpret_cast<const unsigned char*>(L);
  const auto left = std::count_if(bytes, bytes + sizeof(ttsim_hls::Layout), [](unsigned char b) { return b != 0; });
  EXPECT_EQ(left, 0) << "bytes of Layout no field of for_each_layout_field covers";
  delete L;
}

TEST(DesignConfig, CapacitiesEqualTheLayoutOfTheConfiguredModel) {
  ttsim_hls::Layout L;
  ASSERT_TRUE(ttsim_hls::make_layout(ttsim_hls::design_config_dims(), &L));
  using namespace ttsim_cfg;
  EXPECT_EQ(L.param_words, kParamWords);
  const int words[ttsim_hls::kFloatArenas] = {kParamWords,  kGradWords, kActWords,  kOutWords,
                                              kSaved0Words, kSaved1Words, kBwdAWords, kBwdBWords,
                                              kBwdCWords,   kChain0Words, kChain1Words};
  for (int a = 0; a < ttsim_hls::kFloatArenas; ++a) {
    EXPECT_EQ(std::max(1, L.words[a]), words[a]) << ttsim_hls::kArenaStems[a];
  }
}

TEST(DesignConfig, DefaultIsTheAtis2EncoderPreset) {
  const ttsim::ModelSpec spec = ttsim::load_model_spec(ttsim::testing::model_preset_path("atis_2enc.json"));
  const ttsim_hls::ModelDims host = ttsim::hls_model_dims(spec);
  ttsim_hls::Layout a, b;
  ASSERT_TRUE(ttsim_hls::make_layout(host, &a));
  ASSERT_TRUE(ttsim_hls::make_layout(ttsim_hls::design_config_dims(), &b));
  EXPECT_EQ(a.param_words, b.param_words);
  EXPECT_EQ(a.act_words, b.act_words);
  // The param arena: the model's compressed parameters and each update group's alignment
  // padding (model_step.h kParamGroupAlign).
  std::int64_t tensor_words = 0;
  for (int i = 0; i < a.n_tensors; ++i) tensor_words += a.tensors[i].words;
  EXPECT_EQ(tensor_words, spec.compressed_params());
  EXPECT_EQ(ttsim_cfg::kParamWords, a.param_words);
  EXPECT_LT(ttsim_cfg::kParamWords - tensor_words, static_cast<std::int64_t>(ttsim_hls::kParamGroupAlign) * a.n_tensors);
}

TEST(DesignConfig, TopFunctionRunsTheSameStepAsTheHostApi) {
  const ttsim::ModelSpec spec = ttsim::load_model_spec(ttsim::testing::model_preset_path("atis_2enc.json"));
  ttsim::HlsModel host(spec);
  std::vector<float> io = host.parameters();
  float losses[3] = {0, 0, 0};
  int tokens[ttsim_cfg::kSeqLen] = {0}, tags[ttsim_cfg::kSeqLen] = {0};
  const std::vector<int> tv = {2, 150, 77, 2499, 31, 8, 8, 1000};
  const std::vector<int> gv = {0, 5, 126, -1, 3, 3, 9, 1};
  for (std::size_t i = 0; i < tv.size(); ++i) { tokens[i] = tv[i]; tags[i] = gv[i]; }
  ttsim_train_step(kTtsimLoadParams, 0, tokens, tags, 0, 0.0f, 1.0f, io.data(), losses);
  ASSERT_EQ(losses[2], 1.0f);
  ttsim_train_step(kTtsimTrainStep, static_cast<int>(tv.size()), tokens, tags, 7, 4e-3f, 1.0f,
                   io.data(), losses);
  ASSERT_EQ(losses[2], 1.0f);
  const ttsim::HlsLosses want = host.train_step(tv, 7, gv, 4e-3f);
  EXPECT_EQ(losses[0], static_cast<float>(want.intent));
  EXPECT_EQ(losses[1], static_cast<float>(want.slot));
  std::vector<float> out(io.size(), 0.0f);
  ttsim_train_step(kTtsimStoreParams, 0, tokens, tags, 0, 0.0f, 1.0f, out.data(), losses);
  EXPECT_EQ(out, host.parameters());
  EXPECT_NE(out, io);  // the step changed the parameters
  // Out-of-range K is refused.
  ttsim_train_step(kTtsimTrainStep, ttsim_cfg::kSeqLen + 1, tokens, tags, 7, 4e-3f, 1.0f,
                   io.data(), losses);
  EXPECT_EQ(losses[2], 0.0f);
}

}  // namespace
