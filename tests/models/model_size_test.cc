// The three presets reproduce the published model sizes of arXiv 2501.06663
// (docs: /work/shared/reference/paper-facts.md): 36.7 MB and 93.5 MB dense FP32
// (within 1 %), compression 30.5x (2 encoders) and 52.0x (6 encoders) within 2 %.
// MB = 1e6 bytes.

#include <gtest/gtest.h>

#include "models/model_spec.h"

namespace ttsim {
namespace {

ModelSpec preset(const char* name) {
  return load_model_spec(std::string("configs/models/") + name + ".json");
}

double mb(std::int64_t params) { return params * 4.0 / 1e6; }

TEST(PresetSizes, TwoEncoders) {
  const auto m = preset("atis_2enc");
  EXPECT_NEAR(mb(m.dense_params()), 36.7, 0.01 * 36.7);
  const double ratio = double(m.dense_params()) / double(m.compressed_params());
  EXPECT_NEAR(ratio, 30.5, 0.02 * 30.5);
}

TEST(PresetSizes, FourEncodersLieBetween) {
  const auto m = preset("atis_4enc");
  EXPECT_GT(mb(m.dense_params()), 36.7);
  EXPECT_LT(mb(m.dense_params()), 93.5);
  const double ratio = double(m.dense_params()) / double(m.compressed_params());
  EXPECT_GT(ratio, 30.5);
  EXPECT_LT(ratio, 52.0);
}

TEST(PresetSizes, SixEncoders) {
  const auto m = preset("atis_6enc");
  EXPECT_NEAR(mb(m.dense_params()), 93.5, 0.01 * 93.5);
  const double ratio = double(m.dense_params()) / double(m.compressed_params());
  EXPECT_NEAR(ratio, 52.0, 0.02 * 52.0);
}

// Per-encoder counts of the reconstruction: 3,546,624 dense, 37,056 compressed.
TEST(PresetSizes, PerEncoderCounts) {
  const auto a = preset("atis_2enc");
  const auto b = preset("atis_4enc");
  EXPECT_EQ((b.dense_params() - a.dense_params()) / 2, 3546624);
  EXPECT_EQ((b.compressed_params() - a.compressed_params()) / 2, 37056);
  EXPECT_EQ(a.token_embedding.params(), 83400);
}

}  // namespace
}  // namespace ttsim
