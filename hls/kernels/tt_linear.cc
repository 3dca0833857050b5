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

namespace {

// Offsets inside the BTT saved block: Z, then L_k (k = 2..d), then R_j (j = 1..e-1).
int btt_l_offset(const TtDims& t, int K, int k) {
  int off = K * t.r[t.d];
  for (int c = 2; c < k; ++c) off += t.mpre(c) * t.r[c];
  return off;
}
int btt_r_offset(const TtDims& t, int K, int j) {
  int off = btt_l_offset(t, K, t.d + 1);
  for (int c = 1; c < j; ++c) off += t.r[t.d + c - 1] * t.nsuf(c - 1);
  return off;
}
// R_j has shape r_{d+j-1} × Nsuf(j-1).
int r_words(const TtDims& t, int j) { return t.r[t.d + j - 1] * t.nsuf(j - 1); }

// Words of the TT-flow intermediate T_s (1 <= s <= d+e).
int tt_t_words(const TtDims& t, int K, int s) {
  return s <= t.d ? K * t.msuf(s) * t.r[s] : K * t.npre(s - t.d) * t.r[s];
}
int tt_t_offset(const TtDims& t, int K, int s) {
  int off = 0;
  for (int c = 1; c < s; ++c) off += tt_t_words(t, K, c);
  return off;
}

}  // namespace

int btt_saved_words(const TtDims& t, int K) { return btt_r_offset(t, K, t.e); }

int btt_scratch_words(const TtDims& t, int K) {
  int w = K * t.r[t.d];                                        // dZ
  for (int k = 2; k <= t.d; ++k) w += t.mpre(k) * t.r[k];      // dL_k
  for (int j = 1; j < t.e; ++j) w += r_words(t, j);            // dR_j
  return w;
}

int tt_saved_words(const TtDims& t, int K) { return tt_t_offset(t, K, t.d + t.e); }

int tt_scratch_words(const TtDims& t, int K) {
  int mx = 0;
  for (int s = 1; s < t.d + t.e; ++s) mx = tt_t_words(t, K, s) > mx ? tt_t_words(t, K, s) : mx;
  return 2 * mx;
}

void btt_forward(const int* index, const TtDims& t, int K, CRef X, CRef cores, CRef bias,
                 Ref Y, Ref saved) {
#pragma HLS INLINE
  const int d = t.d, e = t.e;
  // Every call site below binds fixed arrays: where an operand is a core (parameters) for
  // one step of a chain and a merged intermediate (activations) for the others, that step
  // is peeled, so no module argument is chosen between arrays at run time.
  // Left merge: L_1 = G_1; L_2 = G_1 · G_2; L_k = L_{k-1} · G_k.
  auto left = [&](int k) { return plain_desc(t.mpre(k - 1), t.r[k - 1], t.m[k - 1] * t.r[k]); };
  if (d >= 2) {
    contraction(index, cores + t.core_offset(1), cores + t.core_offset(2), saved + btt_l_offset(t, K, 2), left(2));
  }
  for (int k = 3; k <= d; ++k) {
    contraction(index, saved + btt_l_offset(t, K, k - 1), cores + t.core_offset(k), saved + btt_l_offset(t, K, k),
                left(k));
  }
  // Right merge: R_e = G_{d+e}; R_{e-1} = G_{d+e-1} · G_{d+e}; R_j = G_{d+j} · R_{j+1}.
  auto right = [&](int j) { return plain_desc(t.r[d + j - 1] * t.n[j - 1], t.r[d + j], t.nsuf(j)); };
  if (e >= 2) {
    contraction(index, cores + t.core_offset(d + e - 1), cores + t.core_offset(d + e),
                saved + btt_r_offset(t, K, e - 1), right(e - 1));
  }
  for (int j = e - 2; j >= 1; --j) {
    contraction(index, cores + t.core_offset(d + j), saved + btt_r_offset(t, K, j + 1), saved + btt_r_offset(t, K, j),
                right(j));
  }
  // Z = X · L_d (L_d = G_1 when d = 1), Y = Z · R_1 (R_1 = G_{d+1} when e = 1).
  Ref Z = saved;
  if (d == 1) {
    contraction(index, X, cores + t.core_offset(1), Z, plain_desc(K, t.M(), t.r[d]));
  } else {
    contraction(index, X, saved + btt_l_offset(t, K, d), Z, plain_desc(K, t.M(), t.r[d]));
  }
  if (e == 1) {
    contraction(index, Z, cores + t.core_offset(d + 1), Y, plain_desc(K, t.r[d], t.N()));
  } else {
    contraction(index, Z, saved + btt_r_offset(t, K, 1), Y, plain_desc(K, t.r[d], t.N()));
  }
  if (bias) add(Y, bias, Y, K, t.N(), t.N(), 0, t.N());
}

