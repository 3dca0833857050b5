// Per-flow cost formulas on hand-computed small cases, the 768x768 rank-12 layer of the
// reference design, and structural properties of the step lists.

#include "models/flows.h"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/errors.h"

namespace ttsim {
namespace {

/// W ∈ R^{6×20}: in factors [2,3], out factors [4,5], ranks [1,2,3,4,1].
LinearLayerSpec small_tt() {
  LinearLayerSpec l;
  l.name = "small";
  l.kind = "attention";
  l.in_dim = 6;
  l.out_dim = 20;
  l.format = WeightFormat::kTT;
  l.tt.in_factors = {2, 3};
  l.tt.out_factors = {4, 5};
  l.tt.ranks = {1, 2, 3, 4, 1};
  return l;
}

/// The 768×768 projection of the reference design: [12,8,8]×[8,8,12], rank 12.
LinearLayerSpec attention_768() {
  LinearLayerSpec l;
  l.name = "enc0.q";
  l.kind = "attention";
  l.in_dim = 768;
  l.out_dim = 768;
  l.format = WeightFormat::kTT;
  l.tt.in_factors = {12, 8, 8};
  l.tt.out_factors = {8, 8, 12};
  l.tt.ranks = {1, 12, 12, 12, 12, 12, 1};
  return l;
}

FlowCost cost(const LinearLayerSpec& l, Flow f, std::int64_t K, FlowStage s) {
  return linear_cost(l, f, K, s);
}

// Hand computation (K = 7), d = e = 2, r = [1,2,3,4,1], M = 6, N = 20:
//  BTT fwd: G1ᵀ (2·2 = 4 words) and G3ᵀ (12·4 = 48) copied (no MACs); L2 = G1·G2 2·2·9 =
//           36; R1ᵀ = G4ᵀ·G3ᵀ 5·4·12 = 240, copied transposed into R1 (no MACs); L2ᵀ =
//           transpose of L2 (no MACs); Z = X·L2 7·6·3 = 126; Y = Z·R1 7·3·20 = 420; total
//           822; five levels (copies, merges, transposes, X·L, Z·R). Peak at R1ᵀ's transpose:
//           L2 (18) + R1ᵀ (60) + R1 (60) = 138.
TEST(FlowCosts, BttSmallForward) {
  const auto c = cost(small_tt(), Flow::kBTT, 7, FlowStage::kForward);
  EXPECT_EQ(c.macs, 822);
  EXPECT_EQ(c.critical_path, 5);
  EXPECT_EQ(c.peak_intermediate_words, 138);
}

//  BTT grad-input: dZ = dY·R1ᵀ 7·20·3 = 420, dX = dZ·L2ᵀ 7·3·6 = 126.
//  Live at dZ: R1 60 + L2 18 + dZ 21 = 99.
TEST(FlowCosts, BttSmallGradInput) {
  const auto c = cost(small_tt(), Flow::kBTT, 7, FlowStage::kGradInput);
  EXPECT_EQ(c.macs, 546);
  EXPECT_EQ(c.critical_path, 2);
  EXPECT_EQ(c.peak_intermediate_words, 99);
}

//  BTT grad-weights: dR1 = Zᵀ·dY 3·7·20 = 420, dL2ᵀ = dZᵀ·X 3·7·6 = 126, dL2 its transpose
//  (level 2), dG2 = L1ᵀ·dL2 2·2·9 = 36, dL1 = dL2·G2ᵀ 2·9·2 = 36 (level 3); the right end
//  transposed: dR1 → dR1ᵀ and G3 → G3ᵀ (level 2), dR2 = dG4 = G3ᵀ·dR1 4·12·5 = 240 and dG3ᵀ
//  = G4·dR1ᵀ 4·5·12 = 240 (level 3), dG3ᵀ → dG3 (level 4); total 1098. Peak at dR1's
//  transpose: dR1 60 + dR1ᵀ 60 = 120.
TEST(FlowCosts, BttSmallGradWeights) {
  const auto c = cost(small_tt(), Flow::kBTT, 7, FlowStage::kGradWeights);
  EXPECT_EQ(c.macs, 1098);
  EXPECT_EQ(c.critical_path, 4);
  EXPECT_EQ(c.peak_intermediate_words, 120);
}

//  TT fwd: 21·2·2 = 84, 7·6·3 = 126, 7·3·16 = 336, 28·4·5 = 560; total 1106.
//  T1 = 7·3·2 = 42, T2 = 7·3 = 21, T3 = 7·4·4 = 112, all saved: 175.
//  Grad-input and grad-weights repeat each step's MACs. Backward runs per step s = 4..1 the
//  core gradient then the input gradient (tt_backward_step), so dT_s dies after step s:
//  grad-input peaks at dT3 + dT2 = 112 + 21 = 133 (step 3); grad-weights, which reads T and
//  dT, at T1 + T2 + T3 = 175 (step 4) = T1 + T2 + dT3 (step 3).
TEST(FlowCosts, TtSmall) {
  const auto l = small_tt();
  const auto f = cost(l, Flow::kTT, 7, FlowStage::kForward);
  EXPECT_EQ(f.macs, 1106);
  EXPECT_EQ(f.critical_path, 4);
  EXPECT_EQ(f.peak_intermediate_words, 175);
  const auto gi = cost(l, Flow::kTT, 7, FlowStage::kGradInput);
  EXPECT_EQ(gi.macs, 1106);
  EXPECT_EQ(gi.critical_path, 4);
  EXPECT_EQ(gi.peak_intermediate_words, 133);
  const auto gw = cost(l, Flow::kTT, 7, FlowStage::kGradWeights);
  EXPECT_EQ(gw.macs, 1106);
  EXPECT_EQ(gw.critical_path, 1);
  EXPECT_EQ(gw.peak_intermediate_words, 175);
}

//  MM fwd: 36 + 240 + W = L2·R1 6·3·20 = 360 + Y = X·W 7·6·20 = 840 = 1476;
//  live at Y: L2 18 + R1 60 + W 120 = 198. Grad-input dX = dY·Wᵀ 840 (W live: 120).
//  Grad-weights: dW 840 + dL2 6·20·3 = 360 + dR1 3·6·20 = 360 + chains 552 = 2112.
TEST(FlowCosts, MmSmall) {
  const auto l = small_tt();
  const auto f = cost(l, Flow::kMM, 7, FlowStage::kForward);
  EXPECT_EQ(f.macs, 1476);
  EXPECT_EQ(f.critical_path, 3);
  EXPECT_EQ(f.peak_intermediate_words, 198);
  const auto gi = cost(l, Flow::kMM, 7, FlowStage::kGradInput);
  EXPECT_EQ(gi.macs, 840);
  EXPECT_EQ(gi.critical_path, 1);
  EXPECT_EQ(gi.peak_intermediate_words, 120);
  const auto gw = cost(l, Flow::kMM, 7, FlowStage::kGradWeights);
  EXPECT_EQ(gw.macs, 2112);
  EXPECT_EQ(gw.critical_path, 3);
}

TEST(FlowCosts, DenseLayerIsOneProductPerStageWhateverTheFlow) {
  LinearLayerSpec l;
  l.name = "head";
  l.in_dim = 6;
  l.out_dim = 20;
  for (Flow f : {Flow::kMM, Flow::kTT, Flow::kBTT}) {
    for (FlowStage s : {FlowStage::kForward, FlowStage::kGradInput, FlowStage::kGradWeights}) {
      const auto c = cost(l, f, 7, s);
      EXPECT_EQ(c.macs, 840);
      EXPECT_EQ(c.critical_path, 1);
      EXPECT_EQ(c.peak_intermediate_words, 0);
    }
  }
}

// TTM vocab [2,3,2], dims [2,3,4], ranks [1,2,3,1], K = 5:
//  fwd: core 1 copied (1·2·2·2 = 8 words, no MACs), E2 = S1·S2 5·2·2·9 = 180, E2 copied
//  transposed into E2t (90 words), Yt = S3ᵀ·E2t 5·4·3·6 = 360, copied transposed into Y;
//  five levels; peak at Yt: E2t (90) + Yt (5·4·6 = 120) = 210.
//  bwd dY copied transposed into dYt (120), dS3 5·3·6·4 = 360 and dE2t = S3·dYt 5·3·4·6 =
//  360 (level 2; peak dYt + dE2t = 210), dE2t copied transposed into dE2, dS2 5·2·2·9 =
//  180, dE1 5·2·9·2 = 180 (level 4).
TEST(FlowCosts, TtmLookup) {
  TtmShape t;
  t.vocab_factors = {2, 3, 2};
  t.dim_factors = {2, 3, 4};
  t.ranks = {1, 2, 3, 1};
  const auto plan = plan_ttm_lookup(t, 5);
  const auto f = stage_cost(plan, FlowStage::kForward);
  EXPECT_EQ(f.macs, 540);
  EXPECT_EQ(f.critical_path, 5);
  EXPECT_EQ(f.peak_intermediate_words, 210);
  const auto g = stage_cost(plan, FlowStage::kGradWeights);
  EXPECT_EQ(g.macs, 1080);
  EXPECT_EQ(g.critical_path, 4);
  EXPECT_EQ(g.peak_intermediate_words, 210);
  EXPECT_EQ(stage_cost(plan, FlowStage::kGradInput).macs, 0);
}

// 2 heads of 3, one sequence of 4: QKᵀ 2·4·3·4 = 96, PV 96; backward four products of 96.
TEST(FlowCosts, Attention) {
  const auto plan = plan_attention(1, 4, 2, 3);
  const auto f = stage_cost(plan, FlowStage::kForward);
  EXPECT_EQ(f.macs, 192);
  EXPECT_EQ(f.critical_path, 3);
  EXPECT_EQ(f.peak_intermediate_words, 64);  // S and P, 2·4·4 each
  EXPECT_EQ(stage_cost(plan, FlowStage::kGradInput).macs, 384);
}

TEST(FlowCosts, ReferenceLayerAtK32BttBeatsTtAndMm) {
  const auto l = attention_768();
  const auto btt = cost(l, Flow::kBTT, 32, FlowStage::kForward);
  const auto tt = cost(l, Flow::kTT, 32, FlowStage::kForward);
  const auto mm = cost(l, Flow::kMM, 32, FlowStage::kForward);
  // Merges 2·(12·12·96 + 96·12·96) = 248,832; X·L and Z·R 2·32·768·12 = 589,824.
  EXPECT_EQ(btt.macs, 838656);
  // Six steps: 2048·12·12, 256·96·12, 32·96·12, 32·12·96, 256·12·96, 2048·12·12.
  EXPECT_EQ(tt.macs, 1253376);
  EXPECT_LT(btt.macs, tt.macs);
  EXPECT_LT(btt.macs, mm.macs);
  // At the transpose: L2 1152 + L3 9216 + L3ᵀ 9216 + R2 1152 + R1 9216.
  EXPECT_EQ(btt.peak_intermediate_words, 29952);
  EXPECT_LT(btt.peak_intermediate_words, tt.peak_intermediate_words);
  EXPECT_LT(btt.peak_intermediate_words, mm.peak_intermediate_words);
  EXPECT_EQ(btt.critical_path, 6);  // copies, two merges, transpose, X·L, Z·R
  EXPECT_EQ(tt.critical_path, 6);
}

TEST(FlowCosts, BttAdvantageOverTtGrowsWithK) {
  const auto l = attention_768();
  double last_macs = 2, last_words = 2;
  for (std::int64_t K : {32, 128, 512}) {
    const auto btt = cost(l, Flow::kBTT, K, FlowStage::kForward);
    const auto tt = cost(l, Flow::kTT, K, FlowStage::kForward);
    const double rm = double(btt.macs) / double(tt.macs);
    const double rw = double(btt.peak_intermediate_words) / double(tt.peak_intermediate_words);
    EXPECT_LT(rm, last_macs) << "K=" << K;
    EXPECT_LT(rw, last_words) << "K=" << K;
    last_macs = rm;
    last_words = rw;
  }
}

/// Small deterministic pseudo-random generator for shapes.
struct Lcg {
  std::uint64_t s;
  std::int64_t next(std::int64_t lo, std::int64_t hi) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + static_cast<std::int64_t>((s >> 33) % static_cast<std::uint64_t>(hi - lo + 1));
  }
};

LinearLayerSpec random_tt(Lcg& g) {
  LinearLayerSpec l;
  l.name = "rand";
  l.format = WeightFormat::kTT;
  const auto d = g.next(1, 4), e = g.next(1, 4);
  l.in_dim = 1;
  l.out_dim = 1;
  for (int i = 0; i < d; ++i) l.in_dim *= l.tt.in_factors.emplace_back(g.next(1, 5));
  for (int i = 0; i < e; ++i) l.out_dim *= l.tt.out_factors.emplace_back(g.next(1, 5));
  l.tt.ranks.push_back(1);
  for (int i = 1; i < d + e; ++i) l.tt.ranks.push_back(g.next(1, 6));
  l.tt.ranks.push_back(1);
  return l;
}

/// Every read tensor is produced earlier or is an input; levels respect the producers
/// of the same stage; every core gradient is written exactly once.
void check_plan_structure(const FlowPlan& plan, std::size_t cores) {
  std::map<std::string, std::pair<FlowStage, int>> produced;  // tensor -> (stage, level)
  std::map<std::string, int> writes;
  for (const auto& s : plan.steps) {
    for (const auto& r : s.reads) {
      const auto kind = plan.tensor(r).kind;
      if (kind == TensorKind::kIntermediate || kind == TensorKind::kOutput ||
          kind == TensorKind::kCoreGrad) {
        ASSERT_TRUE(produced.count(r)) << s.name << " reads " << r << " before it is written";
        if (produced[r].first == s.stage) {
          EXPECT_GT(s.level, produced[r].second) << s.name;
        }
      }
    }
    for (const auto& w : s.writes) {
      produced[w] = {s.stage, s.level};
      ++writes[w];
    }
    EXPECT_EQ(s.shape.macs(), s.shape.batch * s.shape.rows * s.shape.inner * s.shape.cols);
  }
  for (std::size_t k = 1; k <= cores; ++k) {
    const auto name = "dG" + std::to_string(k);
    EXPECT_EQ(writes[name], 1) << name;
  }
}

TEST(FlowPlans, RandomShapesAreWellFormedAndMatchClosedForms) {
  Lcg g{12345};
  for (int trial = 0; trial < 200; ++trial) {
    const auto l = random_tt(g);
    const auto K = g.next(1, 9);
    const int d = static_cast<int>(l.tt.in_factors.size());
    const int e = static_cast<int>(l.tt.out_factors.size());
    const int P = std::max(d, e) - 1;
    for (Flow f : {Flow::kMM, Flow::kTT, Flow::kBTT}) {
      SCOPED_TRACE(std::string(to_string(f)) + " trial " + std::to_string(trial));
      const auto plan = plan_linear(l, f, K);
      check_plan_structure(plan, l.tt.cores());
      const int cp_f = stage_cost(plan, FlowStage::kForward).critical_path;
      const int cp_i = stage_cost(plan, FlowStage::kGradInput).critical_path;
      const int cp_w = stage_cost(plan, FlowStage::kGradWeights).critical_path;
      if (f == Flow::kBTT) {
        EXPECT_EQ(cp_f, P + 4);
        EXPECT_EQ(cp_i, 2);
        // The right chain's end, when its rows r_{d+e-2}·n_{e-1} exceed n_e: two transposes,
        // two products, one transpose (levels e..e+2).
        const bool right_t = e >= 2 && l.tt.ranks[d + e - 2] * l.tt.out_factors[e - 2] > l.tt.out_factors[e - 1];
        EXPECT_EQ(cp_w, right_t ? std::max(d + 1, e + 2) : std::max(d + 1, e));
      } else if (f == Flow::kTT) {
        EXPECT_EQ(cp_f, d + e);
        EXPECT_EQ(cp_i, d + e);
        EXPECT_EQ(cp_w, 1);
      } else {
        EXPECT_EQ(cp_f, P + 2);
        EXPECT_EQ(cp_i, 1);
        EXPECT_EQ(cp_w, 1 + std::max(d, e));
      }
    }
    // TT: every backward stage repeats the forward MACs exactly.
    const auto tf = linear_cost(l, Flow::kTT, K, FlowStage::kForward).macs;
    EXPECT_EQ(linear_cost(l, Flow::kTT, K, FlowStage::kGradInput).macs, tf);
    EXPECT_EQ(linear_cost(l, Flow::kTT, K, FlowStage::kGradWeights).macs, tf);
    // BTT: the K-carrying steps cost 2·K·r_d·(M + N) in forward and grad-input.
    const auto rd = l.tt.ranks[d];
    const auto bi = linear_cost(l, Flow::kBTT, K, FlowStage::kGradInput).macs;
    EXPECT_EQ(bi, K * rd * (l.in_dim + l.out_dim));
  }
}

TEST(FlowPlans, RolesAndAliases) {
  const auto plan = plan_linear(attention_768(), Flow::kBTT, 32);
  std::set<std::string> roles;
  for (const auto& s : plan.steps) roles.insert(s.role);
  for (const char* r : {"btt.merge_left", "btt.merge_right", "btt.xl", "btt.zr", "btt.grad_zr",
                        "btt.grad_xl", "btt.grad_r", "btt.grad_l", "btt.grad_core_left",
                        "btt.grad_merge_left", "btt.grad_core_right", "btt.grad_merge_right"}) {
    EXPECT_TRUE(roles.count(r)) << r;
  }
  // L_1 = G_1 and R_3 = G_6 are read directly; dL_1 is written as dG1.
  EXPECT_THROW(plan.tensor("L1"), std::out_of_range);
  EXPECT_THROW(plan.tensor("R3"), std::out_of_range);
  EXPECT_EQ(plan.tensor("L3").words(), 768 * 12);
  EXPECT_EQ(plan.tensor("R1").words(), 12 * 768);
}

TEST(FlowPlans, BadInputThrows) {
  EXPECT_THROW(plan_linear(small_tt(), Flow::kBTT, 0), InputError);
  EXPECT_THROW(parse_flow("bt"), InputError);
  EXPECT_EQ(parse_flow("btt"), Flow::kBTT);
  EXPECT_THROW(plan_attention(1, 0, 2, 3), InputError);
}

}  // namespace
}  // namespace ttsim
