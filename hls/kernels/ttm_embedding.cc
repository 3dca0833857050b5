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

bool ttm_last_transposed(const TtmDims& t) {
  return t.d >= 3 && ttsim_spec::lanes_along_rows(t.epre(t.d - 1), t.e[t.d - 1] * t.r[t.d]);
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
int ttm_copy_words(const TtmDims& t) { return t.d >= 2 ? t.core_words(1) : 0; }
int ttm_scratch_words(const TtmDims& t, int K, int parity) {
  // dE_k (k = 2..d-1) in scratch[k mod 2] (ttm_backward). When the last step runs
  // transposed (ttm_last_transposed): the forward's E_{d-1} and Eᵀ in scratch1, the
  // backward's dEᵀ in scratch[(d−1) mod 2] and dE_{d-1}ᵀ in scratch[d mod 2].
  const int p = parity & 1;
  int mx = 0;
  for (int k = 2; k < t.d; ++k) {
    if ((k & 1) == p) mx = e_words(t, K, k) > mx ? e_words(t, K, k) : mx;
  }
  if (ttm_last_transposed(t)) {
    const int last = e_words(t, K, t.d - 1), dim = K * t.dim();
    auto at_least = [&](int w) { mx = w > mx ? w : mx; };
    if (p == 1) {
      at_least(last);
      at_least(dim);
    }
    if (p == ((t.d - 1) & 1)) at_least(dim);
    if (p == (t.d & 1)) at_least(last);
  }
  return mx;
}
void set_core_by_add(TtmDims& t, int lanes, int banks) {
  for (int k = 0; k <= kMaxTtmFactors; ++k) t.core_by_add[k] = false;
  const int last = ttm_last_transposed(t) ? t.d - 1 : t.d;
  for (int k = 2; k <= last && k <= kMaxTtmFactors; ++k) {
    t.core_by_add[k] = ttsim_spec::accumulate_by_add(lanes, banks);
  }
}
int ttm_part_words(const TtmDims& t) {
  int mx = 0;
  for (int k = 2; k <= t.d && k <= kMaxTtmFactors; ++k) {
    const int w = t.r[k - 1] * t.e[k - 1] * t.r[k];
    if (t.core_by_add[k] && w > mx) mx = w;
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

namespace {
/// Step k (2..d) in the normal form: E_k(b) = E_{k-1}(b)·S_k(b), rows Epre(k-1), inner
/// r_{k-1}, cols e_k·r_k (lanes along e_k·r_k, contiguous in S_k and E_k).
ContractDesc lookup_desc(const TtmDims& t, int K, int k) {
  const int rp = t.r[k - 1], ep = t.epre(k - 1), cols = t.e[k - 1] * t.r[k];
  ContractDesc c;
  c.batch = K; c.rows = ep; c.inner = rp; c.cols = cols;
  c.a_b = ep * rp;
  c.a_i = rp; c.a_p = 1;
  c.b_index = (k - 1) * K;
  c.b_p = t.v[k - 1] * cols; c.b_j = 1;
  c.c_b = ep * cols; c.c_i = cols; c.c_j = 1;
  return c;
}
/// dS_k(b) = E_{k-1}(b)ᵀ·dE_k(b), scatter-added into slice v_k of dG_k (k = 2..d; k = d
/// only when the last step is not transposed).
ContractDesc grad_core_desc(const TtmDims& t, int K, int k) {
  const int rp = t.r[k - 1], ep = t.epre(k - 1), cols = t.e[k - 1] * t.r[k];
  ContractDesc c;
  c.batch = K; c.rows = rp; c.inner = ep; c.cols = cols;
  c.a_b = ep * rp;
  c.a_i = 1; c.a_p = rp;
  c.b_b = ep * cols; c.b_p = cols; c.b_j = 1;
  c.c_index = (k - 1) * K; c.c_i = t.v[k - 1] * cols; c.c_j = 1;
  c.accumulate = true;
  return c;
}
/// dE_{k-1}(b) = dE_k(b)·S_k(b)ᵀ (k = 2..d, as grad_core_desc; for k = 2 the caller
/// scatters into dG_1).
ContractDesc grad_chain_desc(const TtmDims& t, int K, int k) {
  const int rp = t.r[k - 1], ep = t.epre(k - 1), cols = t.e[k - 1] * t.r[k];
  ContractDesc g;
  g.batch = K; g.rows = ep; g.inner = cols; g.cols = rp;
  g.a_b = ep * cols; g.a_i = cols; g.a_p = 1;
  g.b_index = (k - 1) * K; g.b_p = 1; g.b_j = t.v[k - 1] * cols;
  g.c_b = ep * rp; g.c_i = rp; g.c_j = 1;
  return g;
}

// The last step (k = d) runs transposed when ttm_last_transposed, with the lanes along the
// Epre(d-1) rows of E_{d-1} rather than the e_d·r_d columns of S_d (12 of 64 lanes for the
// reference model): E_{d-1} is kept transposed, token-interleaved — E_{d-1}ᵀ[p][b][i] at
// p·K·ep + b·ep + i (ep = Epre(d-1)) — and the step's output and its gradient pass through
// the same layout, by a transposed copy each (ttsim_transpose).
/// Eᵀ(b) = S_d(b)ᵀ·E_{d-1}ᵀ(b): rows e_d·r_d, inner r_{d-1}, cols ep; column form (lanes
/// along ep). Eᵀ at j·K·ep + b·ep + i.
ContractDesc last_lookup_desc(const TtmDims& t, int K) {
  const int d = t.d, rp = t.r[d - 1], ep = t.epre(d - 1), cd = t.e[d - 1] * t.r[d];
  ContractDesc c;
  c.batch = K; c.rows = cd; c.inner = rp; c.cols = ep;
  c.a_index = (d - 1) * K; c.a_i = 1; c.a_p = t.v[d - 1] * cd;
  c.b_b = ep; c.b_p = K * ep; c.b_j = 1;
  c.c_b = ep; c.c_i = K * ep; c.c_j = 1;
  return c;
}
/// dS_d(b) = E_{d-1}ᵀ(b)·dEᵀ(b)ᵀ: rows r_{d-1}, inner ep, cols e_d·r_d, dot form (lanes
/// along ep, contiguous in both), scatter-added into slice v_d of dG_d.
ContractDesc last_grad_core_desc(const TtmDims& t, int K) {
  const int d = t.d, rp = t.r[d - 1], ep = t.epre(d - 1), cd = t.e[d - 1] * t.r[d];
  ContractDesc c;
  c.batch = K; c.rows = rp; c.inner = ep; c.cols = cd;
  c.a_b = ep; c.a_i = K * ep; c.a_p = 1;
  c.b_b = ep; c.b_p = 1; c.b_j = K * ep;
  c.c_index = (d - 1) * K; c.c_i = t.v[d - 1] * cd; c.c_j = 1;
  c.accumulate = true;
  return c;
}
/// dE_{d-1}ᵀ(b) = S_d(b)·dEᵀ(b): rows r_{d-1}, inner e_d·r_d, cols ep; column form.
ContractDesc last_grad_chain_desc(const TtmDims& t, int K) {
  const int d = t.d, rp = t.r[d - 1], ep = t.epre(d - 1), cd = t.e[d - 1] * t.r[d];
  ContractDesc g;
  g.batch = K; g.rows = rp; g.inner = cd; g.cols = ep;
  g.a_index = (d - 1) * K; g.a_i = t.v[d - 1] * cd; g.a_p = 1;
  g.b_b = ep; g.b_p = K * ep; g.b_j = 1;
  g.c_b = ep; g.c_i = K * ep; g.c_j = 1;
  return g;
}
}  // namespace

void ttm_forward(const int* index, const TtmDims& t, int K, CRef cores, Ref E,
                 Ref saved0, Ref saved1, Ref copy, Ref scratch1) {
#pragma HLS INLINE
  // E_k = E_{k-1} · S_k (k = 2..d), S_k the per-token slice of core k (index table k − 1);
  // E_1 = S_1 is read by the k = 2 step from a copy of core 1 in `copy`
  // (table 0 offsets are relative to core 1, which is at offset 0 of the cores), made by
  // the elementwise unit's transposed copy of a one-column view (a plain copy), so that the
  // step reads its two operands from two arrays.
  // E_k (2 <= k < d) lives in saved[k mod 2]: each step reads one saved arena and writes
  // the other, one call site per direction, so no module argument is chosen between arrays
  // at run time. When ttm_last_transposed, E_{d-1} is instead written to scratch1 and copied
  // transposed into its saved slot, and the last step writes Eᵀ to scratch1, copied
  // transposed into E; otherwise E = E_{d-1}·S_d directly.
  const int d = t.d;
  const bool tl = ttm_last_transposed(t);
  ContractDesc first = lookup_desc(t, K, 2);
  first.a_index = 0;
  transpose(cores, copy, t.core_words(1), 1, 1, t.core_words(1));
  if (d == 2) {
    contraction(index, copy, cores, E, first);
    return;
  }
  if (d == 3 && tl) {
    contraction(index, copy, cores, scratch1, first);
  } else {
    contraction(index, copy, cores, saved0 + e_offset(t, K, 2), first);
  }
  for (int k = 3; k < (tl ? d - 1 : d); ++k) {
    if (k & 1) {
      contraction(index, saved0 + e_offset(t, K, k - 1), cores, saved1 + e_offset(t, K, k), lookup_desc(t, K, k));
    } else {
      contraction(index, saved1 + e_offset(t, K, k - 1), cores, saved0 + e_offset(t, K, k), lookup_desc(t, K, k));
    }
  }
  if (!tl) {
    if ((d - 1) & 1) {
      contraction(index, saved1 + e_offset(t, K, d - 1), cores, E, lookup_desc(t, K, d));
    } else {
      contraction(index, saved0 + e_offset(t, K, d - 1), cores, E, lookup_desc(t, K, d));
    }
    return;
  }
  if (d >= 4) {
    if ((d - 2) & 1) {
      contraction(index, saved1 + e_offset(t, K, d - 2), cores, scratch1, lookup_desc(t, K, d - 1));
    } else {
      contraction(index, saved0 + e_offset(t, K, d - 2), cores, scratch1, lookup_desc(t, K, d - 1));
    }
  }
  const int ep = t.epre(d - 1), rp = t.r[d - 1], cd = t.e[d - 1] * t.r[d];
  const ContractDesc last = last_lookup_desc(t, K);
  if ((d - 1) & 1) {
    transpose(scratch1, saved1 + e_offset(t, K, d - 1), K * ep, rp, rp, K * ep);
    contraction(index, cores, saved1 + e_offset(t, K, d - 1), scratch1, last);
  } else {
    transpose(scratch1, saved0 + e_offset(t, K, d - 1), K * ep, rp, rp, K * ep);
    contraction(index, cores, saved0 + e_offset(t, K, d - 1), scratch1, last);
  }
  transpose(scratch1, E, cd, K * ep, K * ep, cd);
}

namespace {
/// dS_k = E_{k−1}ᵀ·dE_k scatter-added into dG_k (`c`: grad_core_desc, C through c_index):
/// one accumulating call, or with t.core_by_add[k] token by token — the token's product into
/// `part` (the plain column form) and an add of it into its slice of dG_k (the slice offset
/// from the index array, as c_index gives the contraction; ttsim_spec::accumulate_by_add).
void scatter_core_grad(const int* index, const TtmDims& t, int K, int k, CRef A, CRef B, Ref dcores, Ref part,
                       const ContractDesc& c) {
#pragma HLS INLINE
  if (!t.core_by_add[k]) {
    contraction(index, A, B, dcores, c);
    return;
  }
  ContractDesc p = c;
  p.batch = 1;
  p.accumulate = false;
  p.c_index = -1;
  p.c_b = 0;
  p.c_i = c.cols;
scatter_tokens:
  for (int b = 0; b < K; ++b) {
    if (c.a_index >= 0) p.a_index = c.a_index + b;
    contraction(index, c.a_index >= 0 ? A : A + b * c.a_b, B + b * c.b_b, part, p);
    add_accumulate(part, dcores + index[c.c_index + b], c.rows, c.cols, c.cols, c.c_i);
  }
}
}  // namespace

void ttm_backward(const int* index, const TtmDims& t, int K, CRef cores, CRef saved0, CRef saved1,
                  CRef dE, Ref dcores, Ref scratch0, Ref scratch1, Ref part) {
#pragma HLS INLINE
  // k = d (d >= 3): on the transposed layout when ttm_last_transposed (see
  // last_lookup_desc) — dEᵀ in scratch[(d−1) mod 2], dS_d scatter-added into dG_d,
  // dE_{d-1}ᵀ in scratch[d mod 2], copied transposed into dE_{d-1} in scratch[(d−1) mod 2]
  // — otherwise as the other steps, from dE. Then k = d-1..3 on the saved
  // arenas and the chain arenas (dE_{k-1} in scratch[(k−1) mod 2]); the k = 2 step (E_1 =
  // S_1 read from core 1, dE_1 = dS_1 scattered into dG_1) is its own pair of call sites, so
  // each call binds fixed arrays (see ttm_forward).
  const int d = t.d;
  if (d >= 3 && !ttm_last_transposed(t)) {
    if ((d - 1) & 1) {
      scatter_core_grad(index, t, K, d, saved1 + e_offset(t, K, d - 1), dE, dcores, part, grad_core_desc(t, K, d));
      contraction(index, dE, cores, scratch1, grad_chain_desc(t, K, d));
    } else {
      scatter_core_grad(index, t, K, d, saved0 + e_offset(t, K, d - 1), dE, dcores, part, grad_core_desc(t, K, d));
      contraction(index, dE, cores, scratch0, grad_chain_desc(t, K, d));
    }
  } else if (d >= 3) {
    const int ep = t.epre(d - 1), rp = t.r[d - 1], cd = t.e[d - 1] * t.r[d];
    const ContractDesc c = last_grad_core_desc(t, K), g = last_grad_chain_desc(t, K);
    if ((d - 1) & 1) {
      transpose(dE, scratch1, K * ep, cd, cd, K * ep);
      contraction(index, saved1 + e_offset(t, K, d - 1), scratch1, dcores, c);
      contraction(index, cores, scratch1, scratch0, g);
      transpose(scratch0, scratch1, rp, K * ep, K * ep, rp);
    } else {
      transpose(dE, scratch0, K * ep, cd, cd, K * ep);
      contraction(index, saved0 + e_offset(t, K, d - 1), scratch0, dcores, c);
      contraction(index, cores, scratch0, scratch1, g);
      transpose(scratch1, scratch0, rp, K * ep, K * ep, rp);
    }
  }
  for (int k = d - 1; k >= 3; --k) {  // dE_k in scratch[k mod 2]
    if (k & 1) {
      scatter_core_grad(index, t, K, k, saved0 + e_offset(t, K, k - 1), scratch1, dcores, part,
                        grad_core_desc(t, K, k));
      contraction(index, scratch1, cores, scratch0, grad_chain_desc(t, K, k));
    } else {
      scatter_core_grad(index, t, K, k, saved1 + e_offset(t, K, k - 1), scratch0, dcores, part,
                        grad_core_desc(t, K, k));
      contraction(index, scratch0, cores, scratch1, grad_chain_desc(t, K, k));
    }
  }
  ContractDesc c = grad_core_desc(t, K, 2);
  c.a_index = 0;
  ContractDesc g = grad_chain_desc(t, K, 2);
  g.c_index = 0;
  g.accumulate = true;
  if (d == 2) {
    scatter_core_grad(index, t, K, 2, cores, dE, dcores, part, c);
    contraction(index, dE, cores, dcores, g);
  } else {  // dE_2 in scratch0
    scatter_core_grad(index, t, K, 2, cores, scratch0, dcores, part, c);
    contraction(index, scratch0, cores, dcores, g);
  }
}
}  // namespace ttsim_hls
