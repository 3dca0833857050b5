#include "hls/kernels/ttm_embedding.h"

#include "hls/kernels/modules.h"

namespace ttsim_hls {

int TtmDims::vocab() const {
  int p = 1;
  for (int k = 0; k < d; ++k) p *= v[k];
  return p;
}
int TtmDims::dim() const { return epre(d); }
int TtmDims::epre(int k) const {
  int p = 1;
  for (int i = 0; i < k; ++i) p *= e[i];
  return p;
}
int TtmDims::core_offset(int k) const {
  int off = 0;
  for (int c = 1; c < k; ++c) off += core_words(c);
  return off;
}

namespace {
int e_words(const TtmDims& t, int K, int k) { return K * t.epre(k) * t.r[k]; }  // E_k
int e_offset(const TtmDims& t, int K, int k) {  // E_k in the saved block, k = 2..d-1
  int off = 0;
  for (int c = 2; c < k; ++c) off += e_words(t, K, c);
  return off;
}
}  // namespace

int ttm_saved_words(const TtmDims& t, int K) { return e_offset(t, K, t.d); }

int ttm_scratch_words(const TtmDims& t, int K) {
  int mx = 0;
  for (int k = 2; k < t.d; ++k) mx = e_words(t, K, k) > mx ? e_words(t, K, k) : mx;
  return 2 * mx;
}

void ttm_slice_offsets(const TtmDims& t, int K, const int* tokens, int* idx) {
ttm_index:
  for (int i = 0; i < K; ++i) {
    int rest = tokens[i];
    for (int k = t.d; k >= 1; --k) {
      const int digit = rest % t.v[k - 1];
      rest /= t.v[k - 1];
      idx[(k - 1) * K + i] = t.core_offset(k) + digit * t.e[k - 1] * t.r[k];
    }
  }
}

void ttm_forward(const int* index, const TtmDims& t, int K, CRef cores, Ref E,
                 Ref saved) {
#pragma HLS INLINE
  for (int k = 2; k <= t.d; ++k) {
    const int rp = t.r[k - 1], ep = t.epre(k - 1), cols = t.e[k - 1] * t.r[k];
    ContractDesc c;
    c.batch = K; c.rows = ep; c.inner = rp; c.cols = cols;
    CRef A;
    if (k == 2) {  // E_1 = S_1, read straight from core 1
      A = cores;
      c.a_index = 0;
    } else {
      A = saved + e_offset(t, K, k - 1);
      c.a_b = ep * rp;
    }
    c.a_i = rp; c.a_p = 1;
    c.b_index = (k - 1) * K;
    c.b_p = t.v[k - 1] * cols; c.b_j = 1;
    c.c_b = ep * cols; c.c_i = cols; c.c_j = 1;
    contraction(index, A, cores, k == t.d ? E : saved + e_offset(t, K, k), c);
  }
}

void ttm_backward(const int* index, const TtmDims& t, int K, CRef cores, CRef saved,
                  CRef dE, Ref dcores, Ref scratch) {
#pragma HLS INLINE
  const int half = ttm_scratch_words(t, K) / 2;
  CRef dcur = dE;  // dE_k
  for (int k = t.d; k >= 2; --k) {
    const int rp = t.r[k - 1], ep = t.epre(k - 1), cols = t.e[k - 1] * t.r[k];
    const int row_stride = t.v[k - 1] * cols;  // between rows r of a slice S_k
    // dS_k = E_{k-1}ᵀ · dE_k, scatter-added into slice v_k of dG_k.
    ContractDesc c;
    c.batch = K; c.rows = rp; c.inner = ep; c.cols = cols;
    CRef A;
    if (k == 2) {
      A = cores;
      c.a_index = 0;
    } else {
      A = saved + e_offset(t, K, k - 1);
      c.a_b = ep * rp;
    }
    c.a_i = 1; c.a_p = rp;
    c.b_b = ep * cols; c.b_p = cols; c.b_j = 1;
    c.c_index = (k - 1) * K; c.c_i = row_stride; c.c_j = 1;
    c.accumulate = true;
    contraction(index, A, dcur, dcores, c);
    // dE_{k-1} = dE_k · S_kᵀ; for k = 2 it is dS_1, scatter-added into dG_1.
    ContractDesc g;
    g.batch = K; g.rows = ep; g.inner = cols; g.cols = rp;
    g.a_b = ep * cols; g.a_i = cols; g.a_p = 1;
    g.b_index = (k - 1) * K; g.b_p = 1; g.b_j = row_stride;
    Ref out;
    if (k == 2) {
      out = dcores;
      g.c_index = 0; g.c_i = rp; g.c_j = 1;
      g.accumulate = true;
    } else {
      out = scratch + ((k & 1) ? 0 : half);
      g.c_b = ep * rp; g.c_i = rp; g.c_j = 1;
    }
    contraction(index, dcur, cores, out, g);
    dcur = out;
  }
}

}  // namespace ttsim_hls
