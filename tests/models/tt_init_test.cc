// Tests of the TT / TTM core initialization (models/tt_init.h): the reconstructed
// variance and the per-core tangent gain λ_k = R·C·Var(W)/(σ_k²·n_k) of the formulas, and
// the empirical variance of a reconstructed W drawn with them.
#include "models/tt_init.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "models/reference/tt_flows.h"

namespace ttsim {
namespace {

const std::vector<std::int64_t> kModes = {12, 8, 8, 8, 8, 12};  // atis_2enc 768×768
const std::vector<std::int64_t> kRanks = {1, 12, 12, 12, 12, 12, 1};
constexpr double kRows = 768, kCols = 768;

double reconstructed_variance(const std::vector<double>& sd, const std::vector<std::int64_t>& r) {
  double v = 1;
  for (std::size_t k = 1; k + 1 < r.size(); ++k) v *= static_cast<double>(r[k]);
  for (double s : sd) v *= s * s;
  return v;
}

double gain(const std::vector<double>& sd, std::size_t k, double var_w) {
  const double n_k = static_cast<double>(kRanks[k] * kModes[k] * kRanks[k + 1]);
  return kRows * kCols * var_w / (sd[k] * sd[k] * n_k);
}

TEST(TtInit, XavierGivesEqualCoresAndXavierVariance) {
  const auto sd = tt_core_stddevs_xavier(kModes, kRanks, kRows, kCols);
  ASSERT_EQ(sd.size(), 6u);
  for (double s : sd) EXPECT_DOUBLE_EQ(s, sd[0]);
  const double v = reconstructed_variance(sd, kRanks);
  EXPECT_NEAR(v, 2.0 / (kRows + kCols), 1e-12);
  // The imbalance the balanced scheme removes: boundary cores (144 entries) get 8× the
  // gain of inner cores (1152 entries), and every gain is far above a dense W's 1.
  EXPECT_NEAR(gain(sd, 0, v) / gain(sd, 1, v), 8.0, 1e-9);
  EXPECT_GT(gain(sd, 1, v), 10.0);
}

TEST(TtInit, BalancedGivesUnitGainOnEveryCore) {
  const auto sd = tt_core_stddevs_balanced(kModes, kRanks, kRows, kCols, 1.0);
  const double v = reconstructed_variance(sd, kRanks);
  EXPECT_NEAR(v, 12.0 / (kRows * kCols), 1e-12);  // Var(W) = r/(R·C) for equal ranks r
  for (std::size_t k = 0; k < sd.size(); ++k) EXPECT_NEAR(gain(sd, k, v), 1.0, 1e-9) << k;
}

TEST(TtInit, BalancedDefaultGivesTheModelsGainOnEveryCore) {
  const auto sd = tt_core_stddevs_balanced(kModes, kRanks, kRows, kCols);
  const double v = reconstructed_variance(sd, kRanks);
  // R·C·Var(W) = gain^{c/(c-1)}·r.
  EXPECT_NEAR(v, std::pow(kTtInitGain, 6.0 / 5.0) * 12.0 / (kRows * kCols), 1e-12);
  EXPECT_LT(v, 2.0 / (kRows + kCols));
  for (std::size_t k = 0; k < sd.size(); ++k) EXPECT_NEAR(gain(sd, k, v), kTtInitGain, 1e-9) << k;
}

TEST(TtInit, BalancedIsCappedAtXavierForHighRanks) {
  // Rank 100 on [64]×[64]: r/(R·C) would exceed 2/(R+C); Var(W) stays Xavier, gains equal.
  const auto sd = tt_core_stddevs_balanced({64, 64}, {1, 100, 1}, 64, 64, 1.0);
  const double v = 100.0 * sd[0] * sd[0] * sd[1] * sd[1];
  EXPECT_NEAR(v, 2.0 / 128, 1e-12);
  const double g0 = 64 * 64 * v / (sd[0] * sd[0] * 6400), g1 = 64 * 64 * v / (sd[1] * sd[1] * 6400);
  EXPECT_NEAR(g0, g1, 1e-9 * g0);
  EXPECT_LT(g0, 1.0);
  EXPECT_THROW(tt_core_stddevs_balanced({64, 64}, {1, 100, 1}, 64, 64, 0.0), std::invalid_argument);
}

TEST(TtInit, SingleCoreIsDenseXavier) {
  const auto sd = tt_core_stddevs_balanced({96}, {1, 1}, 12, 8);
  ASSERT_EQ(sd.size(), 1u);
  EXPECT_NEAR(sd[0], std::sqrt(2.0 / 20), 1e-12);
}

TEST(TtInit, RejectsInconsistentShapes) {
  EXPECT_THROW(tt_core_stddevs_balanced({12, 8}, {1, 12}, 12, 8), std::invalid_argument);
  EXPECT_THROW(tt_core_stddevs_xavier({}, {1}, 1, 1), std::invalid_argument);
  EXPECT_THROW(tt_core_stddevs_balanced({12, 8}, {1, 0, 1}, 12, 8), std::invalid_argument);
}

TEST(TtInit, DrawnCoresReconstructToTheFormulaVariance) {
  TtShape shape{{12, 8, 8}, {8, 8, 12}, kRanks};
  const auto sd = tt_core_stddevs_balanced(kModes, kRanks, kRows, kCols);
  std::mt19937_64 rng(7);
  reference::TtTensor<double> w = reference::zero_tt<double>(shape);
  for (std::size_t k = 0; k < w.cores.size(); ++k) {
    std::normal_distribution<double> nd(0.0, sd[k]);
    for (Eigen::Index i = 0; i < w.cores[k].size(); ++i) w.cores[k].data()[i] = nd(rng);
  }
  const auto m = reference::reconstruct(w);
  const double var = m.squaredNorm() / static_cast<double>(m.size());
  const double want = std::pow(kTtInitGain, 6.0 / 5.0) * 12.0 / (kRows * kCols);
  EXPECT_NEAR(var, want, 0.35 * want);
}

}  // namespace
}  // namespace ttsim
