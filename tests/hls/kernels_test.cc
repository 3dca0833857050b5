// Numerical tests of the HLS kernels against naive FP64 loops written here, plus
// finite-difference checks of the gradients, and a check that the flows' contraction
// steps have exactly the shapes of the flow contract (trip counts from kernel_spec.h).

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <type_traits>
#include <vector>

#include "hls/include/design_config.h"
#include "hls/include/kernel_spec.h"
#include "hls/include/loop_counter.h"
#include "hls/kernels/add.h"
#include "hls/kernels/attention.h"
#include "hls/kernels/gelu.h"
#include "hls/kernels/layernorm.h"
#include "hls/kernels/loss.h"
#include "hls/kernels/modules.h"
#include "hls/kernels/sgd.h"
#include "hls/kernels/softmax.h"
#include "hls/kernels/tt_linear.h"
#include "hls/kernels/ttm_embedding.h"
#include "hls/include/banked.h"
#include "models/task_graph.h"

namespace {

using ttsim_hls::TtDims;
using ttsim_hls::TtmDims;
using Vd = std::vector<double>;
using Vf = std::vector<float>;

/// A view of `v` as an on-chip array of B banks (hls/include/banked.h).
template <int B = ttsim_cfg::kArenaBanks>
ttsim_hls::Banked<float, B> BV(Vf& v) {
  return ttsim_hls::bank_view<B>(v.data());
}
template <int B = ttsim_cfg::kArenaBanks>
ttsim_hls::Banked<const float, B> BV(const Vf& v) {
  return ttsim_hls::bank_view<B>(v.data());
}

Vf randv(std::size_t n, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> d(0.0f, scale);
  Vf v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

double rel_err(const Vf& got, const Vd& want) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

// ---- naive FP64 TT reconstruction ----
// W[m][n] of a TT layer (m, n with first factor most significant).
Vd tt_dense(const TtDims& t, const Vf& cores) {
  const int M = t.M(), N = t.N(), c = t.d + t.e;
  Vd W(static_cast<std::size_t>(M) * N, 0.0);
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      int idx[2 * ttsim_hls::kMaxTtFactors];
      int rest = m;
      for (int k = t.d; k >= 1; --k) { idx[k - 1] = rest % t.m[k - 1]; rest /= t.m[k - 1]; }
      rest = n;
      for (int j = t.e; j >= 1; --j) { idx[t.d + j - 1] = rest % t.n[j - 1]; rest /= t.n[j - 1]; }
      Vd v(1, 1.0);  // row vector over r_{k}
      for (int k = 1; k <= c; ++k) {
        const int rp = t.r[k - 1], rk = t.r[k], s = t.mode(k);
        Vd nv(rk, 0.0);
        const float* G = cores.data() + t.core_offset(k);
        for (int a = 0; a < rp; ++a)
          for (int b = 0; b < rk; ++b) nv[b] += v[a] * G[(a * s + idx[k - 1]) * rk + b];
        v = nv;
      }
      W[static_cast<std::size_t>(m) * N + n] = v[0];
    }
  }
  return W;
}

Vd matmul(const Vf& X, const Vd& W, int K, int M, int N) {
  Vd Y(static_cast<std::size_t>(K) * N, 0.0);
  for (int k = 0; k < K; ++k)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) Y[k * N + n] += X[k * M + m] * W[m * N + n];
  return Y;
}

// Exact core gradient of ℓ = Σ dY ⊙ (X·W(G)) by linearity of W in each core:
// ∂ℓ/∂G_k[i] = Σ (Xᵀ·dY) ⊙ W(G with core k replaced by the unit tensor e_i).
Vd tt_core_grad(const TtDims& t, const Vf& cores, const Vf& X, const Vf& dY, int K, int k) {
  const int M = t.M(), N = t.N();
  Vd XtdY(static_cast<std::size_t>(M) * N, 0.0);
  for (int kk = 0; kk < K; ++kk)
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) XtdY[m * N + n] += X[kk * M + m] * dY[kk * N + n];
  Vd g(t.core_words(k));
  for (int i = 0; i < t.core_words(k); ++i) {
    Vf unit = cores;
    for (int j = 0; j < t.core_words(k); ++j) unit[t.core_offset(k) + j] = j == i ? 1.0f : 0.0f;
    const Vd W = tt_dense(t, unit);
    double s = 0;
    for (std::size_t j = 0; j < W.size(); ++j) s += W[j] * XtdY[j];
    g[i] = s;
  }
  return g;
}

TtDims make_tt(std::vector<int> m, std::vector<int> n, std::vector<int> r) {
  TtDims t;
  t.d = static_cast<int>(m.size());
  t.e = static_cast<int>(n.size());
  for (int i = 0; i < t.d; ++i) t.m[i] = m[i];
  for (int i = 0; i < t.e; ++i) t.n[i] = n[i];
  for (int i = 0; i <= t.d + t.e; ++i) t.r[i] = r[i];
  return t;
}

std::vector<TtDims> tt_cases() {
  return {make_tt({4}, {3}, {1, 2, 1}),
          make_tt({2, 3}, {3, 2}, {1, 2, 3, 2, 1}),
          make_tt({3, 2, 2}, {2, 2, 3}, {1, 3, 2, 4, 2, 3, 1}),
          make_tt({2, 2, 2}, {5}, {1, 2, 3, 2, 1}),
          make_tt({6}, {2, 3, 2}, {1, 3, 2, 2, 1}),
          // r_2·n_1 = 6 = n_2: the rank-1 end of the right chain keeps its plain form.
          make_tt({2, 2}, {2, 6}, {1, 2, 3, 2, 1})};
}

struct FlowFns {
  using CRef = ttsim_hls::CRef;
  using Ref = ttsim_hls::Ref;
  /// Forward; its last three arguments are BTT's Z and chain arenas 0 and 1 (the TT flow
  /// takes none: tt_fwd_adapter).
  void (*fwd)(const int*, const TtDims&, int, CRef, CRef, CRef, Ref, Ref, Ref, Ref, Ref, Ref);
  void (*bwd)(const int*, const TtDims&, int, CRef, CRef, CRef, CRef, CRef, CRef, Ref, bool, Ref, Ref, Ref, Ref);
  int (*saved)(const TtDims&, int, int);    ///< words in saved arena 0 / 1
  int (*scratch)(const TtDims&, int, int);  ///< words in chain arena 0 / 1
};

/// tt_forward with btt_forward's arguments (it keeps no Z and uses no chain arena in the
/// forward).
void tt_fwd_adapter(const int* index, const TtDims& t, int K, ttsim_hls::CRef X, ttsim_hls::CRef cores,
                    ttsim_hls::CRef bias, ttsim_hls::Ref Y, ttsim_hls::Ref saved0, ttsim_hls::Ref saved1,
                    ttsim_hls::Ref, ttsim_hls::Ref, ttsim_hls::Ref) {
  ttsim_hls::tt_forward(index, t, K, X, cores, bias, Y, saved0, saved1);
}
/// tt_backward with btt_backward's arguments (no Z).
void tt_bwd_adapter(const int* index, const TtDims& t, int K, ttsim_hls::CRef X, ttsim_hls::CRef dY,
                    ttsim_hls::CRef cores, ttsim_hls::CRef saved0, ttsim_hls::CRef saved1, ttsim_hls::CRef,
                    ttsim_hls::Ref dX, bool acc, ttsim_hls::Ref dcores, ttsim_hls::Ref dbias, ttsim_hls::Ref scratch0,
                    ttsim_hls::Ref scratch1) {
  ttsim_hls::tt_backward(index, t, K, X, dY, cores, saved0, saved1, dX, acc, dcores, dbias, scratch0, scratch1);
}