void btt_backward(const int* index, const TtDims& t, int K, CRef X, CRef dY, CRef cores,
                  CRef saved, Ref dX, bool accumulate_dx, Ref dcores,
                  Ref dbias, Ref scratch) {
#pragma HLS INLINE
  const int d = t.d, e = t.e, M = t.M(), N = t.N(), rd = t.r[d];
  CRef Z = saved;
  // Scratch: dZ, dL_k (k = 2..d), dR_j (j = 1..e-1). (dL_1 is dG_1 and dR_e is dG_{d+e}:
  // written straight into the core gradients by their own calls below.)
  Ref dZ = scratch;
  Ref dl_base = dZ + K * rd;
  auto dL = [&](int k) -> Ref {  // k >= 2
    Ref p = dl_base;
    for (int c = 2; c < k; ++c) p += t.mpre(c) * t.r[c];
    return p;
  };
  Ref dr_base = dL(d + 1);
  auto dR = [&](int j) -> Ref {  // j < e
    Ref p = dr_base;
    for (int c = 1; c < j; ++c) p += r_words(t, c);
    return p;
  };

  // Every call site binds fixed arrays (see btt_forward): the steps whose operand is a
  // core or a core gradient instead of an intermediate are separate calls.
  // Grad-input stage: dZ = dY·Rᵀ (K, N, r_d); dX = dZ·Lᵀ (K, r_d, M).
  ContractDesc c = plain_desc(K, N, rd);
  c.b_p = 1; c.b_j = N;
  if (e == 1) {
    contraction(index, dY, cores + t.core_offset(d + 1), dZ, c);
  } else {
    contraction(index, dY, saved + btt_r_offset(t, K, 1), dZ, c);
  }
  if (dX) {
    c = plain_desc(K, rd, M);
    c.b_p = 1; c.b_j = rd;
    c.accumulate = accumulate_dx;
    if (d == 1) {
      contraction(index, dZ, cores + t.core_offset(1), dX, c);
    } else {
      contraction(index, dZ, saved + btt_l_offset(t, K, d), dX, c);
    }
  }
  // Grad-weights stage: dR = Zᵀ·dY (r_d, K, N); dL = Xᵀ·dZ (M, K, r_d).
  c = plain_desc(rd, K, N);
  c.a_i = 1; c.a_p = rd;
  if (e == 1) {
    contraction(index, Z, dY, dcores + t.core_offset(d + 1), c);
  } else {
    contraction(index, Z, dY, dR(1), c);
  }
  c = plain_desc(M, K, rd);
  c.a_i = 1; c.a_p = M;
  if (d == 1) {
    contraction(index, X, dZ, dcores + t.core_offset(1), c);
  } else {
    contraction(index, X, dZ, dL(d), c);
  }
  // Left chain, k = d..3, then k = 2 (L_1 = G_1, dL_1 = dG_1).
  for (int k = d; k >= 3; --k) {
    const int rp = t.r[k - 1], cols = t.m[k - 1] * t.r[k], mp = t.mpre(k - 1);
    c = plain_desc(rp, mp, cols);  // dG_k = L_{k-1}ᵀ · dL_k
    c.a_i = 1; c.a_p = rp;
    contraction(index, saved + btt_l_offset(t, K, k - 1), dL(k), dcores + t.core_offset(k), c);
    c = plain_desc(mp, cols, rp);  // dL_{k-1} = dL_k · G_kᵀ
    c.b_p = 1; c.b_j = cols;
    contraction(index, dL(k), cores + t.core_offset(k), dL(k - 1), c);
  }
  if (d >= 2) {
    const int rp = t.r[1], cols = t.m[1] * t.r[2], mp = t.mpre(1);
    c = plain_desc(rp, mp, cols);  // dG_2 = G_1ᵀ · dL_2
    c.a_i = 1; c.a_p = rp;
    contraction(index, cores + t.core_offset(1), dL(2), dcores + t.core_offset(2), c);
    c = plain_desc(mp, cols, rp);  // dG_1 = dL_2 · G_2ᵀ
    c.b_p = 1; c.b_j = cols;
    contraction(index, dL(2), cores + t.core_offset(2), dcores + t.core_offset(1), c);
  }
  // Right chain, j = 1..e-2, then j = e-1 (R_e = G_{d+e}, dR_e = dG_{d+e}).
  for (int j = 1; j < e - 1; ++j) {
    const int rows = t.r[d + j - 1] * t.n[j - 1], inner = t.nsuf(j), rj = t.r[d + j];
    c = plain_desc(rows, inner, rj);  // dG_{d+j} = dR_j · R_{j+1}ᵀ
    c.b_p = 1; c.b_j = inner;
    contraction(index, dR(j), saved + btt_r_offset(t, K, j + 1), dcores + t.core_offset(d + j), c);
    c = plain_desc(rj, rows, inner);  // dR_{j+1} = G_{d+j}ᵀ · dR_j
    c.a_i = 1; c.a_p = rj;
    contraction(index, cores + t.core_offset(d + j), dR(j), dR(j + 1), c);
  }
  if (e >= 2) {
    const int j = e - 1;
    const int rows = t.r[d + j - 1] * t.n[j - 1], inner = t.nsuf(j), rj = t.r[d + j];
    c = plain_desc(rows, inner, rj);  // dG_{d+e-1} = dR_{e-1} · G_{d+e}ᵀ
    c.b_p = 1; c.b_j = inner;
    contraction(index, dR(j), cores + t.core_offset(d + e), dcores + t.core_offset(d + j), c);
    c = plain_desc(rj, rows, inner);  // dG_{d+e} = G_{d+e-1}ᵀ · dR_{e-1}
    c.a_i = 1; c.a_p = rj;
    contraction(index, cores + t.core_offset(d + j), dR(j), dcores + t.core_offset(d + e), c);
  }
  if (dbias) column_sum(dY, dbias, K, N, N);
}

