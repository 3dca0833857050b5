#pragma once
// Element-wise and row-wise operators of the reference transformer, forward and
// backward: LayerNorm, GELU (tanh approximation), row softmax, softmax cross-entropy.
// All matrices are K × D row-major (one row per token).

#include "models/reference/contraction.h"

namespace ttsim::reference {

/// LayerNorm epsilon added to the (biased, ÷D) variance of each row.
constexpr double kLayerNormEps = 1e-5;

/// What LayerNorm saves: x̂ = (x - μ)/σ and 1/σ per row, σ = sqrt(var + kLayerNormEps).
template <typename T>
struct LayerNormState {
  Mat<T> xhat;     ///< K × D
  Mat<T> inv_std;  ///< K × 1
};

/// y = gain ⊙ x̂ + bias per row; gain and bias are 1 × D.
template <typename T>
Mat<T> layernorm_forward(const Mat<T>& x, const Mat<T>& gain, const Mat<T>& bias,
                         LayerNormState<T>* state);

/// dx from dy; adds Σ_rows dy⊙x̂ to `dgain` and Σ_rows dy to `dbias` (both 1 × D).
template <typename T>
Mat<T> layernorm_backward(const LayerNormState<T>& state, const Mat<T>& gain, const Mat<T>& dy,
                          Mat<T>* dgain, Mat<T>* dbias);

/// GELU, tanh approximation (Hendrycks & Gimpel 2016, as in BERT/GPT-2):
/// gelu(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
template <typename T>
Mat<T> gelu_forward(const Mat<T>& x);
/// dx = dy ⊙ gelu'(x), the exact derivative of the tanh approximation.
template <typename T>
Mat<T> gelu_backward(const Mat<T>& x, const Mat<T>& dy);

/// Softmax of each row (max-subtracted).
template <typename T>
Mat<T> softmax_rows(const Mat<T>& s);
/// dS = P ⊙ (dP - rowsum(dP ⊙ P)) for P = softmax_rows(S).
template <typename T>
Mat<T> softmax_rows_backward(const Mat<T>& p, const Mat<T>& dp);

/// Softmax cross-entropy of each row of `logits` (K × C) against `labels` (size K; a
/// label < 0 marks a row that does not count). Returns the summed loss (natural log);
/// writes d(loss)/d(logits) = softmax - one-hot (zero rows for ignored labels) to `dlogits`.
template <typename T>
double softmax_cross_entropy(const Mat<T>& logits, const std::vector<int>& labels,
                             Mat<T>* dlogits);

}  // namespace ttsim::reference