/// btt_backward with the contraction's accumulate flag for an accumulated dX.
void btt_bwd_flag(const int* index, const TtDims& t, int K, ttsim_hls::CRef X, ttsim_hls::CRef dY,
                  ttsim_hls::CRef cores, ttsim_hls::CRef saved0, ttsim_hls::CRef saved1, ttsim_hls::CRef Z,
                  ttsim_hls::Ref dX, bool acc, ttsim_hls::Ref dcores, ttsim_hls::Ref dbias, ttsim_hls::Ref scratch0,
                  ttsim_hls::Ref scratch1) {
  ttsim_hls::btt_backward(index, t, K, X, dY, cores, saved0, saved1, Z, dX, acc, false, nullptr, dcores, dbias,
                          scratch0, scratch1);
}
/// btt_backward accumulating dX through a partial buffer and the add unit
/// (ttsim_spec::accumulate_by_add's choice).
void btt_bwd_by_add(const int* index, const TtDims& t, int K, ttsim_hls::CRef X, ttsim_hls::CRef dY,
                    ttsim_hls::CRef cores, ttsim_hls::CRef saved0, ttsim_hls::CRef saved1, ttsim_hls::CRef Z,
                    ttsim_hls::Ref dX, bool acc, ttsim_hls::Ref dcores, ttsim_hls::Ref dbias, ttsim_hls::Ref scratch0,
                    ttsim_hls::Ref scratch1) {
  Vf part(K * t.M() + 1, 0.0f);
  ttsim_hls::btt_backward(index, t, K, X, dY, cores, saved0, saved1, Z, dX, acc, true, BV(part), dcores, dbias,
                          scratch0, scratch1);
}

void check_flow(const FlowFns& f) {
  std::mt19937 rng(42);
  for (const TtDims& t : tt_cases()) {
    for (int K : {1, 5}) {
      const int M = t.M(), N = t.N();
      const Vf X = randv(K * M, rng), cores = randv(t.total_words(), rng, 0.7f),
               bias = randv(N, rng), dY = randv(K * N, rng);
      // Each saved / chain block in its own vector (the arenas of model_step.h).
      Vf Y(K * N), saved0(f.saved(t, K, 0) + 1), saved1(f.saved(t, K, 1) + 1), scratch0(f.scratch(t, K, 0) + 1),
          scratch1(f.scratch(t, K, 1) + 1), Z(K * t.r[t.d] + 1);
      f.fwd(nullptr, t, K, BV(X), BV(cores), BV(bias), BV(Y), BV(saved0), BV(saved1), BV(Z), BV(scratch0),
            BV(scratch1));
      Vd want = matmul(X, tt_dense(t, cores), K, M, N);
      for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n) want[k * N + n] += bias[n];
      EXPECT_LE(rel_err(Y, want), 1e-5) << "forward M " << M << " N " << N << " K " << K;

      const Vf dX0 = randv(K * M, rng);
      Vf dX = dX0, dcores(t.total_words(), 0.0f), dbias(N, 0.0f);
      f.bwd(nullptr, t, K, BV(X), BV(dY), BV(cores), BV(saved0), BV(saved1), BV(Z), BV(dX), true, BV(dcores),
            BV(dbias), BV(scratch0), BV(scratch1));
      // dX = dX0 + dY·Wᵀ (accumulate mode)
      const Vd W = tt_dense(t, cores);
      Vd wdx(K * M, 0.0);
      for (int k = 0; k < K; ++k)
        for (int m = 0; m < M; ++m) {
          double s = dX0[k * M + m];
          for (int n = 0; n < N; ++n) s += dY[k * N + n] * W[m * N + n];
          wdx[k * M + m] = s;
        }
      EXPECT_LE(rel_err(dX, wdx), 1e-4) << "dX";
      for (int k = 1; k <= t.d + t.e; ++k) {
        const Vd want_g = tt_core_grad(t, cores, X, dY, K, k);
        const Vf got(dcores.begin() + t.core_offset(k),
                     dcores.begin() + t.core_offset(k) + t.core_words(k));
        EXPECT_LE(rel_err(got, want_g), 1e-4) << "core " << k << " M " << M << " N " << N;
      }
      Vd wdb(N, 0.0);
      for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n) wdb[n] += dY[k * N + n];
      EXPECT_LE(rel_err(dbias, wdb), 1e-5);
    }
  }
}

TEST(TtLinear, BttForwardAndGradientsMatchDenseReconstruction) {
  check_flow({ttsim_hls::btt_forward, btt_bwd_flag, ttsim_hls::btt_saved_words, ttsim_hls::btt_scratch_words});
}

TEST(TtLinear, BttInputGradientAccumulatedByAnAddMatchesDenseReconstruction) {
  check_flow({ttsim_hls::btt_forward, btt_bwd_by_add, ttsim_hls::btt_saved_words, ttsim_hls::btt_scratch_words});
}

TEST(TtLinear, SequentialTtForwardAndGradientsMatchDenseReconstruction) {
  check_flow({tt_fwd_adapter, tt_bwd_adapter, ttsim_hls::tt_saved_words,
              ttsim_hls::tt_scratch_words});
}

