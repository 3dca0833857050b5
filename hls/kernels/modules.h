#pragma once
// The HLS kernel modules: one stable, non-template top-level function per kernel,
// instantiated with the lane counts of design_config.h. These are the functions the
// training step calls and the names a csynth report shows as modules.
//
// Module name convention (used by calibration to map csynth modules to the
// simulator's kernels): `ttsim_<op>`, where <op> is to_string(TaskOp) of
// models/task_graph.h. A module whose name extends that with `_<suffix>` is a variant
// of the same TaskOp (same loop nest in hw/loop_nest.h):
//
//   module                 TaskOp          loops (hw/loop_nest.h)
//   ttsim_contraction      contraction     contract_column, contract_dot, contract_scalar
//                                          (one runs per call: the operand strides' form)
//   ttsim_softmax          softmax         softmax_max, softmax_exp_sum, softmax_normalize
//   ttsim_softmax_grad     softmax_grad    softmax_grad_dot, softmax_grad_apply
//   ttsim_layernorm        layernorm       layernorm_mean, layernorm_var, layernorm_normalize
//   ttsim_layernorm_grad   layernorm_grad  layernorm_grad_reduce, _input, _params
//   ttsim_gelu             gelu            gelu
//   ttsim_gelu_grad        gelu_grad       gelu_grad
//   ttsim_add_accumulate   add             add_accumulate (in place, distinct elements)
//   ttsim_column_sum       add             column_sum   (bias gradient: column sums)
//   ttsim_transpose        add             transpose    (transposed copy through a lane tile)
//   ttsim_loss             loss            loss_max, loss_exp_sum, loss_grad
//   ttsim_sgd_update       sgd_update      sgd_update
//   ttsim_train_step       (top function: one training step, all parameters on chip)
//
// Every module carries `#pragma HLS INLINE off` (small functions are otherwise inlined
// automatically, and ALLOCATION does not apply to an inlined function): with the glue
// inlined into the top, each module is one RTL instance shared by its call sites.
//
// Every float argument is an on-chip arena (rows of kArenaBanks banks, banked.h) and a
// runtime word offset; the int argument `index` is the top's int array (TTM slice
// offsets, labels) with word offsets into it. Shapes are runtime extents bounded by the
// design_config.h capacities. The glue calls them through the inline wrappers at the end (views). Semantics of each:
// the matching *_kernel template in contract.h, softmax.h, layernorm.h, gelu.h, add.h, loss.h
// or sgd.h (their shared loop counters: row_reduce.h).

#include "hls/include/banked.h"
#include "hls/include/design_config.h"
#include "hls/kernels/contract.h"

/// Bits of the ContractDesc the contraction takes (by const reference: its fields are the
/// module's scalar inputs): 16 ints, alpha and two flags (contract.h ContractDesc).
constexpr int kContractDescBits = 16 * 32 + 32 + 2;

/// Loop-module names as a table: {module, TaskOp name, scalar argument bits}.
struct TtsimModuleName {
  const char* module;
  const char* task_op;
  /// Bits of the module's scalar arguments (int and float 32, bool 1, ContractDesc
  /// kContractDescBits; the arena and index arrays are ports, not values): what the top
  /// multiplexes among the module's call sites. Checked against the declarations below at
  /// compile time (modules.cc static_asserts).
  int argument_bits;
};
constexpr TtsimModuleName kTtsimModules[] = {
    {"ttsim_contraction", "contraction", 3 * 32 + kContractDescBits},
    {"ttsim_softmax", "softmax", 7 * 32},
    {"ttsim_softmax_grad", "softmax_grad", 6 * 32},
    {"ttsim_layernorm", "layernorm", 9 * 32},
    {"ttsim_layernorm_grad", "layernorm_grad", 10 * 32},
    {"ttsim_gelu", "gelu", 4 * 32},
    {"ttsim_gelu_grad", "gelu_grad", 4 * 32},
    {"ttsim_add_accumulate", "add", 6 * 32},
    {"ttsim_column_sum", "add", 5 * 32},
    {"ttsim_transpose", "add", 6 * 32},
    {"ttsim_loss", "loss", 8 * 32},
    {"ttsim_sgd_update", "sgd_update", 4 * 32},
};

