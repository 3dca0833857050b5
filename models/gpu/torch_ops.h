#pragma once
// Eager PyTorch training at batch 1, op by op: what the Python program of one training
// step dispatches on the CPU and launches on the GPU. Each op is one dispatcher call
// (a forward op recorded by autograd, a view, an autograd node run by the engine in
// backward, an optimizer call) with its GPU kernels (each with FLOPs and DRAM bytes for a
// roofline time). Layer decompositions (models/gpu/torch_layers.h) build the list; the
// pricing (models/gpu/gpu_baseline.h) turns it into seconds and joules.

#include <cstdint>
#include <string>
#include <vector>

namespace ttsim {

/// Which host-time constant of the GPU file an op is charged (configs/devices/rtx3090.json).
enum class DispatchKind {
  kForwardOp,      ///< forward op with autograd recording that launches kernels: forward_op_dispatch_us
  kView,           ///< view / no-op forward (reshape of a viewable tensor, permute, transpose, select): view_op_dispatch_us
  kBackwardOp,     ///< autograd node that launches kernels: backward_op_dispatch_us
  kBackwardView,   ///< autograd node without kernels (ViewBackward0, CloneBackward0, AccumulateGrad of a fresh gradient): backward_view_dispatch_us
  kBackwardCall,   ///< loss.backward() entry: backward_call_us
  kSync,           ///< loss.item(): sync_us
  kOptimizerTensor,  ///< one param.add_ of SGD without foreach: optimizer_tensor_us
  kForeachCall,    ///< one torch._foreach_add_ call: forward_op_dispatch_us + foreach_tensor_us per tensor
  kZeroGrad,       ///< zero_grad(set_to_none=True): zero_grad_tensor_us per tensor
  kModuleCall,     ///< one nn.Module.__call__ (hook checks, forward dispatch in Python): module_call_us
  kPythonStep,     ///< the Python training loop's own work once per step (next sample, loop body): python_step_us
  kHostCopy,       ///< tensor.to('cuda') of a pageable host tensor (synchronous staging copy): h2d_copy_us
};
/// "forward_op", "view", ... (the names used in JSON and tables).
const char* to_string(DispatchKind k);

/// Phase of the training step an op belongs to.
enum class OpPhase { kInput, kForward, kLoss, kBackward, kOptimizer };
const char* to_string(OpPhase p);

/// One GPU kernel: FP32 FLOPs and DRAM bytes moved (read + written).
struct GpuKernel {
  double flops = 0;
  double bytes = 0;
};

/// One dispatcher call of eager PyTorch.
struct TorchOp {
  std::string name;   ///< aten op or autograd node, e.g. "mm", "contiguous", "MmBackward0"
  std::string layer;  ///< "enc0.q", "enc0.attention", "loss", "optimizer", ...
  OpPhase phase = OpPhase::kForward;
  DispatchKind dispatch = DispatchKind::kForwardOp;
  double tensors = 0;  ///< parameter tensors handled (kForeachCall, kZeroGrad), else 0
  std::vector<GpuKernel> kernels;
  double out_bytes = 0;  ///< bytes of a new tensor it allocates (0 for views)
  bool saved = false;    ///< its output is kept for backward (saved activation)
};

/// The ops of one training step and the tensors that persist across it.
struct TorchProgram {
  std::vector<TorchOp> ops;
  std::vector<double> parameter_bytes;  ///< one entry per parameter tensor (its gradient has the same size)

  std::int64_t count(OpPhase p) const;          ///< ops of a phase
  std::int64_t kernels() const;                 ///< Σ kernels
  std::int64_t kernels(OpPhase p) const;        ///< kernels of a phase
  /// Ops of `layer` (all phases), for tests and tables.
  std::vector<TorchOp> of_layer(const std::string& layer) const;
};

/// Kernel of a GEMM C(m×n) = A(m×k)·B(k×n), FP32: 2mnk FLOPs, 4(mk + kn + mn) bytes.
GpuKernel gemm_kernel(double m, double n, double k);
/// Kernel that copies `elements` FP32 words (read + write: 8 bytes each).
GpuKernel copy_kernel(double elements);
/// Element-wise kernel over `elements` words: `flops_per` FLOPs each, `tensors` FP32
/// tensors of that size read or written.
GpuKernel elementwise_kernel(double elements, double flops_per, double tensors);

}  // namespace ttsim