// The BTT kernels perform exactly the steps of the flow contract: the contraction
// iterations equal Σ of the kernel specification's trip counts over the contract's step
// list, each step in the contraction form its operands' strides give (column for
// row-major operands, dot where B is read transposed).
TEST(TtLinear, BttContractionStepsMatchFlowContract) {
  const int lanes = ttsim_cfg::kContractLanes;
  constexpr int kCol = ttsim_spec::kContractColumn, kDot = ttsim_spec::kContractDot;
  std::mt19937 rng(3);
  for (const TtDims& t : tt_cases()) {
    const int K = 7, M = t.M(), N = t.N(), d = t.d, e = t.e, rd = t.r[d];
    std::vector<ttsim::TaskShape> fwd, bwd;
    auto shape = [](std::int64_t rows, std::int64_t inner, std::int64_t cols, int variant) {
      ttsim::TaskShape s{1, rows, inner, cols};
      s.variant = variant;
      return s;
    };
    for (int k = 2; k <= d; ++k) fwd.push_back(shape(t.mpre(k - 1), t.r[k - 1], t.m[k - 1] * t.r[k], kCol));
    // The rank-1 end j = e-1 transposed when its rows are the longer side: R_{e-1}ᵀ =
    // G_{d+e}ᵀ·G_{d+e-1}ᵀ, lanes along the rows.
    const bool right_t = ttsim_hls::btt_right_end_transposed(t);
    for (int j = e - 1; j >= 1; --j) {
      const int rows = t.r[d + j - 1] * t.n[j - 1];
      fwd.push_back(j == e - 1 && right_t ? shape(t.n[e - 1], t.r[d + j], rows, kCol)
                                          : shape(rows, t.r[d + j], t.nsuf(j), kCol));
    }
    fwd.push_back(shape(K, M, rd, kDot));  // X · L_d with L_dᵀ stored: lanes along M
    fwd.push_back(shape(K, rd, N, kCol));
    bwd = {shape(K, N, rd, kDot), shape(K, rd, M, kCol), shape(rd, K, N, kCol), shape(rd, K, M, kCol)};
    for (int k = d; k >= 2; --k) {
      bwd.push_back(shape(t.r[k - 1], t.mpre(k - 1), t.m[k - 1] * t.r[k], kCol));
      bwd.push_back(shape(t.mpre(k - 1), t.m[k - 1] * t.r[k], t.r[k - 1], kDot));
    }
    for (int j = 1; j < e; ++j) {
      const int rows = t.r[d + j - 1] * t.n[j - 1];
      if (j == e - 1 && right_t) {  // dG_{d+e} = G_{d+e-1}ᵀ·dR_{e-1} (dot), dG_{d+e-1}ᵀ = G_{d+e}·dR_{e-1}ᵀ
        bwd.push_back(shape(t.r[d + j], rows, t.n[e - 1], kDot));
        bwd.push_back(shape(t.r[d + j], t.n[e - 1], rows, kCol));
        continue;
      }
      bwd.push_back(shape(rows, t.nsuf(j), t.r[d + j], kDot));
      bwd.push_back(shape(t.r[d + j], rows, t.nsuf(j), kCol));
    }
    auto trips = [&](const std::vector<ttsim::TaskShape>& steps) {
      std::int64_t s = 0;
      const int ki = ttsim_spec::kernel_index("contraction");
      for (const auto& st : steps) {
        for (int l = 0; l < ttsim_spec::kKernelSpecs[ki].n_loops; ++l) {
          const ttsim_spec::LoopSpec& loop = ttsim_spec::kKernelSpecs[ki].loops[l];
          s += ttsim_spec::loop_trip(loop.trip, loop.variant, st.variant, st.batch, st.rows, st.inner,
                                     st.cols, lanes);
        }
      }
      return s;
    };
    auto contract_iterations = [](const std::map<std::string, std::int64_t>& counts) {
      std::int64_t s = 0;
      for (const char* name : {"contract_column", "contract_dot", "contract_scalar"}) {
        auto it = counts.find(name);
        if (it != counts.end()) s += it->second;
      }
      return s;
    };
    const Vf X = randv(K * M, rng), cores = randv(t.total_words(), rng), dY = randv(K * N, rng);
    Vf Y(K * N), saved0(ttsim_hls::btt_saved_words(t, K, 0) + 1), saved1(ttsim_hls::btt_saved_words(t, K, 1) + 1),
        scratch0(ttsim_hls::btt_scratch_words(t, K, 0) + 1), scratch1(ttsim_hls::btt_scratch_words(t, K, 1) + 1),
        dX(K * M), dc(t.total_words()), Z(K * t.r[t.d] + 1);
    {
      ttsim_hls::LoopCountScope scope;
      ttsim_hls::btt_forward(nullptr, t, K, BV(X), BV(cores), nullptr, BV(Y), BV(saved0), BV(saved1), BV(Z),
                             BV(scratch0), BV(scratch1));
      EXPECT_EQ(contract_iterations(scope.counts()), trips(fwd));
    }
    {
      ttsim_hls::LoopCountScope scope;
      btt_bwd_flag(nullptr, t, K, BV(X), BV(dY), BV(cores), BV(saved0), BV(saved1), BV(Z), BV(dX), false, BV(dc),
                   nullptr, BV(scratch0), BV(scratch1));
      EXPECT_EQ(contract_iterations(scope.counts()), trips(bwd));
    }
    // btt_remerge writes the merges the forward wrote, word for word (the saved arenas
    // overwritten first, as the layers sharing a recomputing layer's merge slots do).
    {
      const Vf s0 = saved0, s1 = saved1;
      std::fill(saved0.begin(), saved0.end(), 7.0f);
      std::fill(saved1.begin(), saved1.end(), -7.0f);
      ttsim_hls::btt_remerge(nullptr, t, K, BV(cores), BV(saved0), BV(saved1), BV(scratch0), BV(scratch1));
      EXPECT_EQ(std::vector<float>(saved0.begin(), saved0.end() - 1), std::vector<float>(s0.begin(), s0.end() - 1));
      EXPECT_EQ(std::vector<float>(saved1.begin(), saved1.end() - 1), std::vector<float>(s1.begin(), s1.end() - 1));
    }
  }
}

// ---- TTM embedding ----
Vd ttm_row(const TtmDims& t, const Vf& cores, int token) {
  int v[ttsim_hls::kMaxTtmFactors];
  int rest = token;
  for (int k = t.d; k >= 1; --k) { v[k - 1] = rest % t.v[k - 1]; rest /= t.v[k - 1]; }
  const int D = t.dim();
  Vd row(D);
  for (int col = 0; col < D; ++col) {
    int ev[ttsim_hls::kMaxTtmFactors];
    int r2 = col;
    for (int k = t.d; k >= 1; --k) { ev[k - 1] = r2 % t.e[k - 1]; r2 /= t.e[k - 1]; }
    Vd vec(1, 1.0);
    for (int k = 1; k <= t.d; ++k) {
      const int rp = t.r[k - 1], rk = t.r[k];
      const float* G = cores.data() + t.core_offset(k);
      Vd nv(rk, 0.0);
      for (int a = 0; a < rp; ++a)
        for (int b = 0; b < rk; ++b)
          nv[b] += vec[a] * G[((a * t.v[k - 1] + v[k - 1]) * t.e[k - 1] + ev[k - 1]) * rk + b];
      vec = nv;
    }
    row[col] = vec[0];
  }
  return row;
}

/// The scatter of the core gradients token by token through a partial buffer and an add
/// (TtmDims::core_by_add, set for 16 dual-port lanes on 8 banks) or by the
/// contraction's accumulate flag.
class TtmScatter : public ::testing::TestWithParam<bool> {};
INSTANTIATE_TEST_SUITE_P(ByAdd, TtmScatter, ::testing::Values(false, true));

