#include "hls/kernels/modules.h"

#include "hls/include/design_config.h"
#include "hls/kernels/rowwise.h"

using namespace ttsim_hls;

void ttsim_contraction(const float* A, const float* B, float* C, const ContractDesc& d) {
#pragma HLS INLINE off
  contract_kernel<ttsim_cfg::kContractLanes>(A, B, C, d);
}
void ttsim_softmax(const float* in, float* out, int R, int cols, int valid_cols, float* stat) {
#pragma HLS INLINE off
  softmax_kernel<ttsim_cfg::kSoftmaxLanes>(in, out, R, cols, valid_cols, stat);
}
void ttsim_softmax_grad(const float* P, const float* dP, float* dS, int R, int cols, float* stat) {
#pragma HLS INLINE off
  softmax_grad_kernel<ttsim_cfg::kSoftmaxLanes>(P, dP, dS, R, cols, stat);
}
void ttsim_layernorm(const float* x, const float* gamma, const float* beta, float* y, float* xhat,
                     float* rstd, int R, int cols, float* stat) {
#pragma HLS INLINE off
  layernorm_kernel<ttsim_cfg::kLayerNormLanes>(x, gamma, beta, y, xhat, rstd, R, cols, stat);
}
void ttsim_layernorm_grad(const float* dy, const float* xhat, const float* rstd,
                          const float* gamma, float* dx, float* dgamma, float* dbeta, int R,
                          int cols, float* stat) {
#pragma HLS INLINE off
  layernorm_grad_kernel<ttsim_cfg::kLayerNormLanes>(dy, xhat, rstd, gamma, dx, dgamma, dbeta, R,
                                                    cols, stat);
}
void ttsim_gelu(const float* x, float* y, int R, int cols) {
#pragma HLS INLINE off
  gelu_kernel<ttsim_cfg::kGeluLanes>(x, y, R, cols);
}
void ttsim_gelu_grad(const float* x, const float* dy, float* dx, int R, int cols) {
#pragma HLS INLINE off
  gelu_grad_kernel<ttsim_cfg::kGeluLanes>(x, dy, dx, R, cols);
}
void ttsim_add(const float* a, const float* b, float* out, int R, int cols, int a_rs, int b_rs,
               int o_rs) {
#pragma HLS INLINE off
  add_kernel<ttsim_cfg::kAddLanes>(a, b, out, R, cols, a_rs, b_rs, o_rs);
}
void ttsim_add_accumulate(const float* x, float* acc, int R, int cols, int x_rs, int acc_rs) {
#pragma HLS INLINE off
  add_accumulate_kernel<ttsim_cfg::kAddLanes>(x, acc, R, cols, x_rs, acc_rs);
}
void ttsim_column_sum(const float* x, float* sum, int R, int cols, int x_rs) {
#pragma HLS INLINE off
  column_sum_kernel<ttsim_cfg::kAddLanes>(x, sum, R, cols, x_rs);
}
float ttsim_loss(const float* logits, const int* labels, float* dlogits, int R, int cols,
                 float scale, float* stat) {
#pragma HLS INLINE off
  return loss_kernel<ttsim_cfg::kLossLanes>(logits, labels, dlogits, R, cols, scale, stat);
}
void ttsim_sgd_update(float* w, float* g, int words, float lr) {
#pragma HLS INLINE off
  sgd_kernel<ttsim_cfg::kSgdLanes>(w, g, words, lr);
}
