#include "hls/kernels/modules.h"

#include <type_traits>

#include "hls/include/call_site_probe.h"
#include "hls/include/design_config.h"
#include "hls/kernels/add.h"
#include "hls/kernels/gelu.h"
#include "hls/kernels/layernorm.h"
#include "hls/kernels/loss.h"
#include "hls/kernels/sgd.h"
#include "hls/kernels/softmax.h"

using namespace ttsim_hls;
using ttsim_cfg::kArenaBanks;
using ttsim_cfg::kArenaRows;

// Each module takes the arena of every argument whole (the same arrays at every call site
// of the shared instance: the top multiplexes its arenas onto the instance's ports) and a
// runtime word offset, and hands both to the kernel (which names the arena in its
// DEPENDENCE pragmas and reads it through Banked views, banked.h).

void ttsim_contraction(const float A[kArenaRows][kArenaBanks], int a_off, const float B[kArenaRows][kArenaBanks], int b_off,
                       float C[kArenaRows][kArenaBanks], int c_off, const int index[], const ContractDesc& d) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  contract_kernel<ttsim_cfg::kContractLanes, kArenaBanks, ttsim_cfg::kOmittedLoops>(A, a_off, B, b_off, C, c_off,
                                                                                 index, d);
}
// softmax, layernorm and layernorm_grad take each array once (ttsim_spec::kSharedArguments):
// two views of one argument are two access sites of one interface in the kernel.
void ttsim_softmax(float P[kArenaRows][kArenaBanks], int in_off, int out_off, int R, int cols, int ld, int valid_cols,
                   float stat[kArenaRows][kArenaBanks], int stat_off) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  softmax_kernel<ttsim_cfg::kSoftmaxLanes, kArenaBanks, ttsim_cfg::kSoftmaxAligned>(P, in_off, P, out_off, R, cols, ld,
                                                                                     valid_cols, stat, stat_off);
}
void ttsim_softmax_grad(const float P[kArenaRows][kArenaBanks], int p_off, float d[kArenaRows][kArenaBanks], int d_off,
                        int R, int cols, int ld, float stat[kArenaRows][kArenaBanks], int stat_off) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  softmax_grad_kernel<ttsim_cfg::kSoftmaxLanes, kArenaBanks, ttsim_cfg::kSoftmaxAligned>(P, p_off, d, d_off, R, cols,
                                                                                          ld, stat, stat_off);
}
void ttsim_layernorm(const float x[kArenaRows][kArenaBanks], int x_off, const float params[kArenaRows][kArenaBanks], int g_off,
                     int b_off, float y[kArenaRows][kArenaBanks], int y_off, float saved[kArenaRows][kArenaBanks], int xhat_off,
                     int rstd_off, int R, int cols, float stat[kArenaRows][kArenaBanks], int stat_off) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  layernorm_kernel<ttsim_cfg::kLayerNormLanes, kArenaBanks, ttsim_cfg::kLayerNormAligned>(x, x_off, params, g_off, params, b_off, y, y_off, saved,
                                                            xhat_off, saved, rstd_off, R, cols, stat, stat_off);
}
void ttsim_layernorm_grad(const float dy[kArenaRows][kArenaBanks], int dy_off, const float saved[kArenaRows][kArenaBanks], int xhat_off,
                          int rstd_off, const float gamma[kArenaRows][kArenaBanks], int g_off, float dx[kArenaRows][kArenaBanks],
                          int dx_off, float grads[kArenaRows][kArenaBanks], int dg_off, int db_off, int R, int cols,
                          float stat[kArenaRows][kArenaBanks], int stat_off) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  layernorm_grad_kernel<ttsim_cfg::kLayerNormLanes, kArenaBanks, ttsim_cfg::kLayerNormAligned>(dy, dy_off, saved, xhat_off, saved, rstd_off, gamma,
                                                                 g_off, dx, dx_off, grads, dg_off, grads, db_off, R,
                                                                 cols, stat, stat_off);
}
void ttsim_gelu(const float x[kArenaRows][kArenaBanks], int x_off, float y[kArenaRows][kArenaBanks], int y_off, int R, int cols) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  gelu_kernel<ttsim_cfg::kGeluLanes, kArenaBanks, ttsim_cfg::kGeluAligned>(x, x_off, y, y_off, R, cols);
}
void ttsim_gelu_grad(const float x[kArenaRows][kArenaBanks], int x_off, float d[kArenaRows][kArenaBanks], int d_off, int R, int cols) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  gelu_grad_kernel<ttsim_cfg::kGeluLanes, kArenaBanks, ttsim_cfg::kGeluAligned>(x, x_off, d, d_off, R, cols);
}
void ttsim_add_accumulate(const float x[kArenaRows][kArenaBanks], int x_off, float acc[kArenaRows][kArenaBanks], int acc_off, int R,
                          int cols, int x_rs, int acc_rs) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  add_accumulate_kernel<ttsim_cfg::kAddLanes, kArenaBanks>(x, x_off, acc, acc_off, R, cols, x_rs,
                                                           acc_rs);
}
void ttsim_column_sum(const float x[kArenaRows][kArenaBanks], int x_off, float sum[kArenaRows][kArenaBanks], int sum_off, int R,
                      int cols, int x_rs) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  column_sum_kernel<ttsim_cfg::kAddLanes, kArenaBanks>(x, x_off, sum, sum_off, R, cols, x_rs);
}
void ttsim_transpose(const float x[kArenaRows][kArenaBanks], int x_off, float out[kArenaRows][kArenaBanks], int out_off, int R, int cols,
                     int x_rs, int o_rs) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  transpose_kernel<ttsim_cfg::kAddLanes, kArenaBanks>(x, x_off, out, out_off, R, cols, x_rs, o_rs);
}
float ttsim_loss(const float logits[kArenaRows][kArenaBanks], int logits_off, const int index[], int labels_off,
                 float dlogits[kArenaRows][kArenaBanks], int dlogits_off, int R, int cols, int ld, float scale,
                 float stat[kArenaRows][kArenaBanks], int stat_off) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  return loss_kernel<ttsim_cfg::kLossLanes, kArenaBanks, ttsim_cfg::kLossAligned>(
      logits, logits_off, index, labels_off, dlogits, dlogits_off, R, cols, ld, scale, stat, stat_off);
}
void ttsim_sgd_update(float w[kArenaRows][kArenaBanks], int w_off, float g[kArenaRows][kArenaBanks], int g_off, int words, float lr) {
#pragma HLS INLINE off
  TTSIM_CALL_SITE();
  sgd_kernel<ttsim_cfg::kSgdLanes, kArenaBanks, ttsim_cfg::kSgdAligned>(w, w_off, g, g_off, words, lr);
}