TEST_P(TtmScatter, LookupAndScatterGradientMatchReconstruction) {
  std::mt19937 rng(5);
  int by_add_cores = 0;
  // d = 3 and 4 with the last step transposed (Epre(d-1) > e_d), d = 2, and d = 3 with a
  // long last mode (e_3 = 8 > Epre(2) = 4: the plain form).
  for (int dd : {2, 3, 4, 5}) {
    TtmDims t;
    t.d = dd == 5 ? 3 : dd;
    const bool long_last = dd == 5;
    const int vs[] = {3, 4, 2, 2}, es[] = {2, long_last ? 2 : 3, long_last ? 8 : 2, 2}, rs[] = {1, 3, 2, 2, 1};
    for (int k = 0; k < t.d; ++k) { t.v[k] = vs[k]; t.e[k] = es[k]; }
    for (int k = 0; k <= t.d; ++k) t.r[k] = k == t.d ? 1 : rs[k];
    EXPECT_EQ(ttsim_hls::ttm_last_transposed(t), t.d >= 3 && !long_last) << "d " << dd;
    if (GetParam()) ttsim_hls::set_core_by_add(t, 16, 8);
    for (int k = 2; k <= t.d; ++k) by_add_cores += t.core_by_add[k];
    const int K = 6, D = t.dim();
    std::vector<int> tokens = {0, 5, t.vocab() - 1, 5, 3, 1};
    const Vf cores = randv(t.total_words(), rng);
    std::vector<int> idx(t.d * K);
    ttsim_hls::ttm_slice_offsets(t, K, tokens.data(), idx.data());
    Vf E(K * D), saved0(ttsim_hls::ttm_saved_words(t, K, 0) + 1), saved1(ttsim_hls::ttm_saved_words(t, K, 1) + 1),
        scratch0(ttsim_hls::ttm_scratch_words(t, K, 0) + 1), scratch1(ttsim_hls::ttm_scratch_words(t, K, 1) + 1),
        copy(ttsim_hls::ttm_copy_words(t) + 1);
    ttsim_hls::ttm_forward(idx.data(), t, K, BV(cores), BV(E), BV(saved0), BV(saved1), BV(copy), BV(scratch1));
    Vd want;
    for (int tok : tokens) {
      const Vd r = ttm_row(t, cores, tok);
      want.insert(want.end(), r.begin(), r.end());
    }
    EXPECT_LE(rel_err(E, want), 1e-5) << "d " << dd;
    // Gradient of ℓ = Σ dE ⊙ E: linear in each core, exact by unit cores.
    const Vf dE = randv(K * D, rng);
    Vf dcores(t.total_words(), 0.0f);
    Vf part(ttsim_hls::ttm_part_words(t) + 1, 0.0f);
    ttsim_hls::ttm_backward(idx.data(), t, K, BV(cores), BV(saved0), BV(saved1), BV(dE), BV(dcores), BV(scratch0),
                            BV(scratch1), BV(part));
    for (int k = 1; k <= t.d; ++k) {
      Vd g(t.core_words(k));
      for (int i = 0; i < t.core_words(k); ++i) {
        Vf unit = cores;
        for (int j = 0; j < t.core_words(k); ++j) unit[t.core_offset(k) + j] = j == i ? 1.0f : 0.0f;
        double s = 0;
        for (int q = 0; q < K; ++q) {
          const Vd r = ttm_row(t, unit, tokens[q]);
          for (int c = 0; c < D; ++c) s += r[c] * dE[q * D + c];
        }
        g[i] = s;
      }
      const Vf got(dcores.begin() + t.core_offset(k),
                   dcores.begin() + t.core_offset(k) + t.core_words(k));
      EXPECT_LE(rel_err(got, g), 1e-4) << "d " << dd << " core " << k;
    }
  }
  // The by-add case reaches the partial path (the rule picks some core) and the flag case none.
  if (GetParam()) {
    EXPECT_GT(by_add_cores, 0);
  } else {
    EXPECT_EQ(by_add_cores, 0);
  }
}

// ---- attention ----
// Rows of the scores ld apart: ld = K (packed) and ld > K (the model's sequence length
// for a shorter sample), with the probabilities read back at that pitch.
class AttentionPitch : public ::testing::TestWithParam<int> {};
INSTANTIATE_TEST_SUITE_P(Pitch, AttentionPitch, ::testing::Values(0, 3));

TEST_P(AttentionPitch, ForwardAndBackwardMatchNaive) {
  std::mt19937 rng(9);
  const int K = 5, H = 3, dh = 4, D = H * dh, ld = K + GetParam();
  const Vf Q = randv(K * D, rng), Kx = randv(K * D, rng), V = randv(K * D, rng),
           dC = randv(K * D, rng);
  Vf P(H * K * ld), ctx(K * D), stat(3 * H * K), dQ(K * D), dK(K * D), dV(K * D), dP(H * K * ld);
  ttsim_hls::attention_forward(nullptr, K, D, H, K, ld, BV(Q), BV(Kx), BV(V), BV(P), BV(ctx),
                               BV(stat));
  const Vf P_fwd = P;
  ttsim_hls::attention_backward(nullptr, K, D, H, ld, BV(Q), BV(Kx), BV(V), BV(P), BV(dC),
                                BV(dQ), BV(dK), BV(dV), BV(dP), BV(stat));
  Vd wctx(K * D, 0), wdQ(K * D, 0), wdK(K * D, 0), wdV(K * D, 0);
  const double sc = 1.0 / std::sqrt(static_cast<double>(dh));
  for (int h = 0; h < H; ++h) {
    std::vector<Vd> p(K, Vd(K)), dp(K, Vd(K)), ds(K, Vd(K));
    for (int i = 0; i < K; ++i) {
      double mx = -1e300;
      for (int j = 0; j < K; ++j) {
        double s = 0;
        for (int c = 0; c < dh; ++c) s += Q[i * D + h * dh + c] * Kx[j * D + h * dh + c];
        p[i][j] = s * sc;
        mx = std::max(mx, p[i][j]);
      }
      double sum = 0;
      for (int j = 0; j < K; ++j) sum += (p[i][j] = std::exp(p[i][j] - mx));
      for (int j = 0; j < K; ++j) p[i][j] /= sum;
      for (int j = 0; j < K; ++j) EXPECT_NEAR(P_fwd[(h * K + i) * ld + j], p[i][j], 1e-5) << h << " " << i << " " << j;
      for (int c = 0; c < dh; ++c)
        for (int j = 0; j < K; ++j) wctx[i * D + h * dh + c] += p[i][j] * V[j * D + h * dh + c];
      double dot = 0;
      for (int j = 0; j < K; ++j) {
        for (int c = 0; c < dh; ++c) dp[i][j] += dC[i * D + h * dh + c] * V[j * D + h * dh + c];
        dot += dp[i][j] * p[i][j];
      }
      for (int j = 0; j < K; ++j) ds[i][j] = p[i][j] * (dp[i][j] - dot);
    }
    for (int i = 0; i < K; ++i)
      for (int j = 0; j < K; ++j)
        for (int c = 0; c < dh; ++c) {
          wdV[j * D + h * dh + c] += p[i][j] * dC[i * D + h * dh + c];
          wdQ[i * D + h * dh + c] += ds[i][j] * Kx[j * D + h * dh + c] * sc;
          wdK[j * D + h * dh + c] += ds[i][j] * Q[i * D + h * dh + c] * sc;
        }
  }
  EXPECT_LE(rel_err(ctx, wctx), 1e-5);
  EXPECT_LE(rel_err(dQ, wdQ), 1e-4);
  EXPECT_LE(rel_err(dK, wdK), 1e-4);
  EXPECT_LE(rel_err(dV, wdV), 1e-4);
}

