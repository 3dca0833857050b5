#include "models/gpu/torch_ops.h"

namespace ttsim {

const char* to_string(DispatchKind k) {
  switch (k) {
    case DispatchKind::kForwardOp: return "forward_op";
    case DispatchKind::kView: return "view";
    case DispatchKind::kBackwardOp: return "backward_op";
    case DispatchKind::kBackwardView: return "backward_view";
    case DispatchKind::kBackwardCall: return "backward_call";
    case DispatchKind::kSync: return "sync";
    case DispatchKind::kOptimizerTensor: return "optimizer_tensor";
    case DispatchKind::kForeachCall: return "foreach_call";
    case DispatchKind::kZeroGrad: return "zero_grad";
    case DispatchKind::kModuleCall: return "module_call";
    case DispatchKind::kPythonStep: return "python_step";
    case DispatchKind::kHostCopy: return "host_copy";
  }
  return "?";
}

const char* to_string(OpPhase p) {
  switch (p) {
    case OpPhase::kInput: return "input";
    case OpPhase::kForward: return "forward";
    case OpPhase::kLoss: return "loss";
    case OpPhase::kBackward: return "backward";
    case OpPhase::kOptimizer: return "optimizer";
  }
  return "?";
}

std::int64_t TorchProgram::count(OpPhase p) const {
  std::int64_t n = 0;
  for (const auto& o : ops) n += o.phase == p;
  return n;
}

std::int64_t TorchProgram::kernels() const {
  std::int64_t n = 0;
  for (const auto& o : ops) n += static_cast<std::int64_t>(o.kernels.size());
  return n;
}

std::int64_t TorchProgram::kernels(OpPhase p) const {
  std::int64_t n = 0;
  for (const auto& o : ops) n += o.phase == p ? static_cast<std::int64_t>(o.kernels.size()) : 0;
  return n;
}

std::vector<TorchOp> TorchProgram::of_layer(const std::string& layer) const {
  std::vector<TorchOp> out;
  for (const auto& o : ops) {
    if (o.layer == layer) out.push_back(o);
  }
  return out;
}

GpuKernel gemm_kernel(double m, double n, double k) { return {2.0 * m * n * k, 4.0 * (m * k + k * n + m * n)}; }

GpuKernel copy_kernel(double elements) { return {0.0, 8.0 * elements}; }

GpuKernel elementwise_kernel(double elements, double flops_per, double tensors) {
  return {flops_per * elements, 4.0 * tensors * elements};
}

}  // namespace ttsim