// kTtsimModules' argument bits (modules.h), checked against the declarations above at
// compile time: int and float 32 bits, bool 1, a ContractDesc kContractDescBits, an array
// or pointer (an arena, the index array) none — a port, not a value the top multiplexes.
namespace {
template <class T>
struct ArgumentBits {
  static constexpr int value = std::is_pointer<T>::value ? 0 : std::is_same<T, bool>::value ? 1 : 32;
};
template <>
struct ArgumentBits<ContractDesc> {
  static constexpr int value = kContractDescBits;
};
template <class... A>
constexpr int sum_argument_bits() {
  int bits[] = {0, ArgumentBits<typename std::decay<A>::type>::value...};
  int total = 0;
  for (int b : bits) total += b;
  return total;
}
template <class R, class... A>
constexpr int signature_bits(R (*)(A...)) {
  return sum_argument_bits<A...>();
}
constexpr int declared_bits(const char* module) {
  for (const TtsimModuleName& m : kTtsimModules) {
    const char* a = m.module;
    const char* b = module;
    while (*a != 0 && *a == *b) ++a, ++b;
    if (*a == 0 && *b == 0) return m.argument_bits;
  }
  return -1;
}
static_assert(sizeof(ContractDesc) == 16 * sizeof(int) + sizeof(float) + sizeof(int),
              "ContractDesc: 16 ints, alpha and two flags (kContractDescBits)");
#define TTSIM_CHECK_BITS(f) static_assert(signature_bits(&f) == declared_bits(#f), #f ": argument_bits")
TTSIM_CHECK_BITS(ttsim_contraction);
TTSIM_CHECK_BITS(ttsim_softmax);
TTSIM_CHECK_BITS(ttsim_softmax_grad);
TTSIM_CHECK_BITS(ttsim_layernorm);
TTSIM_CHECK_BITS(ttsim_layernorm_grad);
TTSIM_CHECK_BITS(ttsim_gelu);
TTSIM_CHECK_BITS(ttsim_gelu_grad);
TTSIM_CHECK_BITS(ttsim_add_accumulate);
TTSIM_CHECK_BITS(ttsim_column_sum);
TTSIM_CHECK_BITS(ttsim_transpose);
TTSIM_CHECK_BITS(ttsim_loss);
TTSIM_CHECK_BITS(ttsim_sgd_update);
#undef TTSIM_CHECK_BITS
}  // namespace