// ---- row-wise kernels: forward vs naive FP64, gradient vs central differences ----
// Central-difference directional derivative of f at x along v (FP32 kernel, FP64 sums).
double fd_dir(const std::function<double(const Vf&)>& f, const Vf& x, const Vf& v, float eps) {
  Vf xp = x, xm = x;
  for (std::size_t i = 0; i < x.size(); ++i) { xp[i] += eps * v[i]; xm[i] -= eps * v[i]; }
  return (f(xp) - f(xm)) / (2.0 * eps);
}
double dot(const Vf& a, const Vf& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

TEST(RowKernels, LayerNormForwardAndGradient) {
  std::mt19937 rng(21);
  const int R = 3, C = 10;
  const Vf x = randv(R * C, rng), g = randv(C, rng), b = randv(C, rng), w = randv(R * C, rng);
  Vf y(R * C), xh(R * C), rs(R), st(2 * R);
  ttsim_hls::layernorm_kernel<4, 4>(BV<4>(x), BV<4>(g), BV<4>(b), BV<4>(y), BV<4>(xh), BV<4>(rs), R,
                                 C, BV<4>(st));
  Vd want(R * C);
  for (int r = 0; r < R; ++r) {
    double m = 0, v = 0;
    for (int c = 0; c < C; ++c) m += x[r * C + c];
    m /= C;
    for (int c = 0; c < C; ++c) v += (x[r * C + c] - m) * (x[r * C + c] - m);
    v /= C;
    for (int c = 0; c < C; ++c)
      want[r * C + c] = (x[r * C + c] - m) / std::sqrt(v + 1e-5) * g[c] + b[c];
  }
  EXPECT_LE(rel_err(y, want), 1e-5);
  // dγ and dβ start as junk: the kernel writes the column sums (one call per LayerNorm per
  // step), it does not add them to what the gradient array held.
  Vf dx(R * C), dg(C, 1234.5f), db(C, -987.25f);
  ttsim_hls::layernorm_grad_kernel<4, 4>(BV<4>(w), BV<4>(xh), BV<4>(rs), BV<4>(g), BV<4>(dx),
                                      BV<4>(dg), BV<4>(db), R, C, BV<4>(st));
  auto loss_x = [&](const Vf& xx) {
    Vf yy(R * C), h(R * C), r(R), s(2 * R);
    ttsim_hls::layernorm_kernel<4, 4>(BV<4>(xx), BV<4>(g), BV<4>(b), BV<4>(yy), BV<4>(h), BV<4>(r), R,
                                   C, BV<4>(s));
    return dot(yy, w);
  };
  auto loss_g = [&](const Vf& gg) {
    Vf yy(R * C), h(R * C), r(R), s(2 * R);
    ttsim_hls::layernorm_kernel<4, 4>(BV<4>(x), BV<4>(gg), BV<4>(b), BV<4>(yy), BV<4>(h), BV<4>(r), R,
                                   C, BV<4>(s));
    return dot(yy, w);
  };
  const Vf v = randv(R * C, rng), vg = randv(C, rng);
  EXPECT_NEAR(fd_dir(loss_x, x, v, 1e-2f), dot(dx, v), 2e-3 * (1 + std::fabs(dot(dx, v))));
  EXPECT_NEAR(fd_dir(loss_g, g, vg, 1e-2f), dot(dg, vg), 2e-3 * (1 + std::fabs(dot(dg, vg))));
  Vd wdb(C, 0.0);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) wdb[c] += w[r * C + c];
  EXPECT_LE(rel_err(db, wdb), 1e-5);
}

TEST(RowKernels, GeluForwardAndGradient) {
  std::mt19937 rng(22);
  const int R = 2, C = 9;
  const Vf x = randv(R * C, rng, 2.0f), w = randv(R * C, rng);
  Vf y(R * C), dx(R * C);
  ttsim_hls::gelu_kernel<2, 2>(BV<2>(x), BV<2>(y), R, C);
  Vd want(R * C);
  for (int i = 0; i < R * C; ++i) {
    const double v = x[i];
    want[i] = 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  }
  EXPECT_LE(rel_err(y, want), 1e-5);
  dx = w;  // the gradient is computed in place: dy in, dx out
  ttsim_hls::gelu_grad_kernel<2, 2>(BV<2>(x), BV<2>(dx), R, C);
  auto loss = [&](const Vf& xx) {
    Vf yy(R * C);
    ttsim_hls::gelu_kernel<2, 2>(BV<2>(xx), BV<2>(yy), R, C);
    return dot(yy, w);
  };
  const Vf v = randv(R * C, rng);
  EXPECT_NEAR(fd_dir(loss, x, v, 1e-2f), dot(dx, v), 2e-3 * (1 + std::fabs(dot(dx, v))));
}

TEST(RowKernels, SoftmaxAndLossForwardAndGradient) {
  std::mt19937 rng(23);
  const int R = 4, C = 7;
  const Vf x = randv(R * C, rng), w = randv(R * C, rng);
  Vf p(R * C), ds(R * C), st(3 * R);
  ttsim_hls::softmax_kernel<3, 3>(BV<3>(x), BV<3>(p), R, C, C, BV<3>(st));
  Vd want(R * C);
  for (int r = 0; r < R; ++r) {
    double s = 0;
    for (int c = 0; c < C; ++c) s += std::exp(static_cast<double>(x[r * C + c]));
    for (int c = 0; c < C; ++c) want[r * C + c] = std::exp(static_cast<double>(x[r * C + c])) / s;
  }
  EXPECT_LE(rel_err(p, want), 1e-5);
  ds = w;  // the gradient is computed in place: dP in, dS out
  ttsim_hls::softmax_grad_kernel<3, 3>(BV<3>(p), BV<3>(ds), R, C, BV<3>(st));
  auto sm_loss = [&](const Vf& xx) {
    Vf pp(R * C), s(3 * R);
    ttsim_hls::softmax_kernel<3, 3>(BV<3>(xx), BV<3>(pp), R, C, C, BV<3>(s));
    return dot(pp, w);
  };
  const Vf v = randv(R * C, rng);
  EXPECT_NEAR(fd_dir(sm_loss, x, v, 1e-2f), dot(ds, v), 2e-3 * (1 + std::fabs(dot(ds, v))));

  const std::vector<int> labels = {2, -1, 0, 6};
  Vf dl(R * C);
  const float loss = ttsim_hls::loss_kernel<3, 3>(BV<3>(x), labels.data(), BV<3>(dl), R, C, 0.5f,
                                               BV<3>(st));
  double wl = 0;
  for (int r = 0; r < R; ++r)
    if (labels[r] >= 0) wl += 0.5 * -std::log(want[r * C + labels[r]]);
  EXPECT_NEAR(loss, wl, 1e-5 * wl);
  auto ce = [&](const Vf& xx) {
    Vf d(R * C), s(3 * R);
    return static_cast<double>(
        ttsim_hls::loss_kernel<3, 3>(BV<3>(xx), labels.data(), BV<3>(d), R, C, 0.5f, BV<3>(s)));
  };
  EXPECT_NEAR(fd_dir(ce, x, v, 1e-2f), dot(dl, v), 2e-3 * (1 + std::fabs(dot(dl, v))));
  for (int c = 0; c < C; ++c) EXPECT_EQ(dl[1 * C + c], 0.0f);  // ignored row
}

