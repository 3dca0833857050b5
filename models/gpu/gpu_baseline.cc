#include "models/gpu/gpu_baseline.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ttsim {

double op_host_seconds(const TorchOp& op, const GpuSpec& g) {
  double us = 0;
  switch (op.dispatch) {
    case DispatchKind::kForwardOp: us = g.at("forward_op_dispatch_us"); break;
    case DispatchKind::kView: us = g.at("view_op_dispatch_us"); break;
    case DispatchKind::kBackwardOp: us = g.at("backward_op_dispatch_us"); break;
    case DispatchKind::kBackwardView: us = g.at("backward_view_dispatch_us"); break;
    case DispatchKind::kBackwardCall: us = g.at("backward_call_us"); break;
    case DispatchKind::kSync: us = g.at("sync_us"); break;
    case DispatchKind::kOptimizerTensor: us = g.at("optimizer_tensor_us"); break;
    case DispatchKind::kForeachCall:
      us = g.at("forward_op_dispatch_us") + g.at("foreach_tensor_us") * op.tensors;
      break;
    case DispatchKind::kZeroGrad: us = g.at("zero_grad_tensor_us") * op.tensors; break;
    case DispatchKind::kModuleCall: us = g.at("module_call_us"); break;
    case DispatchKind::kPythonStep: us = g.at("python_step_us"); break;
    case DispatchKind::kHostCopy: us = g.at("h2d_copy_us"); break;
  }
  if (op.kernels.size() > 1) us += g.at("extra_kernel_launch_us") * static_cast<double>(op.kernels.size() - 1);
  return us * 1e-6;
}

double kernel_roofline_seconds(const GpuKernel& k, const GpuSpec& g) {
  const double flop_rate = g.at("fp32_peak_tflops") * 1e12 * g.at("compute_efficiency");
  const double byte_rate = g.at("memory_bandwidth_gbs") * 1e9 * g.at("bandwidth_efficiency");
  return std::max(k.flops / flop_rate, k.bytes / byte_rate);
}

double gpu_step_energy(double seconds, double kernel_seconds, double roofline_seconds, const GpuSpec& g) {
  return g.at("p2_idle_watts") * seconds + (g.at("p2_light_watts") - g.at("p2_idle_watts")) * kernel_seconds +
         (g.at("busy_watts") - g.at("p2_light_watts")) * roofline_seconds;
}

GpuStep gpu_step(const TorchProgram& p, const GpuSpec& g) {
  GpuStep s;
  const double floor_s = g.at("kernel_floor_us") * 1e-6;
  for (const TorchOp& op : p.ops) {
    if (op.dispatch == DispatchKind::kModuleCall) s.module_calls += 1;
    else if (op.dispatch != DispatchKind::kPythonStep) s.ops += 1;
    const double host = op_host_seconds(op, g);
    if (op.dispatch == DispatchKind::kSync) s.sync_seconds += host;
    else s.host_seconds += host;
    for (const GpuKernel& k : op.kernels) {
      const double roof = kernel_roofline_seconds(k, g);
      s.kernels += 1;
      s.flops += k.flops;
      s.bytes += k.bytes;
      s.roofline_seconds += roof;
      s.kernel_seconds += std::max(floor_s, roof);
    }
  }
  s.seconds = std::max(s.host_seconds, s.kernel_seconds) + s.sync_seconds;
  s.energy_joules = gpu_step_energy(s.seconds, s.kernel_seconds, s.roofline_seconds, g);
  s.power_watts = s.seconds > 0 ? s.energy_joules / s.seconds : g.at("p2_idle_watts");
  return s;
}

GpuMemory gpu_memory(const TorchProgram& p, const GpuSpec& g) {
  GpuMemory m;
  std::vector<double> allocations;
  for (double b : p.parameter_bytes) {
    m.weights += b;
    m.gradients += b;
    allocations.push_back(b);
    allocations.push_back(b);
  }
  double largest = 0;
  for (const TorchOp& op : p.ops) {
    if (op.out_bytes <= 0) continue;
    largest = std::max(largest, op.out_bytes);
    if (op.saved) {
      m.activations += op.out_bytes;
      allocations.push_back(op.out_bytes);
    }
  }
  m.temporaries = 2 * largest;
  allocations.push_back(largest);
  allocations.push_back(largest);
  m.optimizer_state = 0;  // plain SGD keeps no state
  m.workspace = g.at("cublas_workspace_bytes");
  allocations.push_back(m.workspace);
  const double block = g.at("allocator_min_block_bytes"), small = g.at("allocator_small_size_bytes"),
               small_seg = g.at("allocator_small_segment_bytes"), large_seg = g.at("allocator_large_segment_bytes"),
               min_large = g.at("allocator_min_large_alloc_bytes"), round_large = g.at("allocator_round_large_bytes");
  double small_total = 0, mid_total = 0, large_reserved = 0;
  for (double a : allocations) {
    const double r = std::ceil(a / block) * block;
    m.allocated += r;
    if (r <= small) small_total += r;
    else if (r < min_large) mid_total += r;
    else large_reserved += std::ceil(r / round_large) * round_large;
  }
  m.reserved = std::ceil(small_total / small_seg) * small_seg + std::ceil(mid_total / large_seg) * large_seg +
               large_reserved;
  m.context = g.at("cuda_context_bytes");
  return m;
}

}  // namespace ttsim
