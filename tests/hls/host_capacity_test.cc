// The HLS host model sizes its arenas in int64 before allocating: models whose arrays
// exceed the kernels' int offsets (or 2^31 words in total) are refused with an
// InputError naming the model file, the layer and the limit; the int64 sizes agree
// with ttsim_hls::make_layout for models that fit, in both contraction flows.

#include <gtest/gtest.h>

#include <string>

#include "core/errors.h"
#include "hls/host/hls_model.h"
#include "hls/host/host_capacity.h"
#include "models/model_spec.h"

namespace {

// The reference design's 2-encoder ATIS shapes with the attention rank `rank`.
ttsim::ModelSpec atis_spec(int attention_rank, int seq_len = 32) {
  const std::string text = R"({
    "name": "atis_rank", "encoders": 2, "d_model": 768, "heads": 12, "ffn_dim": 768,
    "seq_len": )" + std::to_string(seq_len) + R"(, "batch": 1, "vocab": 2500, "intents": 26, "slot_tags": 127,
    "token_embedding": {"format": "ttm", "vocab_factors": [10, 10, 25], "dim_factors": [8, 8, 12], "rank": 30},
    "layers": {
      "attention": {"format": "tt", "in_factors": [12, 8, 8], "out_factors": [8, 8, 12], "rank": )" +
                           std::to_string(attention_rank) + R"(},
      "ffn_in": {"format": "tt", "in_factors": [12, 8, 8], "out_factors": [8, 8, 12], "rank": 12},
      "ffn_out": {"format": "tt", "in_factors": [12, 8, 8], "out_factors": [8, 8, 12], "rank": 12},
      "intent_head": {"format": "dense"},
      "slot_head": {"format": "dense"}
    }
  })";
  return ttsim::parse_model_spec(ttsim::Json::parse(text), "big_rank.json");
}

std::string construct_error(const ttsim::ModelSpec& spec) {
  try {
    ttsim::HlsModel model(spec);
  } catch (const ttsim::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(HostCapacity, Rank4096IsRefusedNamingFileLayerAndLimit) {
  const std::string msg = construct_error(atis_spec(4096));
  ASSERT_FALSE(msg.empty()) << "rank 4096 was accepted";
  EXPECT_NE(msg.find("big_rank.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("enc0."), std::string::npos) << msg;  // the layer that crosses the limit
  EXPECT_NE(msg.find("parameter arena"), std::string::npos) << msg;
  EXPECT_NE(msg.find("2147483647"), std::string::npos) << msg;
}

TEST(HostCapacity, RanksThatOverflowedIntAreRefused) {
  for (int rank : {3000, 3400, 3800}) {
    const std::string msg = construct_error(atis_spec(rank));
    EXPECT_NE(msg.find("big_rank.json"), std::string::npos) << "rank " << rank << ": " << msg;
    EXPECT_NE(msg.find("cannot hold"), std::string::npos) << "rank " << rank << ": " << msg;
  }
}

TEST(HostCapacity, Int64SizesMatchMakeLayoutInBothFlows) {
  for (bool btt : {true, false}) {
    ttsim::HlsModelOptions opt;
    opt.btt_by_kind = {{"attention", btt}, {"ffn_in", btt}, {"ffn_out", btt}};
    const ttsim_hls::ModelDims dims = ttsim::hls_model_dims(atis_spec(16), opt);
    const ttsim::HlsArenaWords w = ttsim::check_hls_host_capacity(dims, "x.json");
    ttsim_hls::Layout layout;
    ASSERT_TRUE(ttsim_hls::make_layout(dims, &layout));
    EXPECT_EQ(w.param, layout.param_words) << "btt " << btt;
    // The embedding's temporaries use act's and out's words in the layout; the count keeps
    // them apart, and counts the most alignment padding the two heads' logits can take
    // (kLogitAlign − 1 words each): an upper bound by exactly those words at most.
    const int emb_scratch = ttsim_hls::ttm_scratch_words(dims.emb, dims.seq_len, 0) +
                            ttsim_hls::ttm_scratch_words(dims.emb, dims.seq_len, 1);
    EXPECT_GE(w.act, layout.act_words) << "btt " << btt;
    EXPECT_LE(w.act, layout.act_words + emb_scratch + 2 * (ttsim_hls::kLogitAlign - 1)) << "btt " << btt;
    EXPECT_EQ(w.scratch, layout.scratch_words) << "btt " << btt;
    EXPECT_EQ(w.index, layout.index_words) << "btt " << btt;
    EXPECT_GT(w.param, 0);
  }
}

TEST(HostCapacity, TotalLimitAppliesWhenEveryArenaFits) {
  // Attention TT cores of rank r on [12,8,8]x[8,8,12]: 4 inner cores of 8·r² words, 8
  // attention layers -> about 256·r² parameter words. Rank 2500: 1.6 G words (fits int)
  // but parameters + gradients exceed 2^31 words. Rank 1024: 0.27 G words, accepted.
  const ttsim_hls::ModelDims big = ttsim::hls_model_dims(atis_spec(2500));
  try {
    ttsim::check_hls_host_capacity(big, "r2500.json");
    ADD_FAILURE() << "rank 2500 accepted";
  } catch (const ttsim::InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("r2500.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2147483648 words (8 GiB) in total"), std::string::npos) << msg;
  }
  const ttsim::HlsArenaWords w =
      ttsim::check_hls_host_capacity(ttsim::hls_model_dims(atis_spec(1024)), "r1024.json");
  EXPECT_GT(w.param, 256LL * 1024 * 1024);
  EXPECT_LE(w.host_total(), ttsim::kHlsMaxHostWords);
}

}  // namespace