TEST(RowKernels, SoftmaxMasksKeysBeyondValidColumns) {
  const Vf x = {1, 2, 3, 4, 5};
  Vf p(5), st(2);
  ttsim_hls::softmax_kernel<2, 2>(BV<2>(x), BV<2>(p), 1, 5, 3, BV<2>(st));
  EXPECT_EQ(p[3], 0.0f);
  EXPECT_EQ(p[4], 0.0f);
  EXPECT_NEAR(p[0] + p[1] + p[2], 1.0f, 1e-6f);
}

TEST(RowKernels, SgdUpdatesInPlaceAndZeroesGradient) {
  Vf w = {1, 2, 3}, g = {0.5f, -1, 2};
  ttsim_hls::sgd_kernel<2, 2>(BV<2>(w), BV<2>(g), 3, 0.1f);
  EXPECT_FLOAT_EQ(w[0], 0.95f);
  EXPECT_FLOAT_EQ(w[1], 2.1f);
  EXPECT_FLOAT_EQ(w[2], 2.8f);
  EXPECT_EQ(g, Vf(3, 0.0f));
}

// The transposed copy moves every word (row and column counts below, at and past a tile
// of LANES, skinny and wide, so that steps run as long as a tile's rows, its columns or
// transpose_min_step; row strides past the extents, views off a bank boundary), writes
// nothing outside out's cols × R block, and runs transpose_trip iterations.
template <int LANES, int B = 8>
void check_transpose() {
  for (int R : {1, 5, 12, 21, 70}) {
    for (int C : {1, 3, 16, 21, 70}) {
      const int x_rs = C + 2, o_rs = R + 1, off = 3;
      std::mt19937 rng(R * 31 + C);
      Vf x = randv(static_cast<std::size_t>(off + R * x_rs), rng);
      Vf out(static_cast<std::size_t>(off + C * o_rs + 4), -7.0f);
      ttsim_hls::LoopCountScope scope;
      ttsim_hls::transpose_kernel<LANES, B>(BV<B>(x) + off, BV<B>(out) + off, R, C, x_rs, o_rs);
      EXPECT_EQ(scope.counts()["transpose"], ttsim_spec::transpose_trip<long long>(R, C, LANES))
          << "lanes " << LANES << " R " << R << " C " << C;
      for (int j = 0; j < C; ++j) {
        for (int i = 0; i < o_rs; ++i) {
          const float got = out[off + j * o_rs + i];
          EXPECT_EQ(got, i < R ? x[off + i * x_rs + j] : -7.0f)
              << "lanes " << LANES << " R " << R << " C " << C << " i " << i << " j " << j;
        }
      }
      for (int w = 0; w < off; ++w) EXPECT_EQ(out[w], -7.0f);
      for (std::size_t w = off + C * o_rs; w < out.size(); ++w) EXPECT_EQ(out[w], -7.0f);
    }
  }
}

TEST(RowKernels, TransposeCopiesEveryWordAndNothingElse) {
  check_transpose<1>();
  check_transpose<2>();
  check_transpose<3>();
  check_transpose<4>();
  check_transpose<5>();
  check_transpose<7>();
  check_transpose<8>();
  check_transpose<16, 16>();
  check_transpose<64, 64>();
}

}  // namespace

// ---- lane networks (banked.h) ----
// lane_read / lane_write move the right words whichever rotation network they build
// (direct multiplexers for few lanes, the barrel rotator from 8 lanes on B = LANES banks):
// every start word in the first three rows, every valid-lane count.
template <int LANES, int B>
void check_lane_networks() {
  constexpr int kWords = 4 * B + LANES;
  ttsim_hls::csim_direct_lanes() = false;  // the network synthesis builds, not the C-sim copy
  for (int start = 0; start < 3 * B; ++start) {
    for (int n = 0; n <= LANES; ++n) {
      Vf mem(kWords);
      for (int w = 0; w < kWords; ++w) mem[w] = static_cast<float>(w);
      const auto view = ttsim_hls::bank_view<B>(mem.data());
      float v[LANES];
      ttsim_hls::lane_read<LANES>("x", view, start, n, v);
      for (int l = 0; l < LANES; ++l) {
        ASSERT_EQ(v[l], l < n ? static_cast<float>(start + l) : 0.0f)
            << "read lanes " << LANES << " banks " << B << " start " << start << " n " << n << " lane " << l;
      }
      float out[LANES];
      for (int l = 0; l < LANES; ++l) out[l] = -1.0f - l;
      ttsim_hls::lane_write<LANES>("x", view, start, n, out);
      for (int w = 0; w < kWords; ++w) {
        const int l = w - start;
        const float want = l >= 0 && l < n ? -1.0f - l : static_cast<float>(w);
        ASSERT_EQ(mem[w], want) << "write lanes " << LANES << " banks " << B << " start " << start << " n " << n
                                << " word " << w;
      }
    }
  }
}

TEST(LaneNetworks, ReadAndWriteMoveTheRightWords) {
  static_assert(!ttsim_hls::lane_read_barrel(4, 4) && ttsim_hls::lane_read_barrel(8, 8) &&
                    ttsim_hls::lane_write_barrel(64, 64) && !ttsim_hls::lane_read_barrel(8, 64),
                "the cases below cover both structures");
  check_lane_networks<1, 1>();
  check_lane_networks<3, 4>();
  check_lane_networks<4, 4>();
  check_lane_networks<8, 8>();
  check_lane_networks<5, 12>();
  check_lane_networks<8, 64>();
  check_lane_networks<16, 16>();
  check_lane_networks<64, 64>();
  ttsim_hls::csim_direct_lanes() = true;
}

// The aligned accesses (lane_read / lane_write <LANES, true>) move the same words as the
// rotating ones at every start that is a multiple of LANES (first three rows, every
// valid-lane count), on the network synthesis builds.
template <int LANES, int B>
void check_aligned_lanes() {
  static_assert(ttsim_hls::lane_alignable(LANES, B), "an alignable case");
  constexpr int kWords = 4 * B;
  ttsim_hls::csim_direct_lanes() = false;
  for (int start = 0; start < 3 * B; start += LANES) {
    for (int n = 0; n <= LANES; ++n) {
      Vf mem(kWords);
      for (int w = 0; w < kWords; ++w) mem[w] = static_cast<float>(w);
      const auto view = ttsim_hls::bank_view<B>(mem.data());
      float v[LANES];
      ttsim_hls::lane_read<LANES, true>("x", view, start, n, v);
      for (int l = 0; l < LANES; ++l) {
        ASSERT_EQ(v[l], l < n ? static_cast<float>(start + l) : 0.0f)
            << "aligned read lanes " << LANES << " banks " << B << " start " << start << " n " << n;
      }
      float out[LANES];
      for (int l = 0; l < LANES; ++l) out[l] = -1.0f - l;
      ttsim_hls::lane_write<LANES, true>("x", view, start, n, out);
      for (int w = 0; w < kWords; ++w) {
        const int l = w - start;
        ASSERT_EQ(mem[w], l >= 0 && l < n ? -1.0f - l : static_cast<float>(w))
            << "aligned write lanes " << LANES << " banks " << B << " start " << start << " n " << n;
      }
    }
  }
  ttsim_hls::csim_direct_lanes() = true;
}