/// Arena arrays as the modules take them: rows of kArenaBanks words, dim 2 completely
/// partitioned (banked.h). Every float argument of a module is one such arena and a word
/// offset into it, declared with the rows of the deepest arena (kArenaRows), so the one
/// shared instance of a module has one interface shape whichever array a call binds (a
/// shallower array uses the low addresses).
#define TTSIM_ARENA(name) float name[ttsim_cfg::kArenaRows][ttsim_cfg::kArenaBanks]
#define TTSIM_CARENA(name) const float name[ttsim_cfg::kArenaRows][ttsim_cfg::kArenaBanks]
/// Two views the module takes as one array argument (ttsim_spec::kSharedArguments) must be
/// views of one array (checked in C simulation).
#if defined(__SYNTHESIS__)
#define TTSIM_SAME_ARRAY(a, b)
#else
#include <cassert>
#define TTSIM_SAME_ARRAY(a, b) assert(static_cast<const void*>((a).rows) == static_cast<const void*>((b).rows))
#endif

void ttsim_contraction(TTSIM_CARENA(A), int a_off, TTSIM_CARENA(B), int b_off, TTSIM_ARENA(C), int c_off,
                       const int index[], const ttsim_hls::ContractDesc& d);
void ttsim_softmax(TTSIM_ARENA(P), int in_off, int out_off, int R, int cols, int ld, int valid_cols,
                   TTSIM_ARENA(stat), int stat_off);
void ttsim_softmax_grad(TTSIM_CARENA(P), int p_off, TTSIM_ARENA(d), int d_off, int R, int cols, int ld,
                        TTSIM_ARENA(stat), int stat_off);
void ttsim_layernorm(TTSIM_CARENA(x), int x_off, TTSIM_CARENA(params), int g_off, int b_off, TTSIM_ARENA(y),
                     int y_off, TTSIM_ARENA(saved), int xhat_off, int rstd_off, int R, int cols, TTSIM_ARENA(stat),
                     int stat_off);
void ttsim_layernorm_grad(TTSIM_CARENA(dy), int dy_off, TTSIM_CARENA(saved), int xhat_off, int rstd_off,
                          TTSIM_CARENA(gamma), int g_off, TTSIM_ARENA(dx), int dx_off, TTSIM_ARENA(grads), int dg_off,
                          int db_off, int R, int cols, TTSIM_ARENA(stat), int stat_off);
void ttsim_gelu(TTSIM_CARENA(x), int x_off, TTSIM_ARENA(y), int y_off, int R, int cols);
void ttsim_gelu_grad(TTSIM_CARENA(x), int x_off, TTSIM_ARENA(d), int d_off, int R, int cols);
void ttsim_add_accumulate(TTSIM_CARENA(x), int x_off, TTSIM_ARENA(acc), int acc_off, int R, int cols, int x_rs,
                          int acc_rs);
void ttsim_column_sum(TTSIM_CARENA(x), int x_off, TTSIM_ARENA(sum), int sum_off, int R, int cols, int x_rs);
void ttsim_transpose(TTSIM_CARENA(x), int x_off, TTSIM_ARENA(out), int out_off, int R, int cols, int x_rs, int o_rs);
float ttsim_loss(TTSIM_CARENA(logits), int logits_off, const int index[], int labels_off, TTSIM_ARENA(dlogits),
                 int dlogits_off, int R, int cols, int ld, float scale, TTSIM_ARENA(stat), int stat_off);
void ttsim_sgd_update(TTSIM_ARENA(w), int w_off, TTSIM_ARENA(g), int g_off, int words, float lr);