void tt_forward(const int* index, const TtDims& t, int K, CRef X, CRef cores, CRef bias,
                Ref Y, Ref saved) {
#pragma HLS INLINE
  const int d = t.d, e = t.e;
  auto T = [&](int s) -> Ref { return s == d + e ? Y : saved + tt_t_offset(t, K, s); };
  for (int k = 1; k <= d; ++k) {
    CRef in = k == 1 ? X : CRef(T(k - 1));
    const int ms = t.msuf(k), inner = t.r[k - 1] * t.m[k - 1];
    ContractDesc c;
    c.batch = K; c.rows = ms; c.inner = inner; c.cols = t.r[k];
    c.a_b = inner * ms; c.a_i = 1; c.a_p = ms;
    c.b_p = t.r[k]; c.b_j = 1;
    c.c_b = t.r[k] * ms; c.c_i = 1; c.c_j = ms;
    contraction(index, in, cores + t.core_offset(k), T(k), c);
  }
  for (int j = 1; j <= e; ++j) {
    const int s = d + j;
    contraction(index, T(s - 1), cores + t.core_offset(s), T(s),
                      plain_desc(K * t.npre(j - 1), t.r[s - 1], t.n[j - 1] * t.r[s]));
  }
  if (bias) add(Y, bias, Y, K, t.N(), t.N(), 0, t.N());
}

