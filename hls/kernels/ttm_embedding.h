#pragma once
// TTM token embedding: lookup (forward) and core-gradient scatter (backward).
// Table E ∈ R^{V×D}, V = v_1···v_d, D = e_1···e_d, cores r_{k-1} × v_k × e_k × r_k
// (contiguous, row-major); token id = Σ_k v_k-digit · Vsuf(k) (first factor most
// significant), embedding column = Σ_k e_k-digit · Esuf(k).
// Per token the slices S_k = G_k[:, v_k, :, :] (r_{k-1} × e_k·r_k) are contracted:
// E_1 = S_1, E_k = E_{k-1}·S_k for k = 2..d (batch K, rows Epre(k-1), inner r_{k-1},
// cols e_k·r_k), each a ttsim_contraction with per-token slice offsets.
// Backward, k = d..2: dS_k = E_{k-1}ᵀ·dE_k and dE_{k-1} = dE_k·S_kᵀ, each scatter-added
// into the slice v_k of the core gradient (dS_1 = dE_1 is scattered by the k = 2 step
// directly). Requires d >= 2.
// With d >= 3 and Epre(d-1) > e_d·r_d (ttm_last_transposed) the k = d products run
// transposed (Eᵀ = S_dᵀ·E_{d-1}ᵀ, dS_d = E_{d-1}ᵀ·dE, dE_{d-1}ᵀ = S_d·dEᵀ) so that their
// lanes run along the Epre(d-1) rows rather than the
// e_d·r_d columns (r_d = 1): E_{d-1} is saved transposed, and E, dE and dE_{d-1} pass
// through ttsim_transpose on their way in or out (ttm_embedding.cc, last_lookup_desc).

#include "hls/kernels/modules.h"

namespace ttsim_hls {

constexpr int kMaxTtmFactors = 6;

struct TtmDims {
  int d = 0;
  int v[kMaxTtmFactors] = {};      ///< v_1..v_d
  int e[kMaxTtmFactors] = {};      ///< e_1..e_d
  int r[kMaxTtmFactors + 1] = {};  ///< r_0..r_d, r_0 = r_d = 1
  /// core_by_add[k] (k = 2..d): ttm_backward scatters dS_k into dG_k token by token, each a
  /// product into the partial buffer and an add of it into the token's slice, instead of one
  /// accumulating call (ttsim_spec::accumulate_by_add; model_step.h set_accumulate_by_add).
  bool core_by_add[kMaxTtmFactors + 1] = {};
  int vocab() const;
  int dim() const;
  int epre(int k) const;  ///< e_1···e_k
  int core_words(int k) const { return r[k - 1] * v[k - 1] * e[k - 1] * r[k]; }  ///< 1-based
  int core_offset(int k) const;
  int total_words() const { return core_offset(d + 1); }
};

/// Whether the last step (k = d) runs transposed, its lanes along the Epre(d-1) rows of
/// E_{d-1} rather than the e_d·r_d columns of S_d: d >= 3 and the rows are the longer side
/// (ttsim_spec::lanes_along_rows). models/flows.cc plan_ttm_lookup applies the same rule.
bool ttm_last_transposed(const TtmDims& t);

/// Words of the saved intermediates E_k (k = 2..d-1, K tokens) in saved arena `parity`:
/// E_k in saved[k mod 2].
int ttm_saved_words(const TtmDims& t, int K, int parity);
/// Words of core 1's copy (ttm_forward's first lookup reads it from another array than the
/// cores): r_0·v_1·e_1·r_1.
int ttm_copy_words(const TtmDims& t);
/// Temporary words of ttm_forward / ttm_backward in scratch `parity`: the largest dE_k,
/// k = 2..d-1 (dE_k in scratch[k mod 2]), and when ttm_last_transposed the last step's
/// temporaries: E_{d-1} and Eᵀ (K·D) in scratch1 (the forward's), dEᵀ in scratch[(d−1) mod 2],
/// dE_{d-1}ᵀ in scratch[d mod 2].
int ttm_scratch_words(const TtmDims& t, int K, int parity);

/// Sets t.core_by_add for a contraction of `lanes` lanes on `banks` banks: ttsim_spec::
/// accumulate_by_add for each column-form core gradient (k = 2..d, k = d only when not
/// ttm_last_transposed: the transposed one is the dot form).
void set_core_by_add(TtmDims& t, int lanes, int banks);
/// Words of ttm_backward's partial buffer: the largest slice r_{k−1}·e_k·r_k over the k with
/// core_by_add (0 when none).
int ttm_part_words(const TtmDims& t);

/// Fills idx[(k-1)·K + i] = core_offset(k) + digit_k(tokens[i]) · e_k · r_k, the word
/// offset of token i's slice in core k (k = 1..d). tokens must be in [0, V).
void ttm_slice_offsets(const TtmDims& t, int K, const int* tokens, int* idx);

/// E (K × D) = rows of the TTM table for `tokens`. index: the top's int array, words
/// 0 .. d·K − 1 filled by ttm_slice_offsets (every contraction call passes it).
/// saved0 / saved1: ttm_saved_words(t, K, 0 / 1) (E_{d-1} transposed when ttm_last_transposed);
/// copy: ttm_copy_words(t); scratch1: ttm_scratch_words(t, K, 1) (both free again on return);
/// E, copy and scratch1 in three different arrays.
void ttm_forward(const int* index, const TtmDims& t, int K, CRef cores, Ref E,
                 Ref saved0, Ref saved1, Ref copy, Ref scratch1);
/// Scatter-adds the core gradients of the lookup into dcores (same layout as cores).
/// dE: K × D; scratch0 / scratch1: ttm_scratch_words(t, K, 0 / 1); dE, dcores, scratch0 and
/// scratch1 in four different arrays; part: ttm_part_words(t) (used when some core_by_add)
/// in a fifth, nor the saved arrays' or the cores'.
void ttm_backward(const int* index, const TtmDims& t, int K, CRef cores, CRef saved0, CRef saved1,
                  CRef dE, Ref dcores, Ref scratch0, Ref scratch1, Ref part);

}  // namespace ttsim_hls
