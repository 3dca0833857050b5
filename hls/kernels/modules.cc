#include "hls/kernels/modules.h"

#include "hls/include/design_config.h"
#include "hls/kernels/rowwise.h"

using namespace ttsim_hls;
using ttsim_cfg::kArenaBanks;

// Each module takes the arena of every argument whole (the same arrays at every call site
// of the shared instance: the top multiplexes its arenas onto the instance's ports) and a
// runtime word offset; the kernels see them as Banked views (banked.h).
namespace {
using CView = Banked<const float, kArenaBanks>;
using View = Banked<float, kArenaBanks>;
}  // namespace

void ttsim_contraction(const float A[][kArenaBanks], int a_off, const float B[][kArenaBanks], int b_off,
                       float C[][kArenaBanks], int c_off, const ContractDesc& d) {
#pragma HLS INLINE off
  contract_kernel<ttsim_cfg::kContractLanes, kArenaBanks>(CView(A, a_off), CView(B, b_off), View(C, c_off), d);
}
void ttsim_softmax(const float in[][kArenaBanks], int in_off, float out[][kArenaBanks], int out_off, int R,
                   int cols, int valid_cols, float stat[][kArenaBanks], int stat_off) {
#pragma HLS INLINE off
  softmax_kernel<ttsim_cfg::kSoftmaxLanes, kArenaBanks>(CView(in, in_off), View(out, out_off), R, cols,
                                                        valid_cols, View(stat, stat_off));
}
void ttsim_softmax_grad(const float P[][kArenaBanks], int p_off, const float dP[][kArenaBanks], int dp_off,
                        float dS[][kArenaBanks], int ds_off, int R, int cols, float stat[][kArenaBanks],
                        int stat_off) {
#pragma HLS INLINE off
  softmax_grad_kernel<ttsim_cfg::kSoftmaxLanes, kArenaBanks>(CView(P, p_off), CView(dP, dp_off), View(dS, ds_off),
                                                             R, cols, View(stat, stat_off));
}
void ttsim_layernorm(const float x[][kArenaBanks], int x_off, const float gamma[][kArenaBanks], int g_off,
                     const float beta[][kArenaBanks], int b_off, float y[][kArenaBanks], int y_off,
                     float xhat[][kArenaBanks], int xhat_off, float rstd[][kArenaBanks], int rstd_off, int R,
                     int cols, float stat[][kArenaBanks], int stat_off) {
#pragma HLS INLINE off
  layernorm_kernel<ttsim_cfg::kLayerNormLanes, kArenaBanks>(CView(x, x_off), CView(gamma, g_off),
                                                            CView(beta, b_off), View(y, y_off),
                                                            View(xhat, xhat_off), View(rstd, rstd_off), R, cols,
                                                            View(stat, stat_off));
}
void ttsim_layernorm_grad(const float dy[][kArenaBanks], int dy_off, const float xhat[][kArenaBanks], int xhat_off,
                          const float rstd[][kArenaBanks], int rstd_off, const float gamma[][kArenaBanks],
                          int g_off, float dx[][kArenaBanks], int dx_off, float dgamma[][kArenaBanks],
                          int dg_off, float dbeta[][kArenaBanks], int db_off, int R, int cols,
                          float stat[][kArenaBanks], int stat_off) {
#pragma HLS INLINE off
  layernorm_grad_kernel<ttsim_cfg::kLayerNormLanes, kArenaBanks>(
      CView(dy, dy_off), CView(xhat, xhat_off), CView(rstd, rstd_off), CView(gamma, g_off), View(dx, dx_off),
      View(dgamma, dg_off), View(dbeta, db_off), R, cols, View(stat, stat_off));
}
void ttsim_gelu(const float x[][kArenaBanks], int x_off, float y[][kArenaBanks], int y_off, int R, int cols) {
#pragma HLS INLINE off
  gelu_kernel<ttsim_cfg::kGeluLanes, kArenaBanks>(CView(x, x_off), View(y, y_off), R, cols);
}
void ttsim_gelu_grad(const float x[][kArenaBanks], int x_off, const float dy[][kArenaBanks], int dy_off,
                     float dx[][kArenaBanks], int dx_off, int R, int cols) {
#pragma HLS INLINE off
  gelu_grad_kernel<ttsim_cfg::kGeluLanes, kArenaBanks>(CView(x, x_off), CView(dy, dy_off), View(dx, dx_off), R,
                                                       cols);
}
void ttsim_add(const float a[][kArenaBanks], int a_off, const float b[][kArenaBanks], int b_off,
               float out[][kArenaBanks], int out_off, int R, int cols, int a_rs, int b_rs, int o_rs) {
#pragma HLS INLINE off
  add_kernel<ttsim_cfg::kAddLanes, kArenaBanks>(CView(a, a_off), CView(b, b_off), View(out, out_off), R, cols,
                                                a_rs, b_rs, o_rs);
}
void ttsim_add_accumulate(const float x[][kArenaBanks], int x_off, float acc[][kArenaBanks], int acc_off, int R,
                          int cols, int x_rs, int acc_rs) {
#pragma HLS INLINE off
  add_accumulate_kernel<ttsim_cfg::kAddLanes, kArenaBanks>(CView(x, x_off), View(acc, acc_off), R, cols, x_rs,
                                                           acc_rs);
}
void ttsim_column_sum(const float x[][kArenaBanks], int x_off, float sum[][kArenaBanks], int sum_off, int R,
                      int cols, int x_rs) {
#pragma HLS INLINE off
  column_sum_kernel<ttsim_cfg::kAddLanes, kArenaBanks>(CView(x, x_off), View(sum, sum_off), R, cols, x_rs);
}
float ttsim_loss(const float logits[][kArenaBanks], int logits_off, const int* labels, float dlogits[][kArenaBanks],
                 int dlogits_off, int R, int cols, float scale, float stat[][kArenaBanks], int stat_off) {
#pragma HLS INLINE off
  return loss_kernel<ttsim_cfg::kLossLanes, kArenaBanks>(CView(logits, logits_off), labels,
                                                         View(dlogits, dlogits_off), R, cols, scale,
                                                         View(stat, stat_off));
}
void ttsim_sgd_update(float w[][kArenaBanks], int w_off, float g[][kArenaBanks], int g_off, int words, float lr) {
#pragma HLS INLINE off
  sgd_kernel<ttsim_cfg::kSgdLanes, kArenaBanks>(View(w, w_off), View(g, g_off), words, lr);
}
