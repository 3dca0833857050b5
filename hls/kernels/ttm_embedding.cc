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
// E_k (k = 2..d-1) in saved[k mod 2], after the earlier E of the same parity.
int e_offset(const TtmDims& t, int K, int k) {
  int off = 0;
  for (int c = k - 2; c >= 2; c -= 2) off += e_words(t, K, c);
  return off;
}
}  // namespace
int ttm_saved_words(const TtmDims& t, int K, int parity) {
  int w = 0;
  for (int k = 2; k < t.d; ++k) {
    if ((k & 1) == (parity & 1)) w += e_words(t, K, k);
  }
  return w;
}
int ttm_scratch_words(const TtmDims& t, int K, int parity) {
  // dE_k (k = 2..d-1) in scratch[k mod 2] (ttm_backward); in the forward, core 1's copy at
  // the start of scratch0 (ttm_forward).
  int mx = (parity & 1) == 0 && t.d >= 2 ? t.core_words(1) : 0;
  for (int k = 2; k < t.d; ++k) {
    if ((k & 1) == (parity & 1)) mx = e_words(t, K, k) > mx ? e_words(t, K, k) : mx;
  }
  return mx;
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
                 Ref saved0, Ref saved1, Ref scratch0) {
#pragma HLS INLINE
  // E_k = E_{k-1} · S_k (k = 2..d), S_k the per-token slice of core k (index table k − 1);
  // E_1 = S_1 is read by the k = 2 step from a copy of core 1 at the start of scratch0
  // (table 0 offsets are relative to core 1, which is at offset 0 of the cores), made by
  // the elementwise unit's transposed copy of a one-column view (a plain copy), so that the
  // step reads its two operands from two arrays. E_d is E.
  // E_k (k < d) lives in saved[k mod 2]: each step reads one saved arena and writes the
  // other (or E), one call site per direction, so no module argument is chosen between
  // arrays at run time.
  auto desc = [&](int k) {
    const int rp = t.r[k - 1], ep = t.epre(k - 1), cols = t.e[k - 1] * t.r[k];
    ContractDesc c;
    c.batch = K; c.rows = ep; c.inner = rp; c.cols = cols;
    c.a_b = ep * rp;
    c.a_i = rp; c.a_p = 1;
    c.b_index = (k - 1) * K;
    c.b_p = t.v[k - 1] * cols; c.b_j = 1;
    c.c_b = ep * cols; c.c_i = cols; c.c_j = 1;
    return c;
  };
  ContractDesc first = desc(2);
  first.a_index = 0;
  if (t.d >= 2) transpose(cores, scratch0, t.core_words(1), 1, 1, t.core_words(1));
  if (t.d == 2) {
    contraction(index, scratch0, cores, E, first);
  } else if (t.d >= 3) {
    contraction(index, scratch0, cores, saved0 + e_offset(t, K, 2), first);
  }
  for (int k = 3; k < t.d; ++k) {
    if (k & 1) {
      contraction(index, saved0 + e_offset(t, K, k - 1), cores, saved1 + e_offset(t, K, k), desc(k));
    } else {
      contraction(index, saved1 + e_offset(t, K, k - 1), cores, saved0 + e_offset(t, K, k), desc(k));
    }
  }
  if (t.d >= 3) {
    if ((t.d - 1) & 1) {
      contraction(index, saved1 + e_offset(t, K, t.d - 1), cores, E, desc(t.d));
    } else {
      contraction(index, saved0 + e_offset(t, K, t.d - 1), cores, E, desc(t.d));
    }
  }
}

void ttm_backward(const int* index, const TtmDims& t, int K, CRef cores, CRef saved0, CRef saved1,
                  CRef dE, Ref dcores, Ref scratch0, Ref scratch1) {
#pragma HLS INLINE
  // k = d..3 on the saved arenas and the chain arenas (dE_{k-1} in scratch[(k−1) mod 2]);
  // the k = 2 step (E_1 = S_1 read from core 1, dE_1 = dS_1 scattered into dG_1) is its own
  // pair of call sites, so each call binds fixed arrays (see ttm_forward).
  // dS_k = E_{k-1}ᵀ · dE_k, scatter-added into slice v_k of dG_k.
  auto grad_desc = [&](int k) {
    const int rp = t.r[k - 1], ep = t.epre(k - 1), cols = t.e[k - 1] * t.r[k];
    ContractDesc c;
    c.batch = K; c.rows = rp; c.inner = ep; c.cols = cols;
    c.a_b = ep * rp;
    c.a_i = 1; c.a_p = rp;
    c.b_b = ep * cols; c.b_p = cols; c.b_j = 1;
    c.c_index = (k - 1) * K; c.c_i = t.v[k - 1] * cols; c.c_j = 1;
    c.accumulate = true;
    return c;
  };
  // dE_{k-1} = dE_k · S_kᵀ (into scratch), or for k = 2 dS_1, scatter-added into dG_1.
  auto back_desc = [&](int k) {
    const int rp = t.r[k - 1], ep = t.epre(k - 1), cols = t.e[k - 1] * t.r[k];
    ContractDesc g;
    g.batch = K; g.rows = ep; g.inner = cols; g.cols = rp;
    g.a_b = ep * cols; g.a_i = cols; g.a_p = 1;
    g.b_index = (k - 1) * K; g.b_p = 1; g.b_j = t.v[k - 1] * cols;
    g.c_b = ep * rp; g.c_i = rp; g.c_j = 1;
    return g;
  };
  const int d = t.d;
  if (d >= 3) {  // k = d: dE_d = dE
    if ((d - 1) & 1) {
      contraction(index, saved1 + e_offset(t, K, d - 1), dE, dcores, grad_desc(d));
      contraction(index, dE, cores, scratch1, back_desc(d));
    } else {
      contraction(index, saved0 + e_offset(t, K, d - 1), dE, dcores, grad_desc(d));
      contraction(index, dE, cores, scratch0, back_desc(d));
    }
  }
  for (int k = d - 1; k >= 3; --k) {  // dE_k in scratch[k mod 2]
    if (k & 1) {
      contraction(index, saved0 + e_offset(t, K, k - 1), scratch1, dcores, grad_desc(k));
      contraction(index, scratch1, cores, scratch0, back_desc(k));
    } else {
      contraction(index, saved1 + e_offset(t, K, k - 1), scratch0, dcores, grad_desc(k));
      contraction(index, scratch0, cores, scratch1, back_desc(k));
    }
  }
  ContractDesc c = grad_desc(2);
  c.a_index = 0;
  ContractDesc g = back_desc(2);
  g.c_index = 0;
  g.accumulate = true;
  if (d == 2) {
    contraction(index, cores, dE, dcores, c);
    contraction(index, dE, cores, dcores, g);
  } else {  // dE_2 in scratch0
    contraction(index, cores, scratch0, dcores, c);
    contraction(index, scratch0, cores, dcores, g);
  }
}
}  // namespace ttsim_hls
