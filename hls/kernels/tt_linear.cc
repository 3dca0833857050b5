#include "hls/kernels/tt_linear.h"

#include "hls/kernels/modules.h"

namespace ttsim_hls {

int TtDims::M() const { return mpre(d); }
int TtDims::N() const { return npre(e); }
int TtDims::core_offset(int k) const {
  int off = 0;
  for (int c = 1; c < k; ++c) off += core_words(c);
  return off;
}
int TtDims::mpre(int k) const {
  int p = 1;
  for (int i = 0; i < k; ++i) p *= m[i];
  return p;
}
int TtDims::msuf(int k) const {
  int p = 1;
  for (int i = k; i < d; ++i) p *= m[i];
  return p;
}
int TtDims::npre(int j) const {
  int p = 1;
  for (int i = 0; i < j; ++i) p *= n[i];
  return p;
}
int TtDims::nsuf(int j) const {
  int p = 1;
  for (int i = j; i < e; ++i) p *= n[i];
  return p;
}

bool btt_right_end_transposed(const TtDims& t) {
  return t.e >= 2 && ttsim_spec::lanes_along_rows(t.r[t.d + t.e - 2] * t.n[t.e - 2], t.n[t.e - 1]);
}

namespace {

// R_j has shape r_{d+j-1} × Nsuf(j-1).
int r_words(const TtDims& t, int j) { return t.r[t.d + j - 1] * t.nsuf(j - 1); }
// Rows of the rank-1 end of the right chain: R_{e-1} is (r_{d+e-2}·n_{e-1}) × n_e.
int right_end_rows(const TtDims& t) { return t.r[t.d + t.e - 2] * t.n[t.e - 2]; }
// Words of the TT-flow intermediate T_s (1 <= s <= d+e).
int tt_t_words(const TtDims& t, int K, int s) {
  return s <= t.d ? K * t.msuf(s) * t.r[s] : K * t.npre(s - t.d) * t.r[s];
}

// Placement of the BTT merges — the weight-only intermediates the backward reads — in the
// two saved arenas (model_step.h): L_k (k = 2..d−1) in saved[(d−k) mod 2], so L_{d−1} is in
// saved1; L_dᵀ (r_d × M, what the backward keeps of L_d) in saved0; R_j (j = 1..e−1) in
// saved[(j−1) mod 2], so R_1 is in saved0. A merge step reads one arena and writes the
// other; the last left merge writes L_d into chain1 (btt_scratch), whence its transpose
// goes to saved0. Z (the one input-dependent intermediate) has a slot of its own.
struct BttSaved {
  int lt = 0;                     ///< offset of L_dᵀ
  int l[kMaxTtFactors + 1] = {};  ///< l[k]: offset of L_k (k < d)
  int r[kMaxTtFactors] = {};      ///< r[j]: offset of R_j
  int words[2] = {0, 0};
};
BttSaved btt_saved(const TtDims& t, int /*K*/) {
  BttSaved b;
  for (int k = 2; k < t.d; ++k) {
    const int p = (t.d - k) & 1;
    b.l[k] = b.words[p];
    b.words[p] += t.mpre(k) * t.r[k];
  }
  b.lt = b.words[0];
  b.words[0] += t.M() * t.r[t.d];
  for (int j = 1; j < t.e; ++j) {
    const int p = (j - 1) & 1;
    b.r[j] = b.words[p];
    b.words[p] += r_words(t, j);
  }
  return b;
}

// Placement of the BTT temporaries in the two chain arenas: dZ in chain0; dL_dᵀ in chain1
// (where L_d passes in the forward, between its merge and its transpose); dL_k in
// chain[(d−k) mod 2] (dL_d in chain0); dR_j in chain[(j−1) mod 2].
// When btt_right_end_transposed, the rank-1 end of the right chain (j = e−1: R_{e-1} =
// G_{d+e-1}·G_{d+e} and its two gradients, n_e columns) runs transposed, its lanes along the
// r_{d+e-2}·n_{e-1} rows (btt_right_merges, btt_right_chain): R_{e-1}ᵀ passes through chain1 after L_d in
// the forward; the backward keeps dR_{e-1}ᵀ at the start of chain[(e−1) mod 2] and
// G_{d+e-1}ᵀ, then dG_{d+e-1}ᵀ, at the start of chain[e mod 2] (every other chain
// temporary of the layer is dead by then).
struct BttScratch {
  /// The transposed copies of the first core of each merge chain (G_1ᵀ, G_{d+e-1}ᵀ), at the
  /// start of chain0 while the merges run (before the backward's dZ and dL / dR there).
  int copy_left = 0, copy_right = 0;
  int dz = 0;
  int dlt = 0;  ///< offset of dL_dᵀ (and of L_d in the forward)
  int rt = 0;   ///< offset of R_{e-1}ᵀ in chain1 (forward, after L_d)
  int dl[kMaxTtFactors + 1] = {};
  int dr[kMaxTtFactors] = {};
  int words[2] = {0, 0};
};
BttScratch btt_scratch(const TtDims& t, int K) {
  BttScratch b;
  b.dz = b.words[0];
  b.words[0] += K * t.r[t.d];
  b.copy_left = 0;
  b.copy_right = t.d >= 2 ? t.m[0] * t.r[1] : 0;
  const int copies = b.copy_right + (t.e >= 2 ? t.r[t.d + t.e - 2] * t.n[t.e - 2] * t.r[t.d + t.e - 1] : 0);
  b.dlt = b.words[1];
  b.words[1] += t.M() * t.r[t.d];
  for (int k = 2; k <= t.d; ++k) {
    const int p = (t.d - k) & 1;
    b.dl[k] = b.words[p];
    b.words[p] += t.mpre(k) * t.r[k];
  }
  for (int j = 1; j < t.e; ++j) {
    const int p = (j - 1) & 1;
    b.dr[j] = b.words[p];
    b.words[p] += r_words(t, j);
  }
  b.words[0] = b.words[0] > copies ? b.words[0] : copies;
  if (btt_right_end_transposed(t)) {
    b.rt = t.M() * t.r[t.d];
    const int rt_end = b.rt + r_words(t, t.e - 1), core = t.core_words(t.d + t.e - 1);
    const int end = r_words(t, t.e - 1) > core ? r_words(t, t.e - 1) : core;
    b.words[1] = b.words[1] > rt_end ? b.words[1] : rt_end;
    for (int p = 0; p < 2; ++p) b.words[p] = b.words[p] > end ? b.words[p] : end;
  }
  return b;
}

// TT-flow intermediates: T_s (s = 1..d+e−1) in saved[s mod 2].
int tt_t_offset(const TtDims& t, int K, int s) {
  int off = 0;
  for (int c = s - 2; c >= 1; c -= 2) off += tt_t_words(t, K, c);
  return off;
}
int tt_largest_t(const TtDims& t, int K) {
  int mx = 0;
  for (int s = 1; s < t.d + t.e; ++s) mx = tt_t_words(t, K, s) > mx ? tt_t_words(t, K, s) : mx;
  return mx;
}

}  // namespace

int btt_saved_words(const TtDims& t, int K, int parity) { return btt_saved(t, K).words[parity & 1]; }
int btt_scratch_words(const TtDims& t, int K, int parity) { return btt_scratch(t, K).words[parity & 1]; }
int tt_saved_words(const TtDims& t, int K, int parity) {
  int w = 0;
  for (int s = 1; s < t.d + t.e; ++s) {
    if ((s & 1) == (parity & 1)) w += tt_t_words(t, K, s);
  }
  return w;
}
int tt_scratch_words(const TtDims& t, int K, int /*parity*/) { return tt_largest_t(t, K); }

namespace {

/// The A operand of the first merge of a chain, G (rows × inner, a core in param_mem),
/// copied transposed to `copy` (chain0: btt_scratch) by the elementwise unit, so that the
/// merge reads its two operands from two arrays; returns the merge's descriptor `d` reading
/// A from that copy (a_i = 1, a_p = rows: the column form reads A one word per iteration,
/// at any strides, so the merge's loop and trip count are unchanged).
ContractDesc from_transposed_copy(CRef G, Ref copy, ContractDesc d) {
#pragma HLS INLINE
  transpose(G, copy, d.rows, d.inner, d.inner, d.rows);
  d.a_i = 1;
  d.a_p = d.rows;
  return d;
}

/// BTT left merge into L_d: L_2 = G_1 · G_2 (G_1 from its transposed copy in chain0),
/// L_k = L_{k-1} · G_k (k = 3..d), the last into `ld` (chain1's dL_dᵀ slot), the others
/// alternating between the saved arenas.
void btt_left_merges(const int* index, const TtDims& t, const BttSaved& sv, CRef cores, Ref saved0, Ref saved1,
                     Ref ld, Ref copy) {
#pragma HLS INLINE
  const int d = t.d;
  auto left = [&](int k) { return plain_desc(t.mpre(k - 1), t.r[k - 1], t.m[k - 1] * t.r[k]); };
  if (d >= 2) {
    const ContractDesc first = from_transposed_copy(cores + t.core_offset(1), copy, left(2));
    if (d == 2) {
      contraction(index, copy, cores + t.core_offset(2), ld, first);
    } else if ((d - 2) & 1) {
      contraction(index, copy, cores + t.core_offset(2), saved1 + sv.l[2], first);
    } else {
      contraction(index, copy, cores + t.core_offset(2), saved0 + sv.l[2], first);
    }
  }
  for (int k = 3; k < d; ++k) {
    if ((d - k) & 1) {
      contraction(index, saved0 + sv.l[k - 1], cores + t.core_offset(k), saved1 + sv.l[k], left(k));
    } else {
      contraction(index, saved1 + sv.l[k - 1], cores + t.core_offset(k), saved0 + sv.l[k], left(k));
    }
  }
  if (d >= 3) contraction(index, saved1 + sv.l[d - 1], cores + t.core_offset(d), ld, left(d));
}

/// BTT right merge: R_{e-1} = G_{d+e-1} · G_{d+e} (G_{d+e-1} from its transposed copy in
/// chain0), when btt_right_end_transposed computed transposed — R_{e-1}ᵀ =
/// G_{d+e}ᵀ·G_{d+e-1}ᵀ (rows n_e, inner r_{d+e-1}, cols r_{d+e-2}·n_{e-1}: column form, lanes
/// along the long side) into `rt` (chain1), then copied transposed into its saved slot;
/// R_j = G_{d+j} · R_{j+1}.
void btt_right_merges(const int* index, const TtDims& t, const BttSaved& sv, CRef cores, Ref saved0, Ref saved1,
                      Ref copy, Ref rt) {
#pragma HLS INLINE
  const int d = t.d, e = t.e;
  auto right = [&](int j) { return plain_desc(t.r[d + j - 1] * t.n[j - 1], t.r[d + j], t.nsuf(j)); };
  if (e >= 2 && !right_end_transposed(t)) {
    const ContractDesc first = from_transposed_copy(cores + t.core_offset(d + e - 1), copy, right(e - 1));
    if ((e - 2) & 1) {
      contraction(index, copy, cores + t.core_offset(d + e), saved1 + sv.r[e - 1], first);
    } else {
      contraction(index, copy, cores + t.core_offset(d + e), saved0 + sv.r[e - 1], first);
    }
  } else if (e >= 2) {
    const int rows = right_end_rows(t), rj = t.r[d + e - 1], ne = t.n[e - 1];
    ContractDesc first = plain_desc(ne, rj, rows);  // R_{e-1}ᵀ = G_{d+e}ᵀ · G_{d+e-1}ᵀ
    first.a_i = 1; first.a_p = ne;
    transpose(cores + t.core_offset(d + e - 1), copy, rows, rj, rj, rows);
    contraction(index, cores + t.core_offset(d + e), copy, rt, first);
    if ((e - 2) & 1) {
      transpose(rt, saved1 + sv.r[e - 1], ne, rows, rows, ne);
    } else {
      transpose(rt, saved0 + sv.r[e - 1], ne, rows, rows, ne);
    }
  }
  for (int j = e - 2; j >= 1; --j) {
    if (j & 1) {
      contraction(index, cores + t.core_offset(d + j), saved1 + sv.r[j + 1], saved0 + sv.r[j], right(j));
    } else {
      contraction(index, cores + t.core_offset(d + j), saved0 + sv.r[j + 1], saved1 + sv.r[j], right(j));
    }
  }
}

}  // namespace

void btt_remerge(const int* index, const TtDims& t, int K, CRef cores, Ref saved0, Ref saved1, Ref scratch0,
                 Ref scratch1) {
#pragma HLS INLINE
  const int d = t.d, M = t.M(), rd = t.r[d];
  const BttSaved sv = btt_saved(t, K);
  const BttScratch sc = btt_scratch(t, K);
  // Every call site binds fixed arrays: a chain step that reads saved0 and writes saved1 is
  // a different call site from one that reads saved1 and writes saved0, and the steps whose
  // operand is a core (parameters) instead of an intermediate are peeled, so no module
  // argument is chosen between arrays at run time.
  btt_left_merges(index, t, sv, cores, saved0, saved1, scratch1 + sc.dlt, scratch0 + sc.copy_left);
  btt_right_merges(index, t, sv, cores, saved0, saved1, scratch0 + sc.copy_right, scratch1 + sc.rt);
  // L_dᵀ (r_d × M) into saved0 from L_d (chain1; G_1 when d = 1): the products on L then
  // run their lanes along M.
  Ref Lt = saved0 + sv.lt;
  if (d == 1) {
    transpose(cores + t.core_offset(1), Lt, M, rd, rd, M);
  } else {
    transpose(scratch1 + sc.dlt, Lt, M, rd, rd, M);
  }
}

void btt_forward(const int* index, const TtDims& t, int K, CRef X, CRef cores, CRef bias, Ref Y, Ref saved0,
                 Ref saved1, Ref Z, Ref scratch0, Ref scratch1) {
#pragma HLS INLINE
  const int d = t.d, e = t.e, M = t.M(), rd = t.r[d];
  const BttSaved sv = btt_saved(t, K);
  btt_remerge(index, t, K, cores, saved0, saved1, scratch0, scratch1);
  Ref Lt = saved0 + sv.lt;
  // Z = X · L_d in the dot form (X and L_dᵀ contiguous along M), Y = Z · R_1 (R_1 = G_{d+1}
  // when e = 1).
  ContractDesc xl = plain_desc(K, M, rd);
  xl.b_p = 1; xl.b_j = M;
  contraction(index, X, Lt, Z, xl);
  if (e == 1) {
    contraction(index, Z, cores + t.core_offset(d + 1), Y, plain_desc(K, rd, t.N()));
  } else {
    contraction(index, Z, saved0 + sv.r[1], Y, plain_desc(K, rd, t.N()));
  }
  if (bias) add_accumulate(bias, Y, K, t.N(), 0, t.N());  // Y += b: one in-out argument
}

namespace {

/// The products on dY and dZ: dZ = dY·R_1ᵀ, dX (+)= dZ·L_d (column form along M, from L_dᵀ;
/// accumulated through dx_part and an add when accumulate_dx and dx_by_add),
/// dR_1 = Zᵀ·dY, dL_dᵀ = dZᵀ·X (column form along M) and dL_d = its transpose (dG_1 when
/// d = 1; chain0 otherwise).
void btt_backward_products(const int* index, const TtDims& t, int K, CRef X, CRef dY, CRef cores, CRef saved0,
                           CRef Z, Ref dX, bool accumulate_dx, bool dx_by_add, Ref dx_part, Ref dcores,
                           Ref scratch0, Ref scratch1) {
#pragma HLS INLINE
  const int d = t.d, e = t.e, M = t.M(), N = t.N(), rd = t.r[d];
  const BttSaved sv = btt_saved(t, K);
  const BttScratch sc = btt_scratch(t, K);
  Ref dZ = scratch0 + sc.dz;
  ContractDesc c = plain_desc(K, N, rd);  // dZ = dY·R_1ᵀ (K, N, r_d)
  c.b_p = 1; c.b_j = N;
  if (e == 1) {
    contraction(index, dY, cores + t.core_offset(d + 1), dZ, c);
  } else {
    contraction(index, dY, saved0 + sv.r[1], dZ, c);
  }
  if (dX) {
    c = plain_desc(K, rd, M);  // dX = dZ·L_dᵀ (K, r_d, M)
    if (accumulate_dx && dx_by_add) {
      // dX += the product through dx_part: the product at the plain column form's II,
      // the add at the add unit's (ttsim_spec::accumulate_by_add).
      contraction(index, dZ, saved0 + sv.lt, dx_part, c);
      add_accumulate(dx_part, dX, K, M, M, M);
    } else {
      c.accumulate = accumulate_dx;
      contraction(index, dZ, saved0 + sv.lt, dX, c);
    }
  }
  c = plain_desc(rd, K, N);  // dR_1 = Zᵀ·dY (r_d, K, N)
  c.a_i = 1; c.a_p = rd;
  if (e == 1) {
    contraction(index, Z, dY, dcores + t.core_offset(d + 1), c);
  } else {
    contraction(index, Z, dY, scratch0 + sc.dr[1], c);
  }
  c = plain_desc(rd, K, M);  // dL_dᵀ = dZᵀ·X (r_d, K, M)
  c.a_i = 1; c.a_p = rd;
  contraction(index, dZ, X, scratch1 + sc.dlt, c);
  if (d == 1) {
    transpose(scratch1 + sc.dlt, dcores + t.core_offset(1), rd, M, M, rd);
  } else {
    transpose(scratch1 + sc.dlt, scratch0 + sc.dl[d], rd, M, M, rd);
  }
}

/// Left chain, k = d..3 (dL_k in chain[(d−k) mod 2], L_{k-1} and dL_{k-1} in the arenas
/// of parity (d−k+1) mod 2), then k = 2 (L_1 = G_1, dL_1 = dG_1).
void btt_left_chain(const int* index, const TtDims& t, const BttSaved& sv, const BttScratch& sc, CRef cores,
                    CRef saved0, CRef saved1, Ref dcores, Ref scratch0, Ref scratch1) {
#pragma HLS INLINE
  const int d = t.d;
  for (int k = d; k >= 3; --k) {
    const int rp = t.r[k - 1], cols = t.m[k - 1] * t.r[k], mp = t.mpre(k - 1);
    ContractDesc g = plain_desc(rp, mp, cols);  // dG_k = L_{k-1}ᵀ · dL_k
    g.a_i = 1; g.a_p = rp;
    ContractDesc h = plain_desc(mp, cols, rp);  // dL_{k-1} = dL_k · G_kᵀ
    h.b_p = 1; h.b_j = cols;
    if ((d - k + 1) & 1) {
      contraction(index, saved1 + sv.l[k - 1], scratch0 + sc.dl[k], dcores + t.core_offset(k), g);
      contraction(index, scratch0 + sc.dl[k], cores + t.core_offset(k), scratch1 + sc.dl[k - 1], h);
    } else {
      contraction(index, saved0 + sv.l[k - 1], scratch1 + sc.dl[k], dcores + t.core_offset(k), g);
      contraction(index, scratch1 + sc.dl[k], cores + t.core_offset(k), scratch0 + sc.dl[k - 1], h);
    }
  }
  if (d >= 2) {
    const int rp = t.r[1], cols = t.m[1] * t.r[2], mp = t.mpre(1);
    ContractDesc g = plain_desc(rp, mp, cols);  // dG_2 = G_1ᵀ · dL_2
    g.a_i = 1; g.a_p = rp;
    ContractDesc h = plain_desc(mp, cols, rp);  // dG_1 = dL_2 · G_2ᵀ
    h.b_p = 1; h.b_j = cols;
    if ((d - 2) & 1) {
      contraction(index, cores + t.core_offset(1), scratch1 + sc.dl[2], dcores + t.core_offset(2), g);
      contraction(index, scratch1 + sc.dl[2], cores + t.core_offset(2), dcores + t.core_offset(1), h);
    } else {
      contraction(index, cores + t.core_offset(1), scratch0 + sc.dl[2], dcores + t.core_offset(2), g);
      contraction(index, scratch0 + sc.dl[2], cores + t.core_offset(2), dcores + t.core_offset(1), h);
    }
  }
}

/// Right chain, j = 1..e-2 (dR_j in scratch[(j−1) mod 2], R_{j+1} and dR_{j+1} in the
/// arenas of parity j mod 2), then j = e-1 (R_e = G_{d+e}, dR_e = dG_{d+e}; on transposed
/// operands when btt_right_end_transposed).
void btt_right_chain(const int* index, const TtDims& t, const BttSaved& sv, const BttScratch& sc, CRef cores,
                     CRef saved0, CRef saved1, Ref dcores, Ref scratch0, Ref scratch1) {
#pragma HLS INLINE
  const int d = t.d, e = t.e;
  for (int j = 1; j < e - 1; ++j) {
    const int rows = t.r[d + j - 1] * t.n[j - 1], inner = t.nsuf(j), rj = t.r[d + j];
    ContractDesc g = plain_desc(rows, inner, rj);  // dG_{d+j} = dR_j · R_{j+1}ᵀ
    g.b_p = 1; g.b_j = inner;
    ContractDesc h = plain_desc(rj, rows, inner);  // dR_{j+1} = G_{d+j}ᵀ · dR_j
    h.a_i = 1; h.a_p = rj;
    if (j & 1) {
      contraction(index, scratch0 + sc.dr[j], saved1 + sv.r[j + 1], dcores + t.core_offset(d + j), g);
      contraction(index, cores + t.core_offset(d + j), scratch0 + sc.dr[j], scratch1 + sc.dr[j + 1], h);
    } else {
      contraction(index, scratch1 + sc.dr[j], saved0 + sv.r[j + 1], dcores + t.core_offset(d + j), g);
      contraction(index, cores + t.core_offset(d + j), scratch1 + sc.dr[j], scratch0 + sc.dr[j + 1], h);
    }
  }
  if (e >= 2 && !right_end_transposed(t)) {
    const int j = e - 1;
    const int rows = right_end_rows(t), inner = t.nsuf(j), rj = t.r[d + j];
    ContractDesc g = plain_desc(rows, inner, rj);  // dG_{d+e-1} = dR_{e-1} · G_{d+e}ᵀ
    g.b_p = 1; g.b_j = inner;
    ContractDesc h = plain_desc(rj, rows, inner);  // dG_{d+e} = G_{d+e-1}ᵀ · dR_{e-1}
    h.a_i = 1; h.a_p = rj;
    if ((j - 1) & 1) {
      contraction(index, scratch1 + sc.dr[j], cores + t.core_offset(d + e), dcores + t.core_offset(d + j), g);
      contraction(index, cores + t.core_offset(d + j), scratch1 + sc.dr[j], dcores + t.core_offset(d + e), h);
    } else {
      contraction(index, scratch0 + sc.dr[j], cores + t.core_offset(d + e), dcores + t.core_offset(d + j), g);
      contraction(index, cores + t.core_offset(d + j), scratch0 + sc.dr[j], dcores + t.core_offset(d + e), h);
    }
  } else if (e >= 2) {
    // j = e−1 on transposed operands (see BttScratch): dR_{e-1}ᵀ (n_e × rows) at the start of
    // chain[(e−1) mod 2], G_{d+e-1}ᵀ (r_{d+e-1} × rows) at the start of chain[e mod 2];
    // dG_{d+e} = G_{d+e-1}ᵀ·dR_{e-1} in the dot form (lanes along rows), dG_{d+e-1}ᵀ =
    // G_{d+e}·dR_{e-1}ᵀ in the column form (lanes along rows) over G_{d+e-1}ᵀ's words, then
    // copied transposed into dG_{d+e-1}.
    const int j = e - 1;
    const int rows = right_end_rows(t), ne = t.n[e - 1], rj = t.r[d + j];
    ContractDesc h = plain_desc(rj, rows, ne);  // dG_{d+e} = (G_{d+e-1}ᵀ)·(dR_{e-1}ᵀ)ᵀ
    h.b_p = 1; h.b_j = rows;
    const ContractDesc g = plain_desc(rj, ne, rows);  // dG_{d+e-1}ᵀ = G_{d+e} · dR_{e-1}ᵀ
    if ((j - 1) & 1) {  // dR_{e-1} in chain1
      transpose(scratch1 + sc.dr[j], scratch0, rows, ne, ne, rows);
      transpose(cores + t.core_offset(d + j), scratch1, rows, rj, rj, rows);
      contraction(index, scratch1, scratch0, dcores + t.core_offset(d + e), h);
      contraction(index, cores + t.core_offset(d + e), scratch0, scratch1, g);
      transpose(scratch1, dcores + t.core_offset(d + j), rj, rows, rows, rj);
    } else {
      transpose(scratch0 + sc.dr[j], scratch1, rows, ne, ne, rows);
      transpose(cores + t.core_offset(d + j), scratch0, rows, rj, rj, rows);
      contraction(index, scratch0, scratch1, dcores + t.core_offset(d + e), h);
      contraction(index, cores + t.core_offset(d + e), scratch1, scratch0, g);
      transpose(scratch0, dcores + t.core_offset(d + j), rj, rows, rows, rj);
    }
  }
}

}  // namespace

void btt_backward(const int* index, const TtDims& t, int K, CRef X, CRef dY, CRef cores,
                  CRef saved0, CRef saved1, CRef Z, Ref dX, bool accumulate_dx, bool dx_by_add,
                  Ref dx_part, Ref dcores, Ref dbias, Ref scratch0, Ref scratch1) {
#pragma HLS INLINE
  // Every call site binds fixed arrays (see btt_remerge). dL_1 is dG_1 and dR_e is
  // dG_{d+e}: written straight into the core gradients by their own calls.
  const BttSaved sv = btt_saved(t, K);
  const BttScratch sc = btt_scratch(t, K);
  btt_backward_products(index, t, K, X, dY, cores, saved0, Z, dX, accumulate_dx, dx_by_add, dx_part, dcores,
                        scratch0, scratch1);
  btt_left_chain(index, t, sv, sc, cores, saved0, saved1, dcores, scratch0, scratch1);
  btt_right_chain(index, t, sv, sc, cores, saved0, saved1, dcores, scratch0, scratch1);
  if (dbias) column_sum(dY, dbias, K, t.N(), t.N());
}

namespace {

/// Input-core step k of the TT forward: T_k = T_{k-1} ×_core G_k (K products batched).
ContractDesc tt_in_desc(const TtDims& t, int K, int k) {
  const int ms = t.msuf(k), inner = t.r[k - 1] * t.m[k - 1];
  ContractDesc c;
  c.batch = K; c.rows = ms; c.inner = inner; c.cols = t.r[k];
  c.a_b = inner * ms; c.a_i = 1; c.a_p = ms;
  c.b_p = t.r[k]; c.b_j = 1;
  c.c_b = t.r[k] * ms; c.c_i = 1; c.c_j = ms;
  return c;
}
/// Output-core step s = d + j: T_s = T_{s-1} · G_s.
ContractDesc tt_out_desc(const TtDims& t, int K, int s) {
  const int j = s - t.d;
  return plain_desc(K * t.npre(j - 1), t.r[s - 1], t.n[j - 1] * t.r[s]);
}

/// One step s of the TT backward: dG_s from T_{s-1} and dT_s, then dT_{s-1} into dnext
/// (when has_next; accumulated into when `acc`).
void tt_backward_step(const int* index, const TtDims& t, int K, int s, CRef Tprev, CRef dcur, CRef G, Ref dG,
                      Ref dnext, bool has_next, bool acc) {
#pragma HLS INLINE
  const int d = t.d;
  if (s > d) {
    const int j = s - d, rows = K * t.npre(j - 1), rp = t.r[s - 1], cols = t.n[j - 1] * t.r[s];
    ContractDesc c = plain_desc(rp, rows, cols);  // dG_s = T_{s-1}ᵀ · dT_s
    c.a_i = 1; c.a_p = rp;
    contraction(index, Tprev, dcur, dG, c);
    if (has_next) {
      c = plain_desc(rows, cols, rp);  // dT_{s-1} = dT_s · G_sᵀ
      c.b_p = 1; c.b_j = cols;
      c.accumulate = acc;
      contraction(index, dcur, G, dnext, c);
    }
  } else {
    const int k = s, ms = t.msuf(k), pm = t.r[k - 1] * t.m[k - 1], rk = t.r[k];
    ContractDesc c;  // dG_k = Σ_b T_{k-1}(b)ᵀ · dT_k(b)
    c.batch = K; c.rows = pm; c.inner = ms; c.cols = rk; c.reduce_batch = true;
    c.a_b = pm * ms; c.a_i = ms; c.a_p = 1;
    c.b_b = rk * ms; c.b_p = 1; c.b_j = ms;
    c.c_i = rk; c.c_j = 1;
    contraction(index, Tprev, dcur, dG, c);
    if (has_next) {
      ContractDesc g;  // dT_{k-1} = dT_k · G_kᵀ
      g.batch = K; g.rows = ms; g.inner = rk; g.cols = pm;
      g.a_b = rk * ms; g.a_i = 1; g.a_p = ms;
      g.b_p = 1; g.b_j = rk;
      g.c_b = pm * ms; g.c_i = 1; g.c_j = ms;
      g.accumulate = acc;
      contraction(index, dcur, G, dnext, g);
    }
  }
}

}  // namespace

void tt_forward(const int* index, const TtDims& t, int K, CRef X, CRef cores, CRef bias,
                Ref Y, Ref saved0, Ref saved1) {
#pragma HLS INLINE
  const int d = t.d, e = t.e, last = d + e;
  // T_s (s < d+e) in saved[s mod 2], T_{d+e} = Y; each step reads one saved arena and
  // writes the other, one call site per direction (see btt_forward).
  auto T0 = [&](int s) -> Ref { return saved0 + tt_t_offset(t, K, s); };
  auto T1 = [&](int s) -> Ref { return saved1 + tt_t_offset(t, K, s); };
  contraction(index, X, cores + t.core_offset(1), T1(1), tt_in_desc(t, K, 1));
  for (int k = 2; k <= d; ++k) {
    if (k & 1) {
      contraction(index, T0(k - 1), cores + t.core_offset(k), T1(k), tt_in_desc(t, K, k));
    } else {
      contraction(index, T1(k - 1), cores + t.core_offset(k), T0(k), tt_in_desc(t, K, k));
    }
  }
  for (int s = d + 1; s < last; ++s) {
    if (s & 1) {
      contraction(index, T0(s - 1), cores + t.core_offset(s), T1(s), tt_out_desc(t, K, s));
    } else {
      contraction(index, T1(s - 1), cores + t.core_offset(s), T0(s), tt_out_desc(t, K, s));
    }
  }
  if ((last - 1) & 1) {
    contraction(index, T1(last - 1), cores + t.core_offset(last), Y, tt_out_desc(t, K, last));
  } else {
    contraction(index, T0(last - 1), cores + t.core_offset(last), Y, tt_out_desc(t, K, last));
  }
  if (bias) add_accumulate(bias, Y, K, t.N(), 0, t.N());  // Y += b: one in-out argument
}

void tt_backward(const int* index, const TtDims& t, int K, CRef X, CRef dY, CRef cores,
                 CRef saved0, CRef saved1, Ref dX, bool accumulate_dx, Ref dcores, Ref dbias,
                 Ref scratch0, Ref scratch1) {
#pragma HLS INLINE
  const int d = t.d, e = t.e, last = d + e;
  // dT_s (1 <= s < d+e) in scratch[s mod 2], T_s in saved[s mod 2]: step s reads T_{s-1}
  // and dT_s and writes dT_{s-1}. The first step (dT_{d+e} = dY) and the last (T_0 = X,
  // dT_0 = dX) are their own call sites, the others one per parity of s.
  auto T0 = [&](int s) -> CRef { return saved0 + tt_t_offset(t, K, s); };
  auto T1 = [&](int s) -> CRef { return saved1 + tt_t_offset(t, K, s); };
  auto G = [&](int s) -> CRef { return cores + t.core_offset(s); };
  auto dG = [&](int s) -> Ref { return dcores + t.core_offset(s); };
  if ((last - 1) & 1) {
    tt_backward_step(index, t, K, last, T1(last - 1), dY, G(last), dG(last), scratch1, true, false);
  } else {
    tt_backward_step(index, t, K, last, T0(last - 1), dY, G(last), dG(last), scratch0, true, false);
  }
  for (int s = last - 1; s >= 2; --s) {
    if (s & 1) {
      tt_backward_step(index, t, K, s, T0(s - 1), scratch1, G(s), dG(s), scratch0, true, false);
    } else {
      tt_backward_step(index, t, K, s, T1(s - 1), scratch0, G(s), dG(s), scratch1, true, false);
    }
  }
  tt_backward_step(index, t, K, 1, X, scratch1, G(1), dG(1), dX, static_cast<bool>(dX), accumulate_dx);
  if (dbias) column_sum(dY, dbias, K, t.N(), t.N());
}

void dense_forward(const int* index, int M, int N, int K, CRef X, CRef W, CRef bias,
                   Ref Y, int ldy) {
#pragma HLS INLINE
  // Y = X·Wᵀ with W stored N × M: X rows and W rows are both contiguous along the
  // reduction, so the lanes run along M (dot form) whatever K and N are.
  ContractDesc c = plain_desc(K, M, N);
  c.b_p = 1; c.b_j = M;
  c.c_i = ldy;
  contraction(index, X, W, Y, c);
  if (bias) add_accumulate(bias, Y, K, N, 0, ldy);  // Y += b: one in-out argument
}

void dense_backward(const int* index, int M, int N, int K, CRef X, CRef dY, int ldy, CRef W,
                    Ref dX, bool accumulate_dx, bool dx_by_add, Ref dx_part, Ref dW, Ref dbias) {
#pragma HLS INLINE
  if (dX) {  // dX (+)= dY·W (K × N · N × M): lanes along M (column form)
    ContractDesc c = plain_desc(K, N, M);
    c.a_i = ldy;
    if (accumulate_dx && dx_by_add) {  // through dx_part and an add (ttsim_spec::accumulate_by_add)
      contraction(index, dY, W, dx_part, c);
      add_accumulate(dx_part, dX, K, M, M, M);
    } else {
      c.accumulate = accumulate_dx;
      contraction(index, dY, W, dX, c);
    }
  }
  // dW = dYᵀ·X (N × K · K × M): lanes along M (column form)
  ContractDesc c = plain_desc(N, K, M);
  c.a_i = 1; c.a_p = ldy;
  contraction(index, dY, X, dW, c);
  if (dbias) column_sum(dY, dbias, K, N, ldy);
}

}  // namespace ttsim_hls