namespace ttsim_hls {

/// A word address in one of the top's float arenas (banked.h), as the glue passes it.
using CRef = Banked<const float, ttsim_cfg::kArenaBanks>;
using Ref = Banked<float, ttsim_cfg::kArenaBanks>;

// The glue's calls of the modules: each splits its views into (arena, offset) pairs.
// Inlined: the module call sites sit in the top function.
/// index: the top's int array, passed at every call (one array on the shared instance's
/// port); read only where the descriptor names an index table.
inline void contraction(const int* index, CRef A, CRef B, Ref C, const ContractDesc& d) {
#pragma HLS INLINE
  ttsim_contraction(A.rows, A.off, B.rows, B.off, C.rows, C.off, index, d);
}
/// The probabilities in place of the scores (in and out: one array, the module's `P`);
/// R rows of `cols`, ld words apart.
inline void softmax(CRef in, Ref out, int R, int cols, int ld, int valid_cols, Ref stat) {
#pragma HLS INLINE
  TTSIM_SAME_ARRAY(in, out);
  ttsim_softmax(out.rows, in.off, out.off, R, cols, ld, valid_cols, stat.rows, stat.off);
}
/// d = P ⊙ (d − rowsum(d ⊙ P)) in place (d: dP in, dS out); R rows of `cols`, ld words apart.
inline void softmax_grad(CRef P, Ref d, int R, int cols, int ld, Ref stat) {
#pragma HLS INLINE
  ttsim_softmax_grad(P.rows, P.off, d.rows, d.off, R, cols, ld, stat.rows, stat.off);
}
/// gamma and beta in one array (the module's `params`), xhat and rstd in one (`saved`).
inline void layernorm(CRef x, CRef gamma, CRef beta, Ref y, Ref xhat, Ref rstd, int R, int cols, Ref stat) {
#pragma HLS INLINE
  TTSIM_SAME_ARRAY(gamma, beta);
  TTSIM_SAME_ARRAY(xhat, rstd);
  ttsim_layernorm(x.rows, x.off, gamma.rows, gamma.off, beta.off, y.rows, y.off, xhat.rows, xhat.off, rstd.off, R,
                  cols, stat.rows, stat.off);
}
/// xhat and rstd in one array (the module's `saved`), dgamma and dbeta in one (`grads`).
inline void layernorm_grad(CRef dy, CRef xhat, CRef rstd, CRef gamma, Ref dx, Ref dgamma, Ref dbeta, int R,
                           int cols, Ref stat) {
#pragma HLS INLINE
  TTSIM_SAME_ARRAY(xhat, rstd);
  TTSIM_SAME_ARRAY(dgamma, dbeta);
  ttsim_layernorm_grad(dy.rows, dy.off, xhat.rows, xhat.off, rstd.off, gamma.rows, gamma.off, dx.rows, dx.off,
                       dgamma.rows, dgamma.off, dbeta.off, R, cols, stat.rows, stat.off);
}
inline void gelu(CRef x, Ref y, int R, int cols) {
#pragma HLS INLINE
  ttsim_gelu(x.rows, x.off, y.rows, y.off, R, cols);
}
/// d = GELU'(x) · d in place (d: dy in, dx out).
inline void gelu_grad(CRef x, Ref d, int R, int cols) {
#pragma HLS INLINE
  ttsim_gelu_grad(x.rows, x.off, d.rows, d.off, R, cols);
}
inline void add_accumulate(CRef x, Ref acc, int R, int cols, int x_rs, int acc_rs) {
#pragma HLS INLINE
  ttsim_add_accumulate(x.rows, x.off, acc.rows, acc.off, R, cols, x_rs, acc_rs);
}
inline void column_sum(CRef x, Ref sum, int R, int cols, int x_rs) {
#pragma HLS INLINE
  ttsim_column_sum(x.rows, x.off, sum.rows, sum.off, R, cols, x_rs);
}
/// out = xᵀ: x is R rows of cols (row stride x_rs), out cols rows of R (row stride o_rs).
inline void transpose(CRef x, Ref out, int R, int cols, int x_rs, int o_rs) {
#pragma HLS INLINE
  ttsim_transpose(x.rows, x.off, out.rows, out.off, R, cols, x_rs, o_rs);
}
/// Labels: words labels_off .. labels_off + R − 1 of the top's int array `index`; R rows of
/// `cols` logits, ld words apart.
inline float loss(CRef logits, const int* index, int labels_off, Ref dlogits, int R, int cols, int ld, float scale,
                  Ref stat) {
#pragma HLS INLINE
  return ttsim_loss(logits.rows, logits.off, index, labels_off, dlogits.rows, dlogits.off, R, cols, ld, scale,
                    stat.rows, stat.off);
}
inline void sgd_update(Ref w, Ref g, int words, float lr) {
#pragma HLS INLINE
  ttsim_sgd_update(w.rows, w.off, g.rows, g.off, words, lr);
}

}  // namespace ttsim_hls
