#pragma once
// Numerical reference of a TTM embedding table E ∈ R^{V×D} (models/model_spec.h TtmShape):
// reconstruction, the per-token lookup and the core-gradient scatter, following the TTM
// step list of the shared flow contract (/tmp/flows_spec.md) with counted MACs.
//
// Token id v = (v_1..v_d) and column c = (c_1..c_d) are row-major multi-indices
// (v_1, c_1 most significant); E[v, c] = Π_k G_k[:, v_k, c_k, :].

#include <vector>

#include "models/model_spec.h"
#include "models/reference/contraction.h"

namespace ttsim::reference {

/// TTM cores. Core k (0-based) is r_k × v_k × e_k × r_{k+1}, stored as the
/// r_k × (v_k·e_k·r_{k+1}) row-major matrix; the slice S_k of vocabulary digit v_k is
/// the contiguous column block [v_k·e_k·r_{k+1}, (v_k+1)·e_k·r_{k+1}).
template <typename T>
struct TtmTensor {
  TtmShape shape;
  std::vector<Mat<T>> cores;
};

/// Zero-filled cores. Throws std::invalid_argument on an inconsistent shape.
template <typename T>
TtmTensor<T> zero_ttm(const TtmShape& shape);

/// The whole table E (V × D), one uncounted lookup per row.
template <typename T>
Mat<T> reconstruct(const TtmTensor<T>& table);

/// What a lookup saves for the core-gradient pass.
template <typename T>
struct TtmLookupState {
  std::vector<int> tokens;
  /// partial[t][k] = E_{k+1} of token t (Epre(k+1) × r_{k+1}), k = 0..d-2.
  std::vector<std::vector<Mat<T>>> partial;
};

/// Rows E[tokens[t], :] (K × D). MACs (K·Σ_{k≥2} Epre(k-1)·r_{k-1}·e_k·r_k) counted into
/// `forward` (may be null). Throws std::invalid_argument on a token outside [0, V).
template <typename T>
Mat<T> ttm_lookup(const TtmTensor<T>& table, const std::vector<int>& tokens,
                  typename NoDeduce<TtmLookupState<T>>::type* state, MacCounter* forward);

/// Adds to `dcores` (same layout as the cores; zero_ttm for a fresh one) the gradient
/// of the cores given dE (K × D, the gradient of the looked-up rows): per token the
/// slice gradients dS_k are scatter-added into slice v_k of core k. MACs into
/// `grad_weights` (may be null).
template <typename T>
void ttm_backward(const TtmTensor<T>& table, const TtmLookupState<T>& state, const Mat<T>& de,
                  std::vector<Mat<T>>* dcores, MacCounter* grad_weights);

}  // namespace ttsim::reference