TEST(LaneNetworks, AlignedAccessesMoveTheSameWords) {
  check_aligned_lanes<1, 4>();
  check_aligned_lanes<4, 8>();
  check_aligned_lanes<8, 64>();
  check_aligned_lanes<16, 64>();
  check_aligned_lanes<8, 8>();
  // 8 lanes on 64 banks: each lane an 8:1 select (3 LUT6 per bit) against 8 × 64:1 (168).
  EXPECT_EQ(ttsim_hls::aligned_lane_read_network_luts(8, 64), 24);
  EXPECT_EQ(ttsim_hls::aligned_lane_write_network_luts(8, 64), 0);
  EXPECT_FALSE(ttsim_hls::lane_alignable(12, 64));
  EXPECT_TRUE(ttsim_hls::lane_alignable(64, 64));  // lane l in bank l
  EXPECT_EQ(ttsim_hls::aligned_lane_read_network_luts(16, 16), 0);
}

// Under the access probe the aligned accesses touch the same banks, as often, as the
// rotating ones (the ports the simulator prices), and report the same starts.
TEST(LaneNetworks, AlignedAccessesProbeTheSameBanks) {
  constexpr int L = 8, B = 64;
  Vf mem(4 * B, 1.0f);
  const auto view = ttsim_hls::bank_view<B>(mem.data());
  std::map<std::string, ttsim_hls::MeasuredLoop> loops;
  {
    ttsim_hls::AccessProbeScope probe(B);
    for (const bool aligned : {false, true}) {
      const char* loop = aligned ? "aligned" : "general";
      ttsim_hls::probe_loop_begin(loop);
      for (int start = 0; start < 3 * B; start += L) {
        for (int n = 0; n <= L; ++n) {
          ttsim_hls::probe_loop_iter(loop);
          float v[L];
          if (aligned) {
            ttsim_hls::lane_read<L, true>("x", view, start, n, v);
            ttsim_hls::lane_write<L, true>("x", view, start, n, v);
          } else {
            ttsim_hls::lane_read<L>("x", view, start, n, v);
            ttsim_hls::lane_write<L>("x", view, start, n, v);
          }
        }
      }
    }
    loops = probe.loops();
  }
  const ttsim_hls::MeasuredLoop &a = loops.at("aligned"), &g = loops.at("general");
  EXPECT_EQ(a.reads, g.reads);
  EXPECT_EQ(a.writes, g.writes);
  EXPECT_EQ(a.max_bank_accesses, g.max_bank_accesses);
  EXPECT_EQ(a.lane_start_gcd, L);
  EXPECT_EQ(g.lane_start_gcd, L);
  EXPECT_GT(a.reads.at("x"), 0);
}

#if !defined(NDEBUG)
TEST(LaneNetworksDeathTest, AlignedAccessAtAnUnalignedStartAsserts) {
  Vf mem(256, 0.0f);
  const auto view = ttsim_hls::bank_view<64>(mem.data());
  float v[8];
  EXPECT_DEATH((ttsim_hls::lane_read<8, true>("x", view + 3, 8, 8, v)), "multiple of its lanes");
  EXPECT_DEATH((ttsim_hls::lane_write<8, true>("x", view, 12, 8, v)), "multiple of its lanes");
}
#endif

// A build that omits column_acc (ttsim_spec::kOmitContractColumnAcc, design_config.h
// kOmittedLoops) runs the other forms as before, and an accumulating column call stops C
// simulation with the reason instead of running a loop synthesis would not build.
TEST(ContractionDeathTest, OmittedColumnAccStopsAnAccumulatingColumnCall) {
  constexpr int L = 4, B = 4;
  constexpr unsigned kOmit = ttsim_spec::kOmitContractColumnAcc;
  Vf a(64, 1.0f), b(64, 2.0f), c(64, 0.0f), c_full(64, 0.0f);
  ttsim_hls::ContractDesc d = ttsim_hls::plain_desc(3, 5, 4);
  ttsim_hls::contract_kernel<L, B, kOmit>(ttsim_hls::bank_view<B>(a.data()), ttsim_hls::bank_view<B>(b.data()),
                                         ttsim_hls::bank_view<B>(c.data()), d);
  ttsim_hls::contract_kernel<L, B>(ttsim_hls::bank_view<B>(a.data()), ttsim_hls::bank_view<B>(b.data()),
                                   ttsim_hls::bank_view<B>(c_full.data()), d);
  EXPECT_EQ(c, c_full);
  EXPECT_EQ(c[0], 10.0f);
  d.accumulate = true;
  EXPECT_DEATH((ttsim_hls::contract_kernel<L, B, kOmit>(ttsim_hls::bank_view<B>(a.data()),
                                                        ttsim_hls::bank_view<B>(b.data()),
                                                        ttsim_hls::bank_view<B>(c.data()), d)),
               "which this build omits");
}

// LayerNorm and GELU with aligned accesses (offsets and cols multiples of the lanes) give
// the results of the rotating accesses, bit for bit.
TEST(RowKernels, AlignedLayerNormAndGeluEqualTheGeneralOnes) {
  constexpr int L = 4, B = 16;
  std::mt19937 rng(5);
  const int R = 3, C = 12, off = 8;
  ttsim_hls::csim_direct_lanes() = false;
  const Vf x = randv(off + R * C, rng), g = randv(off + C, rng), b = randv(off + C, rng), w = randv(off + R * C, rng);
  Vf out[2][5];
  for (int a = 0; a < 2; ++a) {
    Vf y(off + R * C), xh(off + R * C), rs(off + R), st(off + 2 * R), dx(off + R * C), dg(off + C, 0.0f),
        db(off + C, 0.0f), gy(off + R * C), gd = w;
    auto run = [&](auto aligned) {
      constexpr bool A = decltype(aligned)::value;
      ttsim_hls::layernorm_kernel<L, B, A>(BV<B>(x) + off, BV<B>(g) + off, BV<B>(b) + off, BV<B>(y) + off,
                                           BV<B>(xh) + off, BV<B>(rs) + off, R, C, BV<B>(st) + off);
      ttsim_hls::layernorm_grad_kernel<L, B, A>(BV<B>(w) + off, BV<B>(xh) + off, BV<B>(rs) + off, BV<B>(g) + off,
                                                BV<B>(dx) + off, BV<B>(dg) + off, BV<B>(db) + off, R, C,
                                                BV<B>(st) + off);
      ttsim_hls::gelu_kernel<L, B, A>(BV<B>(x) + off, BV<B>(gy) + off, R, C);
      ttsim_hls::gelu_grad_kernel<L, B, A>(BV<B>(x) + off, BV<B>(gd) + off, R, C);
    };
    if (a == 0) {
      run(std::false_type{});
    } else {
      run(std::true_type{});
    }
    out[a][0] = y, out[a][1] = dx, out[a][2] = dg, out[a][3] = gy, out[a][4] = gd;
    out[a][2].insert(out[a][2].end(), db.begin(), db.end());
  }
  ttsim_hls::csim_direct_lanes() = true;
  for (int k = 0; k < 5; ++k) EXPECT_EQ(out[0][k], out[1][k]) << "output " << k;
}