void tt_backward(const int* index, const TtDims& t, int K, CRef X, CRef dY, CRef cores,
                 CRef saved, Ref dX, bool accumulate_dx, Ref dcores, Ref dbias,
                 Ref scratch) {
#pragma HLS INLINE
  const int d = t.d, e = t.e;
  const int half = tt_scratch_words(t, K) / 2;
  auto T = [&](int s) -> CRef { return s == 0 ? X : saved + tt_t_offset(t, K, s); };
  CRef dcur = dY;  // dT_s
  for (int s = d + e; s >= 1; --s) {
    Ref dnext = s - 1 == 0 ? dX : scratch + ((s & 1) ? 0 : half);  // dT_{s-1}
    Ref dG = dcores + t.core_offset(s);
    CRef G = cores + t.core_offset(s);
    if (s > d) {
      const int j = s - d, rows = K * t.npre(j - 1), rp = t.r[s - 1], cols = t.n[j - 1] * t.r[s];
      ContractDesc c = plain_desc(rp, rows, cols);  // dG_s = T_{s-1}ᵀ · dT_s
      c.a_i = 1; c.a_p = rp;
      contraction(index, T(s - 1), dcur, dG, c);
      c = plain_desc(rows, cols, rp);  // dT_{s-1} = dT_s · G_sᵀ
      c.b_p = 1; c.b_j = cols;
      contraction(index, dcur, G, dnext, c);
    } else {
      const int k = s, ms = t.msuf(k), pm = t.r[k - 1] * t.m[k - 1], rk = t.r[k];
      ContractDesc c;  // dG_k = Σ_b T_{k-1}(b)ᵀ · dT_k(b)
      c.batch = K; c.rows = pm; c.inner = ms; c.cols = rk; c.reduce_batch = true;
      c.a_b = pm * ms; c.a_i = ms; c.a_p = 1;
      c.b_b = rk * ms; c.b_p = 1; c.b_j = ms;
      c.c_i = rk; c.c_j = 1;
      contraction(index, T(k - 1), dcur, dG, c);
      if (dnext) {
        ContractDesc g;  // dT_{k-1} = dT_k · G_kᵀ
        g.batch = K; g.rows = ms; g.inner = rk; g.cols = pm;
        g.a_b = rk * ms; g.a_i = 1; g.a_p = ms;
        g.b_p = 1; g.b_j = rk;
        g.c_b = pm * ms; g.c_i = 1; g.c_j = ms;
        g.accumulate = k == 1 && accumulate_dx;
        contraction(index, dcur, G, dnext, g);
      }
    }
    dcur = dnext;
  }
  if (dbias) column_sum(dY, dbias, K, t.N(), t.N());
}

void dense_forward(const int* index, int M, int N, int K, CRef X, CRef W, CRef bias,
                   Ref Y) {
#pragma HLS INLINE
  contraction(index, X, W, Y, plain_desc(K, M, N));
  if (bias) add(Y, bias, Y, K, N, N, 0, N);
}

void dense_backward(const int* index, int M, int N, int K, CRef X, CRef dY, CRef W,
                    Ref dX, bool accumulate_dx, Ref dW, Ref dbias) {
#pragma HLS INLINE
  if (dX) {
    ContractDesc c = plain_desc(K, N, M);
    c.b_p = 1; c.b_j = N;
    c.accumulate = accumulate_dx;
    contraction(index, dY, W, dX, c);
  }
  ContractDesc c = plain_desc(M, K, N);
  c.a_i = 1; c.a_p = M;
  contraction(index, X, dY, dW, c);
  if (dbias) column_sum(dY, dbias, K, N, N);
}

}  // namespace ttsim_hls
