#pragma once
// TT linear layer Y = X·W (+ b), X: K × M, W: M × N in TT form (d input cores, e output
// cores), forward and backward, in the BTT (bidirectional) and the sequential TT
// flow, plus the dense layer. Each step is one ttsim_contraction (or ttsim_transpose) call
// whose shape is exactly the step list of the contraction-flow contract (models/flows.h):
//
// BTT forward: left merge L_k = L_{k-1}·G_k (k = 2..d; rows Mpre(k-1), inner r_{k-1},
//   cols m_k·r_k), right merge R_j = G_{d+j}·R_{j+1} (j = e-1..1; rows r_{d+j-1}·n_j,
//   inner r_{d+j}, cols Nsuf(j)), L_dᵀ = transpose of L_d (ttsim_transpose), Z = X·L_d
//   (K, M, r_d; dot form: X and L_dᵀ contiguous along M), Y = Z·R_1 (K, r_d, N), + bias.
// BTT backward: dZ = dY·Rᵀ, dX = dZ·L_dᵀ (column form along M), dR = Zᵀ·dY,
//   dL_dᵀ = dZᵀ·X (column form along M), dL_d = its transpose, then the left chain
//   (dG_k = L_{k-1}ᵀ·dL_k, dL_{k-1} = dL_k·G_kᵀ, k = d..2; dG_1 = dL_1 written in place)
//   and the right chain (dG_{d+j} = dR_j·R_{j+1}ᵀ, dR_{j+1} = G_{d+j}ᵀ·dR_j, j = 1..e-1;
//   dG_{d+e} = dR_e in place); bias gradient = column sums of dY (ttsim_column_sum).
//   Stored as L_d (M × r_d), the products on L would run their lanes along r_d.
// TT forward: T_0 = X; input core k: (K·Msuf(k)) × (r_{k-1}·m_k) · (r_{k-1}·m_k × r_k);
//   output core j: (K·Npre(j-1)) × r_{d+j-1} · (r_{d+j-1} × n_j·r_{d+j}); T_{d+e} = Y.
// TT backward, per step t = d+e..1: dG_t = T_{t-1}ᵀ·dT_t, dT_{t-1} = dT_t·G_tᵀ.
//
// Storage (row-major FP32 words): cores G_1..G_{d+e} contiguous in one array, core k
// r_{k-1} × s_k × r_k. M and N indices have their first factor most significant.
// TT-flow intermediate T_k (k <= d) is stored as [K][r_k][m_{k+1}..m_d], T_{d+j} as
// [K][n_1..n_j][r_{d+j}], so every step is an affine strided view (no transposes).

#include "hls/kernels/modules.h"

namespace ttsim_hls {

constexpr int kMaxTtFactors = 6;  ///< maximum d and e of a TT layer (host and HLS)

/// Factorization of one TT layer (see models/model_spec.h TtShape).
struct TtDims {
  int d = 0, e = 0;
  int m[kMaxTtFactors] = {};          ///< m_1..m_d
  int n[kMaxTtFactors] = {};          ///< n_1..n_e
  int r[2 * kMaxTtFactors + 1] = {};  ///< r_0..r_{d+e}, r_0 = r_{d+e} = 1

