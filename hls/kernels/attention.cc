#include "hls/kernels/attention.h"

#include <cmath>

#include "hls/kernels/modules.h"

namespace ttsim_hls {

namespace {
// Batch-of-heads view: A(b, i, p) etc. over K × D activations.
ContractDesc head_desc(int K, int H, int inner, int cols) {
  ContractDesc c;
  c.batch = H; c.rows = K; c.inner = inner; c.cols = cols;
  return c;
}
}  // namespace

void attention_forward(const int* index, int K, int D, int H, int valid_len, int ld, CRef Q, CRef Kx,
                       CRef V, Ref P, Ref ctx, Ref stat) {
#pragma HLS INLINE
  const int dh = D / H, KL = K * ld;  // a head's rows of S and P
  ContractDesc c = head_desc(K, H, dh, K);  // S = Q_h · K_hᵀ / √dh
  c.a_b = dh; c.a_i = D; c.a_p = 1;
  c.b_b = dh; c.b_p = 1; c.b_j = D;
  c.c_b = KL; c.c_i = ld; c.c_j = 1;
  c.alpha = 1.0f / std::sqrt(static_cast<float>(dh));
  contraction(index, Q, Kx, P, c);
  softmax(P, P, H * K, K, ld, valid_len, stat);
  c = head_desc(K, H, K, dh);  // C = P · V_h
  c.a_b = KL; c.a_i = ld; c.a_p = 1;
  c.b_b = dh; c.b_p = D; c.b_j = 1;
  c.c_b = dh; c.c_i = D; c.c_j = 1;
  contraction(index, P, V, ctx, c);
}

void attention_backward(const int* index, int K, int D, int H, int ld, CRef Q, CRef Kx, CRef V,
                        CRef P, CRef dctx, Ref dQ, Ref dK, Ref dV,
                        Ref dP, Ref stat) {
#pragma HLS INLINE
  const int dh = D / H, KL = K * ld;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  ContractDesc c = head_desc(K, H, dh, K);  // dP = dC · V_hᵀ
  c.a_b = dh; c.a_i = D; c.a_p = 1;
  c.b_b = dh; c.b_p = 1; c.b_j = D;
  c.c_b = KL; c.c_i = ld; c.c_j = 1;
  contraction(index, dctx, V, dP, c);
  c = head_desc(K, H, K, dh);  // dV = Pᵀ · dC
  c.a_b = KL; c.a_i = 1; c.a_p = ld;
  c.b_b = dh; c.b_p = D; c.b_j = 1;
  c.c_b = dh; c.c_i = D; c.c_j = 1;
  contraction(index, P, dctx, dV, c);
  softmax_grad(P, dP, H * K, K, ld, stat);  // dS, in place
  c = head_desc(K, H, K, dh);  // dQ = dS · K_h / √dh
  c.a_b = KL; c.a_i = ld; c.a_p = 1;
  c.b_b = dh; c.b_p = D; c.b_j = 1;
  c.c_b = dh; c.c_i = D; c.c_j = 1;
  c.alpha = scale;
  contraction(index, dP, Kx, dQ, c);
  c.a_i = 1; c.a_p = ld;  // dK = dSᵀ · Q_h / √dh
  contraction(index, dP, Q, dK, c);
}

}  // namespace ttsim_hls
