#pragma once
// Layer-by-layer decomposition of one eager-PyTorch training step of the workload
// (models/model_spec.h) into dispatcher calls and GPU kernels (models/gpu/torch_ops.h).
// Each function appends a layer's forward ops and the autograd nodes its backward runs.
//
// The reference program is the plain PyTorch a practitioner writes for this model at
// batch 1 (no torch.compile, no CUDA graphs, no fused kernels beyond what ATen does by
// itself): nn.Linear for dense layers; TT layers as chains of torch.mm over
// reshaped/permuted tensors (the sequential flow contracts X through the cores one at a
// time; the BTT flow merges the input-side cores into L (M×r) and the output-side cores
// into R (r×N) with mm only, then X·L·R); the TTM embedding as per-core index_select and
// a bmm chain; multi-head attention with view/transpose/bmm/softmax; F.layer_norm,
// F.gelu, F.cross_entropy; SGD through torch.optim.SGD.
//
// Rules for reshapes (PyTorch's view semantics): a permute followed by a reshape to a
// matrix is a view when the permuted tensor is still contiguous once size-1 dimensions
// are ignored, otherwise .contiguous() launches one copy kernel; in backward the reshape
// of a non-contiguous gradient copies (ViewBackward0 with a kernel); AccumulateGrad copies
// a non-contiguous fresh gradient into the parameter's layout (one kernel), otherwise
// steals it (no kernel). Gradients that meet at a tensor used twice are summed by the
// engine (one add kernel per extra use). Kernel counts per node from ATen: mm/addmm/bmm
// one kernel; MmBackward0/BmmBackward0 two; AddmmBackward0 three (two GEMMs and the bias
// sum); NativeLayerNormBackward0 two (grad input and gamma/beta, layer_norm_kernel.cu);
// cross_entropy = log_softmax + nll_loss, one kernel each; NllLossBackward0 two (zero
// fill, scatter); IndexSelectBackward0 / SliceBackward0 / SelectBackward0 two (zero fill,
// index_add / copy); EmbeddingBackward0 four (assumption: zero fill, index sort (two cub
// kernels), accumulate).

#include <cstdint>

#include "core/json_view.h"
#include "models/flows.h"
#include "models/gpu/torch_ops.h"
#include "models/model_spec.h"

namespace ttsim {

/// The constants of the decomposition (FLOPs per element of the row / element-wise
/// kernels, kernels per op and node) with their sources or "assumption".
Json torch_op_constants_json();

/// Collects forward ops in order and backward nodes layer by layer (run in reverse).
class TorchStepBuilder {
 public:
  explicit TorchStepBuilder(TorchProgram& program) : p_(program) {}
  /// Sets the layer name and phase of the ops that follow.
  void layer(const std::string& name, OpPhase forward_phase = OpPhase::kForward);
  /// One nn.Module.__call__ of `module` (DispatchKind::kModuleCall): each layer a Python
  /// implementation calls as a module (the model, embeddings, encoder layers, attention,
  /// linear layers, LayerNorms, GELU, the two losses).
  void module_call(const std::string& module);
  void view(const char* name);
  void op(const char* name, std::vector<GpuKernel> kernels, double out_bytes, bool saved);
  void bview(const char* name);
  void bop(const char* name, std::vector<GpuKernel> kernels);
  void parameter(double elements) { p_.parameter_bytes.push_back(4.0 * elements); }
  /// Appends the collected backward nodes in reverse layer order.
  void finish_backward();
  TorchProgram& program() { return p_; }

 private:
  TorchProgram& p_;
  std::string layer_;
  OpPhase phase_ = OpPhase::kForward;
  std::vector<std::vector<TorchOp>> backward_;  ///< per layer, in forward order
};

/// One linear layer Y = X·W + b on `rows` rows of X: dense (nn.Linear: addmm;
/// AddmmBackward0), TT with the sequential flow (`flow` kTT) or the BTT flow (kBTT).
/// A TT layer with flow kMM is priced as dense (the rebuilt W).
void linear_ops(TorchStepBuilder& b, const LinearLayerSpec& l, Flow flow, double rows);

/// Token embedding (dense nn.Embedding or TTM cores) of `tokens` ids plus the position
/// slice and the embedding LayerNorm.
void embedding_ops(TorchStepBuilder& b, const ModelSpec& m, double tokens);

/// One encoder layer (Q, K, V, O, attention core, residuals, LayerNorms, FFN with GELU)
/// on `tokens` tokens; TT layers use `flow`.
void encoder_ops(TorchStepBuilder& b, const ModelSpec& m, int encoder, Flow flow, double tokens);

/// Intent head (first token) and slot head (every token), their cross-entropy losses and
/// their sum.
void heads_and_loss_ops(TorchStepBuilder& b, const ModelSpec& m, Flow flow, double tokens);

/// The whole step: input upload (3 host-to-device copies), zero_grad, forward, loss,
/// loss.backward(), loss.item() (the step's one synchronisation) and SGD over every
/// parameter tensor, with torch._foreach_add_ when `foreach` (multi_tensor_apply launches
/// as MultiTensorApply.cuh packs them, limits from the GPU file's foreach_* constants)
/// or one param.add_ per tensor otherwise.
TorchProgram torch_training_step(const ModelSpec& m, Flow flow, std::int64_t tokens, bool foreach,
                                 double foreach_max_tensors, double foreach_max_blocks,
                                 double foreach_chunk_elements);

}  // namespace ttsim