  int M() const;
  int N() const;
  /// Mode s_k of core k (1-based).
  int mode(int k) const { return k <= d ? m[k - 1] : n[k - d - 1]; }
  int core_words(int k) const { return r[k - 1] * mode(k) * r[k]; }
  /// Offset (words) of core k (1-based) in the contiguous core array.
  int core_offset(int k) const;
  int total_words() const { return core_offset(d + e + 1); }
  int mpre(int k) const;  ///< m_1···m_k
  int msuf(int k) const;  ///< m_{k+1}···m_d
  int npre(int j) const;  ///< n_1···n_j
  int nsuf(int j) const;  ///< n_{j+1}···n_e
};

/// Words of the BTT merges (the weight-only intermediates the backward reads) in saved
/// arena `parity` (0 or 1): L_k (k = 2..d−1) in saved[(d−k) mod 2], L_dᵀ (r_d·M) in saved0,
/// R_j (j = 1..e−1) in saved[(j−1) mod 2]. Z (K·r_d, input-dependent) is a slot of its own.
int btt_saved_words(const TtDims& t, int K, int parity);
/// Temporary words of btt_forward / btt_backward in chain arena `parity`: dZ in chain0,
/// dL_dᵀ (r_d·M; L_d in the forward) in chain1, dL_k in chain[(d−k) mod 2], dR_j in
/// chain[(j−1) mod 2]; while the merges run, the transposed copies G_1ᵀ and G_{d+e-1}ᵀ of
/// the first cores of the two merge chains at the start of chain0; and when
/// btt_right_end_transposed, its temporaries (see there).
int btt_scratch_words(const TtDims& t, int K, int parity);
/// Whether the rank-1 end of BTT's right chain (R_{e-1} = G_{d+e-1}·G_{d+e}, rows
/// r_{d+e-2}·n_{e-1}, cols n_e, and its two core gradients) runs transposed, lanes along the
/// rows: e >= 2 and the rows are the longer side (ttsim_spec::lanes_along_rows). Its
/// temporaries then pass through the chain arenas (btt_scratch_words: R_{e-1}ᵀ after L_d in
/// chain1; dR_{e-1}ᵀ, G_{d+e-1}ᵀ and dG_{d+e-1}ᵀ from word 0 of the chains). models/flows.cc
/// applies the same rule.
bool btt_right_end_transposed(const TtDims& t);
/// btt_right_end_transposed as the glue's branches take it: in an emitted top
/// (ttsim_cfg::kFixedLayerForms) a constant when every BTT layer of the design takes one
/// form (kBttRightEndForms 1: as stored, 2: transposed), so that the other form's kernel
/// calls fold away at compile time and the top holds only its design's call sites; the
/// layer's own form when the design has both, and in the host tools.
inline bool right_end_transposed(const TtDims& t) {
  return ttsim_cfg::kFixedLayerForms && ttsim_cfg::kBttRightEndForms == 1   ? false
         : ttsim_cfg::kFixedLayerForms && ttsim_cfg::kBttRightEndForms == 2 ? true
                                                                           : btt_right_end_transposed(t);
}
/// Saved-activation words of the TT flow in saved arena `parity`: T_s (s < d+e) with
/// s mod 2 = parity.
int tt_saved_words(const TtDims& t, int K, int parity);
/// Temporary words of tt_backward in each chain arena: the largest T_s (dT_s in
/// chain[s mod 2]).
int tt_scratch_words(const TtDims& t, int K, int parity);

/// BTT forward. X: K × M, cores: t.total_words(), bias: N or null, Y: K × N,
/// saved0 / saved1: btt_saved_words(t, K, 0 / 1) (the merges, written by btt_remerge),
/// Z: K·r_d (written; read by btt_backward), scratch0 / scratch1: btt_scratch_words(t, K,
/// 0 / 1) (the first cores' transposed copies and L_d pass through them; free again on
/// return). X and Y in arrays other than saved0, saved1, Z's, scratch0 and scratch1
/// (model_step.h arena plan: every step then writes an array it does not read, and no step
/// reads one array through two arguments).
void btt_forward(const int* index, const TtDims& t, int K, CRef X, CRef cores, CRef bias,
                 Ref Y, Ref saved0, Ref saved1, Ref Z, Ref scratch0, Ref scratch1);
/// The BTT merges of btt_forward alone (left merges, L_dᵀ, right merges) into saved0 /
/// saved1 from the cores: the same calls, the same words. Run before btt_backward by a
/// layer that recomputes its merges (LinearDims::recompute) instead of keeping them from
/// the forward pass; the cores must not have changed since the forward pass.
void btt_remerge(const int* index, const TtDims& t, int K, CRef cores, Ref saved0, Ref saved1, Ref scratch0,
                 Ref scratch1);
/// BTT backward. dY: K × N. dX: K × M, overwritten (or accumulated into when
/// accumulate_dx), skipped when null. With accumulate_dx and dx_by_add the accumulation is
/// a product into dx_part (K × M, in an array other than dX's and the product's inputs')
/// and an add of it into dX (ttsim_spec::accumulate_by_add); else the contraction's
/// accumulate flag. dcores: overwritten with every core's gradient.
/// dbias (N) accumulated when non-null. saved0 / saved1 / Z: as btt_forward left them.
/// scratch0 / scratch1: btt_scratch_words(t, K, 0 / 1), in arenas other than those of dY
/// and dX.
void btt_backward(const int* index, const TtDims& t, int K, CRef X, CRef dY, CRef cores,
                  CRef saved0, CRef saved1, CRef Z, Ref dX, bool accumulate_dx, bool dx_by_add,
                  Ref dx_part, Ref dcores, Ref dbias, Ref scratch0, Ref scratch1);

/// Sequential TT forward; the arguments of btt_forward but scratch1, with tt_saved_words.
void tt_forward(const int* index, const TtDims& t, int K, CRef X, CRef cores, CRef bias,
                Ref Y, Ref saved0, Ref saved1);
/// Sequential TT backward; same arguments as btt_backward with tt_scratch_words.
void tt_backward(const int* index, const TtDims& t, int K, CRef X, CRef dY, CRef cores,
                 CRef saved0, CRef saved1, Ref dX, bool accumulate_dx, Ref dcores, Ref dbias,
                 Ref scratch0, Ref scratch1);

/// Dense layer Y = X·Wᵀ (+ b), X: K × M, W: N × M row-major (one row per output feature,
/// as torch.nn.Linear stores it), so that every product of the layer runs its lanes along
/// M (forward: dot form; backward: column form) whatever K and N are. Y: K rows of N,
/// ldy >= N words apart (the slot head's logits at the loss's row pitch, model_step.h
/// logit_pitch; N elsewhere).
void dense_forward(const int* index, int M, int N, int K, CRef X, CRef W, CRef bias,
                   Ref Y, int ldy);
/// Dense backward (W: N × M): dX (+)= dY·W (skipped when null; accumulated through dx_part,
/// K × M in an array other than dX's, dY's and W's, and an add when accumulate_dx and
/// dx_by_add), dW = dYᵀ·X (N × M, overwritten), dbias += column sums of dY (when non-null);
/// dY: K rows of N, ldy words apart.
void dense_backward(const int* index, int M, int N, int K, CRef X, CRef dY, int ldy, CRef W,
                    Ref dX, bool accumulate_dx, bool dx_by_add, Ref dx_part, Ref dW, Ref dbias);

}  // namespace ttsim_hls