// The softmax, loss and SGD kernels with aligned lane accesses (banked.h lane_read<L, true>)
// equal the general ones on rows at a pitch wider than their columns (ld = 16 > cols = 12,
// offsets and pitch multiples of the lanes), as model_step.cc runs them.
TEST(RowKernels, AlignedSoftmaxLossAndSgdEqualTheGeneralOnes) {
  constexpr int L = 4, B = 16;
  std::mt19937 rng(6);
  const int R = 3, C = 12, ld = 16, off = 8, valid = 10;
  const int labels[R] = {3, -1, 11};
  ttsim_hls::csim_direct_lanes() = false;
  const Vf s0 = randv(off + R * ld, rng), d0 = randv(off + R * ld, rng), w0 = randv(off + 2 * ld, rng),
           g0 = randv(off + 2 * ld, rng);
  Vf out[2][5];
  float losses[2] = {0, 0};
  for (int a = 0; a < 2; ++a) {
    Vf p = s0, d = d0, st(off + 2 * R), lg(off + R * ld), w = w0, g = g0;
    auto run = [&](auto aligned) {
      constexpr bool A = decltype(aligned)::value;
      auto P = BV<B>(p) + off, D = BV<B>(d) + off, S = BV<B>(st) + off, G = BV<B>(lg) + off;
      ttsim_hls::softmax_kernel<L, B, A>(P.rows, P.off, P.rows, P.off, R, C, ld, valid, S.rows, S.off);
      ttsim_hls::softmax_grad_kernel<L, B, A>(P.rows, P.off, D.rows, D.off, R, C, ld, S.rows, S.off);
      losses[a] = ttsim_hls::loss_kernel<L, B, A>(P.rows, P.off, labels, 0, G.rows, G.off, R, C, ld, 0.5f, S.rows,
                                                  S.off);
      auto W = BV<B>(w) + off, Gr = BV<B>(g) + off;
      ttsim_hls::sgd_kernel<L, B, A>(W.rows, W.off, Gr.rows, Gr.off, 2 * ld - 3, 0.1f);
    };
    if (a == 0) {
      run(std::false_type{});
    } else {
      run(std::true_type{});
    }
    out[a][0] = p, out[a][1] = d, out[a][2] = lg, out[a][3] = w, out[a][4] = g;
  }
  ttsim_hls::csim_direct_lanes() = true;
  for (int k = 0; k < 5; ++k) EXPECT_EQ(out[0][k], out[1][k]) << "output " << k;
  EXPECT_EQ(losses[0], losses[1]);
  // The words between a row's columns and the next row (the pitch's padding) are untouched.
  for (int r = 0; r < R; ++r) {
    for (int j = C; j < ld; ++j) EXPECT_EQ(out[1][0][off + r * ld + j], s0[off + r * ld + j]) << r << " " << j;
  }
}

TEST(LaneNetworks, BarrelCostsLessFromEightLanesOnTheirOwnBanks) {
  // 64 lanes on 64 banks: barrel 64 · ceil(6 / 2) = 192 LUT6 per bit against 64 · 21.
  EXPECT_EQ(ttsim_hls::lane_read_network_luts(64, 64), 192);
  EXPECT_EQ(ttsim_hls::lane_write_network_luts(64, 64), 192);
  // 8 lanes on 64 banks: 8 direct 64:1 multiplexers (168) beat the 64-word barrel (192).
  EXPECT_EQ(ttsim_hls::lane_read_network_luts(8, 64), 168);
  EXPECT_EQ(ttsim_hls::ceil_log2(1), 0);
  EXPECT_EQ(ttsim_hls::ceil_log2(12), 4);
  EXPECT_EQ(ttsim_hls::ceil_log2(64), 6);
}

// Increment-only addressing (contract.h SlotCursor, row_reduce.h cursors): over every
// iteration of a loop, the running offsets equal the products of the counters and the
// strides they replace, for batched, reduced and indexed descriptors of odd sizes.
TEST(Addressing, RunningOffsetsEqualTheProductsTheyReplace) {
  using ttsim_spec::kAccSlots;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> ext(1, 13), stride(0, 40);
  const int index[8] = {5, 17, 3, 40, 9, 2, 30, 11};
  for (int trial = 0; trial < 300; ++trial) {
    ttsim_hls::ContractDesc d;
    d.batch = 1 + trial % 4;
    d.rows = ext(rng);
    d.inner = ext(rng);
    d.cols = ext(rng);
    d.a_b = stride(rng), d.a_i = stride(rng), d.a_p = stride(rng);
    d.b_b = stride(rng), d.b_p = stride(rng), d.b_j = stride(rng);
    d.c_b = stride(rng), d.c_i = stride(rng), d.c_j = stride(rng);
    d.reduce_batch = trial % 3 == 1;
    if (trial % 5 == 2) d.a_index = 0;
    if (trial % 7 == 3) d.b_index = 4;
    const int width = 1 + trial % 6, nq = 1 + trial % 5;
    const long slots = static_cast<long>(d.rows) * width;
    const int chunks = static_cast<int>(ttsim_spec::acc_chunks(slots));
    const int w = static_cast<int>(ttsim_spec::acc_chunk_width(slots));
    ttsim_hls::detail::SlotCursor c(d, index, nq, chunks, w, width);
    const long total = static_cast<long>(d.reduce_batch ? 1 : d.batch) * chunks * (d.reduce_batch ? d.batch : 1) *
                       nq * w;
    for (long n = 0; n < total; ++n) {
      const int b = c.batch();
      ASSERT_EQ(c.ia, c.si * d.a_i) << trial << " " << n;
      ASSERT_EQ(c.ic, c.si * d.c_i) << trial << " " << n;
      ASSERT_EQ(c.jb, c.sj * d.b_j) << trial << " " << n;
      ASSERT_EQ(c.jc, c.sj * d.c_j) << trial << " " << n;
      ASSERT_EQ(c.pa, c.q * d.a_p) << trial << " " << n;
      ASSERT_EQ(c.pb, c.q * d.b_p) << trial << " " << n;
      ASSERT_EQ(c.abase, d.a_index >= 0 ? index[d.a_index + b] : b * d.a_b) << trial << " " << n;
      ASSERT_EQ(c.bbase, d.b_index >= 0 ? index[d.b_index + b] : b * d.b_b) << trial << " " << n;
      if (!d.reduce_batch) ASSERT_EQ(c.cbase, b * d.c_b) << trial << " " << n;
      c.next();
    }
  }
  for (int trial = 0; trial < 100; ++trial) {
    const int tiles = ext(rng), rows = ext(rng), s0 = stride(rng), s1 = stride(rng), s2 = stride(rng);
    ttsim_hls::detail::RowSlots rs(tiles, s0, s1, s2);
    ttsim_hls::detail::ColumnSlots cs(rows, s0, s1, s2);
    ttsim_hls::detail::RowTiles rt(tiles, s0, s1, s2);
    for (int n = 0; n < 4 * kAccSlots * tiles * rows; ++n) {
      ASSERT_EQ(rs.rows.off[0], rs.row() * s0);
      ASSERT_EQ(rs.rows.off[2], rs.row() * s2);
      ASSERT_EQ(cs.rows.off[1], cs.r * s1);
      ASSERT_EQ(rt.rows.off[0], rt.r * s0);
      ASSERT_EQ(rt.rows.off[2], rt.r * s2);
      rs.next();
      cs.next();
      rt.next();
    }
  }
}
