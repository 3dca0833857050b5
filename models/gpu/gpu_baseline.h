#pragma once
// GPU baseline: time, power, energy and memory of one eager-PyTorch batch-1 training step
// (models/gpu/torch_layers.h builds its ops) on a GPU described by a GPU file
// (models/gpu/gpu_spec.h; every constant named below is one of its "constants").
//
// Time. The CPU dispatches the ops one after another; the GPU runs their kernels in stream
// order, each as soon as it is launched and the previous one is done. Eager batch-1
// training keeps both queues busy, so the step takes the longer of the two chains plus
// the synchronisations that drain them:
//   host   = Σ_ops dispatch time of the op's kind (forward_op_dispatch_us, view_op_dispatch_us,
//            backward_op_dispatch_us, backward_view_dispatch_us, backward_call_us,
//            optimizer_tensor_us, forward_op_dispatch_us + foreach_tensor_us · tensors for a
//            foreach call, zero_grad_tensor_us · tensors, module_call_us per nn.Module call,
//            python_step_us once, h2d_copy_us per input tensor copied to the GPU)
//            + extra_kernel_launch_us per kernel beyond an op's first
//   kernel = Σ_kernels max(kernel_floor_us, roofline),
//            roofline = max(FLOPs / (fp32_peak · compute_efficiency),
//                           bytes / (memory_bandwidth · bandwidth_efficiency))
//   step   = max(host, kernel) + sync_us · syncs
// (the two-queue bound; the real overlap can only be worse).
// Power follows the P-state: while a CUDA context is open the card sits in P2 whatever the
// load (baseline-facts.md), so
//   E = p2_idle_watts · step + (p2_light_watts − p2_idle_watts) · kernel
//       + (busy_watts − p2_light_watts) · Σ roofline,
//   P = E / step,
// i.e. P2 idle for the whole step, the light-work increment while any kernel runs, and the
// board limit only for the share of kernel time at which a roofline resource is saturated.
// P ≥ p2_idle_watts always, and E grows with the step time.
//
// Memory. What the caching allocator reserves (torch.cuda.memory_reserved): every
// parameter, every gradient, every activation saved for backward, a transient of two of
// the largest activations (a gradient in flight and the tensor it is computed from) and
// the cuBLAS workspace, each allocation rounded up to allocator_min_block_bytes; blocks up
// to allocator_small_size_bytes are carved from allocator_small_segment_bytes segments,
// blocks below allocator_min_large_alloc_bytes from allocator_large_segment_bytes
// segments, larger ones get their own segment rounded up to allocator_round_large_bytes
// (CUDACachingAllocator.cpp). The CUDA context (cuda_context_bytes) is outside the
// allocator and reported separately.

#include <cstdint>

#include "models/gpu/gpu_spec.h"
#include "models/gpu/torch_ops.h"

namespace ttsim {

/// Bytes by term (FP32) and what the allocator reserves for them.
struct GpuMemory {
  double weights = 0, gradients = 0, optimizer_state = 0, activations = 0, temporaries = 0,
         workspace = 0;
  double allocated = 0;  ///< Σ allocations rounded to allocator_min_block_bytes
  double reserved = 0;   ///< segments the caching allocator holds (torch.cuda.memory_reserved)
  double context = 0;    ///< CUDA context, outside the allocator
  double total() const { return reserved + context; }
};

/// Cost of one training step on the GPU.
struct GpuStep {
  std::int64_t ops = 0;           ///< dispatcher calls (forward ops, views, autograd nodes, optimizer calls, input copies)
  std::int64_t module_calls = 0;  ///< nn.Module.__call__ of the step (Python, not dispatcher calls)
  std::int64_t kernels = 0;       ///< kernel launches
  double flops = 0;               ///< floating-point operations
  double bytes = 0;               ///< DRAM bytes read and written
  double host_seconds = 0;        ///< Σ dispatch time (CPU chain)
  double kernel_seconds = 0;      ///< Σ max(kernel floor, roofline) (GPU chain)
  double roofline_seconds = 0;    ///< Σ roofline time (saturated share)
  double sync_seconds = 0;        ///< Σ synchronisations
  double seconds = 0;             ///< max(host, kernel) + sync
  double power_watts = 0;         ///< energy / seconds
  double energy_joules = 0;
  bool host_bound() const { return host_seconds >= kernel_seconds; }
};

/// Host time of one op (seconds), from its dispatch kind and kernel count.
double op_host_seconds(const TorchOp& op, const GpuSpec& gpu);
/// Roofline time of one kernel (seconds).
double kernel_roofline_seconds(const GpuKernel& k, const GpuSpec& gpu);
/// Time, power and energy of `program` (formulas above).
GpuStep gpu_step(const TorchProgram& program, const GpuSpec& gpu);
/// Energy of a step of `seconds` with `kernel_seconds` of kernels of which
/// `roofline_seconds` saturate a resource (joules; formula above).
double gpu_step_energy(double seconds, double kernel_seconds, double roofline_seconds, const GpuSpec& gpu);
/// Memory of training with `program` (formulas above).
GpuMemory gpu_memory(const TorchProgram& program, const GpuSpec& gpu);

}  // namespace ttsim
