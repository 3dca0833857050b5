#pragma once
// The HLS kernel modules: one stable, non-template top-level function per kernel,
// instantiated with the lane counts of design_config.h. These are the functions the
// training step calls and the names a csynth report shows as modules.
//
// Module name convention (used by calibration to map csynth modules to the
// simulator's kernels): `ttsim_<op>`, where <op> is to_string(TaskOp) of
// models/task_graph.h. A module whose name extends that with `_<suffix>` is a variant
// of the same TaskOp (same loop nest in hls/loop_nest.h):
//
//   module                 TaskOp          loops (hls/loop_nest.h)
//   ttsim_contraction      contraction     contract_column, contract_dot, contract_scalar
//                                          (one runs per call: the operand strides' form)
//   ttsim_softmax          softmax         softmax_max, softmax_exp_sum, softmax_normalize
//   ttsim_softmax_grad     softmax_grad    softmax_grad_dot, softmax_grad_apply
//   ttsim_layernorm        layernorm       layernorm_mean, layernorm_var, layernorm_normalize
//   ttsim_layernorm_grad   layernorm_grad  layernorm_grad_reduce, _input, _params
//   ttsim_gelu             gelu            gelu
//   ttsim_gelu_grad        gelu_grad       gelu_grad
//   ttsim_add              add             add
//   ttsim_add_accumulate   add             add_accumulate (in place, distinct elements)
//   ttsim_column_sum       add             column_sum   (bias gradient: column sums)
//   ttsim_loss             loss            loss_max, loss_exp_sum, loss_grad
//   ttsim_sgd_update       sgd_update      sgd_update
//   ttsim_train_step       (top function: one training step, all parameters on chip)
//
// Every module carries `#pragma HLS INLINE off` (small functions are otherwise inlined
// automatically, and ALLOCATION does not apply to an inlined function): with the glue
// inlined into the top, each module is one RTL instance shared by its call sites.
//
// Pointers are to on-chip arrays; shapes are runtime extents bounded by the
// design_config.h capacities. Semantics of each: the matching *_kernel template in
// contract.h / rowwise.h.

#include "hls/kernels/contract.h"

/// Loop-module names as a table: {module, TaskOp name}.
struct TtsimModuleName {
  const char* module;
  const char* task_op;
};
constexpr TtsimModuleName kTtsimModules[] = {
    {"ttsim_contraction", "contraction"},  {"ttsim_softmax", "softmax"},
    {"ttsim_softmax_grad", "softmax_grad"}, {"ttsim_layernorm", "layernorm"},
    {"ttsim_layernorm_grad", "layernorm_grad"}, {"ttsim_gelu", "gelu"},
    {"ttsim_gelu_grad", "gelu_grad"},      {"ttsim_add", "add"},
    {"ttsim_add_accumulate", "add"},       {"ttsim_column_sum", "add"},
    {"ttsim_loss", "loss"},
    {"ttsim_sgd_update", "sgd_update"},
};

void ttsim_contraction(const float* A, const float* B, float* C, const ttsim_hls::ContractDesc& d);
void ttsim_softmax(const float* in, float* out, int R, int cols, int valid_cols, float* stat);
void ttsim_softmax_grad(const float* P, const float* dP, float* dS, int R, int cols, float* stat);
void ttsim_layernorm(const float* x, const float* gamma, const float* beta, float* y, float* xhat,
                     float* rstd, int R, int cols, float* stat);
void ttsim_layernorm_grad(const float* dy, const float* xhat, const float* rstd,
                          const float* gamma, float* dx, float* dgamma, float* dbeta, int R,
                          int cols, float* stat);
void ttsim_gelu(const float* x, float* y, int R, int cols);
void ttsim_gelu_grad(const float* x, const float* dy, float* dx, int R, int cols);
void ttsim_add(const float* a, const float* b, float* out, int R, int cols, int a_rs, int b_rs,
               int o_rs);
void ttsim_add_accumulate(const float* x, float* acc, int R, int cols, int x_rs, int acc_rs);
void ttsim_column_sum(const float* x, float* sum, int R, int cols, int x_rs);
float ttsim_loss(const float* logits, const int* labels, float* dlogits, int R, int cols,
                 float scale, float* stat);
void ttsim_sgd_update(float* w, float* g, int words, float lr);
