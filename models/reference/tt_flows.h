#pragma once
// Numerical reference of a TT linear layer Y = X·W (models/model_spec.h TtShape):
// reconstruction of W from its cores and the three contraction flows (MM, TT, BTT),
// forward and backward, each following the step list of the shared flow contract
// (/tmp/flows_spec.md, mirrored in models/flows.h) contraction by contraction, with
// the MACs of every stage counted by contract() (models/reference/contraction.h).
//
// Index conventions (all row-major): W[i, j] with i = (i_1..i_d), i_1 most significant,
// j = (j_1..j_e) likewise; W[i, j] = G_1[0,i_1,:]·G_2[:,i_2,:]···G_{d+e}[:,j_e,0].

#include <vector>

#include "models/flows.h"
#include "models/model_spec.h"
#include "models/reference/contraction.h"

namespace ttsim::reference {

/// TT cores of one layer. Core k (0-based) is r_k × s_k × r_{k+1}, stored as the
/// r_k × (s_k·r_{k+1}) row-major matrix whose element (a, s·r_{k+1} + b) is G[a, s, b].
template <typename T>
struct TtTensor {
  TtShape shape;
  std::vector<Mat<T>> cores;
};

/// Zero-filled cores of the right sizes. Throws std::invalid_argument on an
/// inconsistent shape (ranks size ≠ cores + 1, no input or no output factor).
template <typename T>
TtTensor<T> zero_tt(const TtShape& shape);

/// W (M × N) from the cores, through the BTT merges (not counted).
template <typename T>
Mat<T> reconstruct(const TtTensor<T>& w);

/// What a flow's forward pass saves for its backward pass.
template <typename T>
struct TtFlowState {
  Flow flow = Flow::kBTT;
  Mat<T> x;                 ///< X (K × M): MM, BTT
  std::vector<Mat<T>> left;   ///< L_1..L_d, L_k is Mpre(k) × r_k: MM, BTT
  std::vector<Mat<T>> right;  ///< R_1..R_e, R_j is r_{d+j-1} × Nsuf(j-1): MM, BTT
  Mat<T> w;                 ///< W = L·R (M × N): MM
  Mat<T> z;                 ///< Z = X·L (K × r_d): BTT
  /// TT: T_0..T_{d+e-1}, each as the left operand of its step (rows × inner of the
  /// flow contract; the input-side ones are X's modes permuted so that the contracted
  /// pair (r_{k-1}, i_k) is innermost; the permutation performs no MACs).
  std::vector<Mat<T>> t;
};

/// Gradients of a TT layer.
template <typename T>
struct TtGrads {
  Mat<T> dx;                   ///< K × M
  std::vector<Mat<T>> dcores;  ///< same layout as TtTensor::cores
};

/// Y = X·W (K × N) for X (K × M) by `flow`. Saves what backward needs in `state`
/// (may be null) and counts the forward MACs into `forward` (may be null).
/// Throws std::invalid_argument when X has not M columns.
template <typename T>
Mat<T> tt_forward(const TtTensor<T>& w, const Mat<T>& x, Flow flow,
                  typename NoDeduce<TtFlowState<T>>::type* state, MacCounter* forward);

/// dX and every core gradient from dY (K × N), by the flow recorded in `state`.
/// Grad-input contractions are counted into `grad_input`, grad-weight contractions
/// (including the dW and dL/dR products of MM) into `grad_weights`; either may be null.
template <typename T>
TtGrads<T> tt_backward(const TtTensor<T>& w, const TtFlowState<T>& state, const Mat<T>& dy,
                       MacCounter* grad_input, MacCounter* grad_weights);

}  // namespace ttsim::reference
