#pragma once
// Multi-head self-attention matmuls and softmax, forward and backward, for K tokens,
// H heads, head dim dh = D / H; Q, K, V, context: K × D row-major with head h in
// columns h·dh .. h·dh + dh − 1 (strided views, no reshapes). Steps (flows contract):
//   S = Q_h·K_hᵀ/√dh (batch H, rows K, inner dh, cols K), P = softmax(S) with keys
//   >= valid_len masked, C = P·V_h (batch H, rows K, inner K, cols dh);
//   backward dP = dC·V_hᵀ, dV = Pᵀ·dC, dS = softmax_grad(P, dP), dQ = dS·K_h/√dh,
//   dK = dSᵀ·Q_h/√dh.
// The score and probability rows (S, P, dP, dS: H·K rows of K) are ld >= K words apart
// (the model's sequence length: every row starts at a multiple of it, whatever the sample's
// K, so the softmax units' lane accesses can be aligned, model_step.h softmax_lane_granule).

#include "hls/kernels/modules.h"

namespace ttsim_hls {

/// P: H·K rows of K saved probabilities, ld words apart (written), ctx: K × D (written),
/// stat: 2·H·K words. Requires K <= ld.
void attention_forward(const int* index, int K, int D, int H, int valid_len, int ld, CRef Q, CRef Kx,
                       CRef V, Ref P, Ref ctx, Ref stat);

/// dctx: K × D. dQ, dK, dV: K × D (overwritten). P (read) and dP (scratch): H·K rows of K,
/// ld words apart. stat: H·K words. Requires K <= ld.
void attention_backward(const int* index, int K, int D, int H, int ld, CRef Q, CRef Kx, CRef V,
                        CRef P, CRef dctx, Ref dQ, Ref dK, Ref dV,
                        Ref dP, Ref stat);

}  // namespace ttsim_hls
