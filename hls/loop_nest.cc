#include "hls/loop_nest.h"

#include <stdexcept>

namespace ttsim {

std::vector<LoopSpec> kernel_loops(TaskOp op, const TaskShape& s, int lanes) {
  if (lanes < 1) throw std::invalid_argument("kernel_loops: lanes must be >= 1");
  if (s.batch < 1 || s.rows < 1 || s.inner < 1 || s.cols < 1) {
    throw std::invalid_argument("kernel_loops: every shape extent must be >= 1");
  }
  const std::int64_t pass = s.batch * s.rows * ceil_div(s.cols, lanes);
  switch (op) {
    case TaskOp::kContraction:
      return {{"contract", s.batch * s.rows * s.inner * ceil_div(s.cols, lanes), {"fmul", "fadd"},
               s.rows * ceil_div(s.cols, lanes)}};
    case TaskOp::kSoftmax:
      return {{"softmax_max", pass, {"fcmp"}},
              {"softmax_exp_sum", pass, {"fadd", "fexp", "fadd"}},
              {"softmax_normalize", pass, {"fmul"}}};
    case TaskOp::kSoftmaxGrad:
      return {{"softmax_grad_dot", pass, {"fmul", "fadd"}},
              {"softmax_grad_apply", pass, {"fadd", "fmul"}}};
    case TaskOp::kLayerNorm:
      return {{"layernorm_mean", pass, {"fadd"}},
              {"layernorm_var", pass, {"fadd", "fmul", "fadd"}},
              {"layernorm_normalize", pass, {"fadd", "fmul", "fmul", "fadd"}}};
    case TaskOp::kLayerNormGrad:
      return {{"layernorm_grad_reduce", pass, {"fmul", "fadd"}},
              {"layernorm_grad_input", pass, {"fmul", "fadd", "fmul"}},
              {"layernorm_grad_params", pass, {"fmul", "fadd"}}};
    case TaskOp::kGelu:
      return {{"gelu", pass, {"fmul", "fmul", "fexp", "fadd", "fdiv", "fmul"}}};
    case TaskOp::kGeluGrad:
      return {{"gelu_grad", pass, {"fmul", "fmul", "fexp", "fadd", "fdiv", "fmul", "fmul"}}};
    case TaskOp::kAdd:
      return {{"add", pass, {"fadd"}}};
    case TaskOp::kLoss:
      return {{"loss_max", pass, {"fcmp"}},
              {"loss_exp_sum", pass, {"fadd", "fexp", "fadd"}},
              {"loss_grad", pass, {"fmul", "fadd"}}};
    case TaskOp::kSgdUpdate:
      return {{"sgd_update", pass, {"fmul", "fadd"}}};
  }
  throw std::invalid_argument("kernel_loops: unknown op");
}

std::int64_t total_trips(TaskOp op, const TaskShape& shape, int lanes) {
  std::int64_t t = 0;
  for (const auto& l : kernel_loops(op, shape, lanes)) t += l.trip;
  return t;
}

}  // namespace ttsim
