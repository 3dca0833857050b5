#include "models/gpu/torch_layers.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ttsim {

namespace {

GpuKernel bmm_kernel(double batch, double m, double n, double k) {
  return {2.0 * batch * m * n * k, 4.0 * batch * (m * k + k * n + m * n)};
}

/// Element-wise / row kernels: FLOPs per element (torch_op_constants_json lists them).
constexpr double kGeluFlops = 10, kGeluGradFlops = 14, kSoftmaxFlops = 5, kSoftmaxGradFlops = 3,
                 kLayerNormFlops = 8, kLayerNormGradFlops = 10, kLayerNormParamGradFlops = 4;

void dense_linear(TorchStepBuilder& b, const LinearLayerSpec& l, double rows) {
  const double M = static_cast<double>(l.in_dim), N = static_cast<double>(l.out_dim);
  b.parameter(M * N);
  if (l.bias) b.parameter(N);
  // F.linear: weight.t() (view) and addmm (bias folded into the GEMM epilogue).
  b.view("t");
  b.op(l.bias ? "addmm" : "mm", {gemm_kernel(rows, N, M)}, 4.0 * rows * N, true);
  // AddmmBackward0: grad X = dY·Wᵀ, grad W = Xᵀ·dY, grad b = Σ_rows dY.
  std::vector<GpuKernel> k = {gemm_kernel(rows, M, N), gemm_kernel(M, N, rows)};
  if (l.bias) k.push_back(elementwise_kernel(rows * N, 1, 1));
  b.bop(l.bias ? "AddmmBackward0" : "MmBackward0", k);
  b.bview("TBackward0");
  b.bview("AccumulateGrad");
  if (l.bias) b.bview("AccumulateGrad");
}

void bias_add(TorchStepBuilder& b, const LinearLayerSpec& l, double rows) {
  const double N = static_cast<double>(l.out_dim);
  b.view("view");  // (rows·n_1·…, 1) → (rows, N)
  b.bview("ViewBackward0");
  if (!l.bias) return;
  b.parameter(N);
  b.op("add", {elementwise_kernel(rows * N, 1, 3)}, 4.0 * rows * N, false);
  b.bop("AddBackward0", {elementwise_kernel(rows * N, 1, 1)});  // sum_to_size for the broadcast bias
  b.bview("AccumulateGrad");
}

/// Sequential TT flow: X (K×M) through the d input cores, one mm each, then the e output cores.
void tt_sequential(TorchStepBuilder& b, const LinearLayerSpec& l, double K) {
  const TtShape& s = l.tt;
  const std::size_t d = s.in_factors.size();
  double rest = static_cast<double>(l.in_dim);
  for (std::size_t k = 0; k < d; ++k) {
    const double m = static_cast<double>(s.in_factors[k]);
    const double r = static_cast<double>(s.ranks[k]), r2 = static_cast<double>(s.ranks[k + 1]);
    rest /= m;
    b.parameter(r * m * r2);
    const bool copy_t = m > 1 && rest > 1;  // (K, m, rest, r).permute(0,2,1,3) not contiguous
    const bool copy_core = r > 1 && m > 1;  // core (r, m, r2).permute(1,0,2) not contiguous
    const double t_elems = K * m * rest * r;
    b.view("reshape");
    b.view("permute");
    if (copy_t) b.op("contiguous", {copy_kernel(t_elems)}, 4.0 * t_elems, true);
    else b.view("contiguous");
    b.view("view");
    b.view("permute");
    if (copy_core) b.op("contiguous", {copy_kernel(r * m * r2)}, 4.0 * r * m * r2, true);
    else b.view("contiguous");
    b.view("view");
    b.op("mm", {gemm_kernel(K * rest, r2, m * r)}, 4.0 * K * rest * r2, true);
    b.bop("MmBackward0", {gemm_kernel(K * rest, m * r, r2), gemm_kernel(m * r, r2, K * rest)});
    b.bview("ViewBackward0");
    if (copy_core) b.bview("CloneBackward0");
    b.bview("PermuteBackward0");
    if (copy_core) b.bop("AccumulateGrad", {copy_kernel(r * m * r2)});  // non-contiguous fresh grad
    else b.bview("AccumulateGrad");
    b.bview("ViewBackward0");
    if (copy_t) b.bview("CloneBackward0");
    b.bview("PermuteBackward0");
    if (copy_t) b.bop("ViewBackward0", {copy_kernel(t_elems)});  // reshape of a non-contiguous grad
    else b.bview("ViewBackward0");
  }
  double A = K;
  for (std::size_t j = 0; j < s.out_factors.size(); ++j) {
    const double n = static_cast<double>(s.out_factors[j]);
    const double r = static_cast<double>(s.ranks[d + j]), r2 = static_cast<double>(s.ranks[d + j + 1]);
    b.parameter(r * n * r2);
    b.view("view");  // core (r, n, r2) → (r, n·r2)
    b.op("mm", {gemm_kernel(A, n * r2, r)}, 4.0 * A * n * r2, true);
    b.view("view");  // (A, n·r2) → (A·n, r2)
    b.bview("ViewBackward0");
    b.bop("MmBackward0", {gemm_kernel(A, r, n * r2), gemm_kernel(r, n * r2, A)});
    b.bview("ViewBackward0");
    b.bview("AccumulateGrad");
    A *= n;
  }
  bias_add(b, l, K);
}

/// One merge chain of BTT: cores (r_k, s_k, r_{k+1}) multiplied left to right with mm and
/// views only (rows = Π of the modes merged so far × the leading rank).
void btt_chain(TorchStepBuilder& b, const TtShape& s, std::size_t first, std::size_t last) {
  double rows = static_cast<double>(s.ranks[first]) * static_cast<double>(s.mode(first));
  for (std::size_t k = first; k < last; ++k) b.parameter(static_cast<double>(s.core_words(k)));
  b.view("view");  // first core → (r·s, r')
  b.bview("ViewBackward0");
  b.bview("AccumulateGrad");
  for (std::size_t k = first + 1; k < last; ++k) {
    const double r = static_cast<double>(s.ranks[k]), m = static_cast<double>(s.mode(k)),
                 r2 = static_cast<double>(s.ranks[k + 1]);
    b.view("view");  // core → (r, m·r2)
    b.op("mm", {gemm_kernel(rows, m * r2, r)}, 4.0 * rows * m * r2, true);
    b.view("view");  // (rows, m·r2) → (rows·m, r2)
    b.bview("ViewBackward0");
    b.bop("MmBackward0", {gemm_kernel(rows, r, m * r2), gemm_kernel(r, m * r2, rows)});
    b.bview("ViewBackward0");
    b.bview("AccumulateGrad");
    rows *= m;
  }
}

void tt_btt(TorchStepBuilder& b, const LinearLayerSpec& l, double K) {
  const TtShape& s = l.tt;
  const std::size_t d = s.in_factors.size();
  const double M = static_cast<double>(l.in_dim), N = static_cast<double>(l.out_dim);
  const double r = static_cast<double>(s.ranks[d]);
  btt_chain(b, s, 0, d);            // L: (M, r_d)
  btt_chain(b, s, d, s.cores());    // R: (r_d·N, 1)
  b.view("view");                   // R → (r_d, N)
  b.bview("ViewBackward0");
  b.op("mm", {gemm_kernel(K, r, M)}, 4.0 * K * r, true);  // Z = X·L
  b.op("mm", {gemm_kernel(K, N, r)}, 4.0 * K * N, true);  // Y = Z·R
  b.bop("MmBackward0", {gemm_kernel(K, r, N), gemm_kernel(r, N, K)});
  b.bop("MmBackward0", {gemm_kernel(K, M, r), gemm_kernel(M, r, K)});
  bias_add(b, l, K);
}

void layer_norm(TorchStepBuilder& b, double rows, double D) {
  b.parameter(D);
  b.parameter(D);
  b.op("layer_norm", {elementwise_kernel(rows * D, kLayerNormFlops, 2)}, 4.0 * rows * D, true);
  b.bop("NativeLayerNormBackward0", {elementwise_kernel(rows * D, kLayerNormGradFlops, 3),
                                     elementwise_kernel(rows * D, kLayerNormParamGradFlops, 2)});
  b.bview("AccumulateGrad");
  b.bview("AccumulateGrad");
}

/// The engine sums the gradients of a tensor used `uses` times: uses − 1 add kernels.
void gradient_merge(TorchStepBuilder& b, double elements, int uses) {
  for (int i = 1; i < uses; ++i) b.bop("accumulate", {elementwise_kernel(elements, 1, 3)});
}

void cross_entropy(TorchStepBuilder& b, double rows, double classes) {
  b.op("log_softmax", {elementwise_kernel(rows * classes, kSoftmaxFlops, 2)}, 4.0 * rows * classes, true);
  b.op("nll_loss", {elementwise_kernel(rows, 1, 1)}, 4.0, false);
  b.bop("NllLossBackward0", {elementwise_kernel(rows * classes, 0, 1), elementwise_kernel(rows, 0, 1)});
  b.bop("LogSoftmaxBackward0", {elementwise_kernel(rows * classes, kSoftmaxGradFlops, 3)});
}

const LinearLayerSpec& find_linear(const ModelSpec& m, const std::string& name) {
  for (const auto& l : m.linears) {
    if (l.name == name) return l;
  }
  throw std::out_of_range("model " + m.name + " has no linear layer " + name);
}

}  // namespace

Json torch_op_constants_json() {
  const char* flops_src =
      "assumption: FLOPs per element of the kernel, counted from the formula (GELU tanh form: cube, mul-adds, tanh, "
      "scale; softmax: max, sub, exp, sum, div; LayerNorm: mean, variance, normalise, scale, shift); they only set "
      "the roofline time, which the kernel floor exceeds at batch 1";
  Json j = Json::object();
  const std::pair<const char*, double> flops[] = {
      {"gelu_flops_per_element", kGeluFlops},         {"gelu_backward_flops_per_element", kGeluGradFlops},
      {"softmax_flops_per_element", kSoftmaxFlops},   {"softmax_backward_flops_per_element", kSoftmaxGradFlops},
      {"layer_norm_flops_per_element", kLayerNormFlops},
      {"layer_norm_backward_flops_per_element", kLayerNormGradFlops},
      {"layer_norm_param_backward_flops_per_element", kLayerNormParamGradFlops}};
  for (const auto& [k, v] : flops) j[k] = {{"value", v}, {"unit", "FLOP per element"}, {"kind", "assumption"}, {"source", flops_src}};
  const std::pair<const char*, const char*> kernels[] = {
      {"mm_addmm_bmm", "1 kernel each (one cuBLAS GEMM; the bias of addmm in its epilogue): assumption, no profiler trace reached"},
      {"MmBackward0_BmmBackward0", "2 kernels: grad of each operand (pytorch tools/autograd/derivatives.yaml)"},
      {"AddmmBackward0", "3 kernels: two GEMMs and the bias sum (derivatives.yaml)"},
      {"NativeLayerNormBackward0", "2 kernels: grad input and gamma/beta (pytorch layer_norm_kernel.cu, pull/150625)"},
      {"cross_entropy", "2 forward kernels (log_softmax, nll_loss); NllLossBackward0 2 (zero fill, scatter), "
                        "LogSoftmaxBackward0 1: assumption from the ATen ops it calls"},
      {"IndexSelectBackward0_SliceBackward0_SelectBackward0", "2 kernels: zero fill and index_add / copy (derivatives.yaml)"},
      {"EmbeddingBackward0", "4 kernels: assumption (zero fill, index sort, accumulate)"},
      {"contiguous_copy", "1 copy kernel when a permuted tensor is not contiguous once size-1 dimensions are ignored "
                          "(PyTorch view semantics)"},
      {"gradient_sum", "1 add kernel per extra use of a tensor (the autograd engine's input buffer)"},
      {"optimizer_foreach", "multi_tensor_apply launches as MultiTensorApply.cuh packs them (foreach_* constants)"},
      {"loss_backward", "1 kernel: ones_like(loss) seeding the backward pass"}};
  for (const auto& [k, v] : kernels) j["kernels_per_op"][k] = v;
  return j;
}

void TorchStepBuilder::layer(const std::string& name, OpPhase forward_phase) {
  layer_ = name;
  phase_ = forward_phase;
  backward_.emplace_back();
}

void TorchStepBuilder::module_call(const std::string& module) {
  TorchOp o;
  o.name = module + ".__call__";
  o.layer = layer_;
  o.phase = phase_;
  o.dispatch = DispatchKind::kModuleCall;
  p_.ops.push_back(o);
}

void TorchStepBuilder::view(const char* name) {
  TorchOp o;
  o.name = name;
  o.layer = layer_;
  o.phase = phase_;
  o.dispatch = DispatchKind::kView;
  p_.ops.push_back(o);
}

void TorchStepBuilder::op(const char* name, std::vector<GpuKernel> kernels, double out_bytes, bool saved) {
  TorchOp o;
  o.name = name;
  o.layer = layer_;
  o.phase = phase_;
  o.dispatch = DispatchKind::kForwardOp;
  o.kernels = std::move(kernels);
  o.out_bytes = out_bytes;
  o.saved = saved;
  p_.ops.push_back(o);
}

void TorchStepBuilder::bview(const char* name) {
  if (backward_.empty()) backward_.emplace_back();
  TorchOp o;
  o.name = name;
  o.layer = layer_;
  o.phase = OpPhase::kBackward;
  o.dispatch = DispatchKind::kBackwardView;
  backward_.back().push_back(o);
}

void TorchStepBuilder::bop(const char* name, std::vector<GpuKernel> kernels) {
  if (backward_.empty()) backward_.emplace_back();
  TorchOp o;
  o.name = name;
  o.layer = layer_;
  o.phase = OpPhase::kBackward;
  o.dispatch = DispatchKind::kBackwardOp;
  o.kernels = std::move(kernels);
  backward_.back().push_back(o);
}

void TorchStepBuilder::finish_backward() {
  for (auto it = backward_.rbegin(); it != backward_.rend(); ++it) {
    for (auto& o : *it) p_.ops.push_back(std::move(o));
  }
  backward_.clear();
}

void linear_ops(TorchStepBuilder& b, const LinearLayerSpec& l, Flow flow, double rows) {
  b.layer(l.name);
  b.module_call(l.name);
  if (l.format != WeightFormat::kTT || flow == Flow::kMM) dense_linear(b, l, rows);
  else if (flow == Flow::kTT) tt_sequential(b, l, rows);
  else tt_btt(b, l, rows);
}

void embedding_ops(TorchStepBuilder& b, const ModelSpec& m, double K) {
  const double D = static_cast<double>(m.d_model);
  b.layer("token_embedding");
  b.module_call("token_embedding");
  const EmbeddingSpec& e = m.token_embedding;
  if (e.format != WeightFormat::kTTM) {
    const double V = static_cast<double>(e.vocab);
    b.parameter(V * D);
    b.op("embedding", {copy_kernel(K * D)}, 4.0 * K * D, false);
    b.bop("EmbeddingBackward0", {elementwise_kernel(V * D, 0, 1), elementwise_kernel(K, 2, 2),
                                 elementwise_kernel(K, 2, 2), elementwise_kernel(K * D, 1, 3)});
    b.bview("AccumulateGrad");
  } else {
    const TtmShape& t = e.ttm;
    const std::size_t d = t.cores();
    // Factor indices i_k = (ids // stride_k) % v_k: integer ops without gradient.
    for (std::size_t k = 0; k < d; ++k) {
      const int ops = (k == 0 || k + 1 == d) ? 1 : 2;
      for (int i = 0; i < ops; ++i) b.op(k + 1 == d ? "remainder" : "floor_divide", {elementwise_kernel(K, 1, 2)}, 4.0 * K, false);
    }
    double E = 1;
    for (std::size_t k = 0; k < d; ++k) {
      const double r = static_cast<double>(t.ranks[k]), v = static_cast<double>(t.vocab_factors[k]),
                   ek = static_cast<double>(t.dim_factors[k]), r2 = static_cast<double>(t.ranks[k + 1]);
      b.parameter(r * v * ek * r2);
      const double g = r * K * ek * r2;  // gathered slice (r, K, e, r2)
      b.op("index_select", {copy_kernel(g)}, 4.0 * g, k > 0 && r == 1);
      b.bop("IndexSelectBackward0", {elementwise_kernel(r * v * ek * r2, 0, 1), elementwise_kernel(g, 1, 3)});
      b.bview("AccumulateGrad");
      if (k == 0) {
        b.view("view");  // (1, K, e1, r1) → (K, e1, r1)
        b.bview("ViewBackward0");
      } else {
        b.view("permute");
        if (r > 1) {
          b.op("contiguous", {copy_kernel(g)}, 4.0 * g, true);
          b.bview("CloneBackward0");
        } else {
          b.view("contiguous");
        }
        b.bview("PermuteBackward0");
        b.view("view");
        b.op("bmm", {bmm_kernel(K, E, ek * r2, r)}, 4.0 * K * E * ek * r2, true);
        b.view("view");
        b.bview("ViewBackward0");
        b.bop("BmmBackward0", {bmm_kernel(K, E, r, ek * r2), bmm_kernel(K, r, ek * r2, E)});
        b.bview("ViewBackward0");
      }
      E *= ek;
    }
    b.view("view");  // (K, D, 1) → (K, D)
    b.bview("ViewBackward0");
  }
  b.layer("position_embedding");
  b.module_call("position_embedding");
  b.parameter(static_cast<double>(m.seq_len) * D);
  b.view("slice");
  b.op("add", {elementwise_kernel(K * D, 1, 3)}, 4.0 * K * D, false);
  b.bview("AddBackward0");
  b.bop("SliceBackward0", {elementwise_kernel(static_cast<double>(m.seq_len) * D, 0, 1), copy_kernel(K * D)});
  b.bview("AccumulateGrad");
  b.layer("embedding_layernorm");
  b.module_call("embedding_layernorm");
  layer_norm(b, K, D);
}

void encoder_ops(TorchStepBuilder& b, const ModelSpec& m, int enc, Flow flow, double K) {
  const std::string p = "enc" + std::to_string(enc) + ".";
  const double D = static_cast<double>(m.d_model), H = static_cast<double>(m.heads),
               dh = static_cast<double>(m.head_dim()), F = static_cast<double>(m.ffn_dim);
  b.layer(p + "input");
  b.module_call(p + "layer");
  b.module_call(p + "attention");
  gradient_merge(b, K * D, 4);  // x feeds Q, K, V and the residual
  for (const char* n : {"q", "k", "v"}) linear_ops(b, find_linear(m, p + n), flow, K);
  b.layer(p + "attention");
  for (int i = 0; i < 3; ++i) {
    b.view("view");       // (K, D) → (K, H, dh)
    b.view("transpose");  // → (H, K, dh)
    b.bview("TransposeBackward0");
    b.bop("ViewBackward0", {copy_kernel(K * D)});  // reshape of the transposed-back gradient
  }
  b.view("transpose");  // kᵀ
  b.bview("TransposeBackward0");
  b.op("bmm", {bmm_kernel(H, K, K, dh)}, 4.0 * H * K * K, false);
  b.bop("BmmBackward0", {bmm_kernel(H, K, K, dh), bmm_kernel(H, dh, K, K)});
  b.op("mul", {elementwise_kernel(H * K * K, 1, 2)}, 4.0 * H * K * K, false);
  b.bop("MulBackward0", {elementwise_kernel(H * K * K, 1, 2)});
  b.op("softmax", {elementwise_kernel(H * K * K, kSoftmaxFlops, 2)}, 4.0 * H * K * K, true);
  b.bop("SoftmaxBackward0", {elementwise_kernel(H * K * K, kSoftmaxGradFlops, 3)});
  b.op("bmm", {bmm_kernel(H, K, dh, K)}, 4.0 * K * D, false);
  b.bop("BmmBackward0", {bmm_kernel(H, K, K, dh), bmm_kernel(H, K, dh, K)});
  b.view("transpose");  // → (K, H, dh)
  b.op("contiguous", {copy_kernel(K * D)}, 4.0 * K * D, true);
  b.view("view");       // → (K, D)
  b.bview("TransposeBackward0");
  b.bview("CloneBackward0");
  b.bview("ViewBackward0");
  linear_ops(b, find_linear(m, p + "o"), flow, K);
  b.layer(p + "residual1");
  b.op("add", {elementwise_kernel(K * D, 1, 3)}, 4.0 * K * D, false);
  b.bview("AddBackward0");
  b.layer(p + "layernorm1");
  b.module_call(p + "layernorm1");
  layer_norm(b, K, D);
  gradient_merge(b, K * D, 2);  // LayerNorm output feeds the FFN and the residual
  linear_ops(b, find_linear(m, p + "ffn_in"), flow, K);
  b.layer(p + "gelu");
  b.module_call(p + "gelu");
  b.op("gelu", {elementwise_kernel(K * F, kGeluFlops, 2)}, 4.0 * K * F, true);
  b.bop("GeluBackward0", {elementwise_kernel(K * F, kGeluGradFlops, 3)});
  linear_ops(b, find_linear(m, p + "ffn_out"), flow, K);
  b.layer(p + "residual2");
  b.op("add", {elementwise_kernel(K * D, 1, 3)}, 4.0 * K * D, false);
  b.bview("AddBackward0");
  b.layer(p + "layernorm2");
  b.module_call(p + "layernorm2");
  layer_norm(b, K, D);
}

void heads_and_loss_ops(TorchStepBuilder& b, const ModelSpec& m, Flow flow, double K) {
  const double D = static_cast<double>(m.d_model);
  const double seqs = static_cast<double>(m.batch);
  b.layer("heads");
  gradient_merge(b, K * D, 2);  // the last hidden state feeds both heads
  b.view("select");             // first token of each sequence
  b.bop("SelectBackward0", {elementwise_kernel(K * D, 0, 1), copy_kernel(seqs * D)});
  linear_ops(b, find_linear(m, "intent_head"), flow, seqs);
  linear_ops(b, find_linear(m, "slot_head"), flow, K);
  b.layer("loss", OpPhase::kLoss);
  b.module_call("intent_loss");
  b.module_call("slot_loss");
  cross_entropy(b, seqs, static_cast<double>(m.intents));
  cross_entropy(b, K, static_cast<double>(m.slot_tags));
  b.op("add", {elementwise_kernel(1, 1, 3)}, 4.0, false);
  b.bview("AddBackward0");
}

namespace {

/// An op of the step outside the builder's layers: `name` in `layer`, of `phase` and
/// `dispatch`, with no kernel yet.
TorchOp step_op(const char* name, const char* layer, OpPhase phase, DispatchKind dispatch) {
  TorchOp o;
  o.name = name;
  o.layer = layer;
  o.phase = phase;
  o.dispatch = dispatch;
  return o;
}

/// torch.optim.SGD's foreach update of every parameter (bytes `parameter_bytes`, `n`
/// tensors): one _foreach_add_ whose multi_tensor_apply launches a kernel when
/// foreach_max_tensors tensors or foreach_max_blocks chunks of foreach_chunk_elements are
/// packed (MultiTensorApply.cuh).
TorchOp foreach_sgd_op(const std::vector<double>& parameter_bytes, double n, double foreach_max_tensors,
                       double foreach_max_blocks, double foreach_chunk_elements) {
  TorchOp o = step_op("_foreach_add_", "optimizer", OpPhase::kOptimizer, DispatchKind::kForeachCall);
  o.tensors = n;
  double tensors = 0, blocks = 0, elems = 0;
  auto launch = [&] {
    o.kernels.push_back(elementwise_kernel(elems, 2, 3));
    blocks = 0;
    elems = 0;
  };
  for (double bytes : parameter_bytes) {
    const double numel = bytes / 4.0;
    const double chunks = std::ceil(numel / foreach_chunk_elements);
    tensors += 1;
    for (double c = 0; c < chunks; ++c) {
      blocks += 1;
      elems += std::min(foreach_chunk_elements, numel - c * foreach_chunk_elements);
      const bool tensors_full = c + 1 == chunks && tensors >= foreach_max_tensors;
      if (blocks >= foreach_max_blocks || tensors_full) {
        launch();
        tensors = c + 1 == chunks ? 0 : 1;
      }
    }
  }
  if (blocks > 0) launch();
  return o;
}

}  // namespace

TorchProgram torch_training_step(const ModelSpec& m, Flow flow, std::int64_t tokens, bool foreach,
                                 double foreach_max_tensors, double foreach_max_blocks,
                                 double foreach_chunk_elements) {
  TorchProgram p;
  TorchStepBuilder b(p);
  const double K = static_cast<double>(tokens > 0 ? tokens : m.tokens());
  b.layer("input", OpPhase::kInput);
  p.ops.push_back(step_op("next(sample)", "input", OpPhase::kInput, DispatchKind::kPythonStep));
  for (const char* what : {"to(ids)", "to(slot_labels)", "to(intent_label)"}) {
    TorchOp copy = step_op(what, "input", OpPhase::kInput, DispatchKind::kHostCopy);
    copy.out_bytes = 4.0 * K;
    p.ops.push_back(copy);
  }
  b.module_call("model");
  embedding_ops(b, m, K);
  for (int e = 0; e < m.encoders; ++e) encoder_ops(b, m, e, flow, K);
  heads_and_loss_ops(b, m, flow, K);
  const double n = static_cast<double>(p.parameter_bytes.size());
  TorchOp call = step_op("loss.backward", "loss", OpPhase::kBackward, DispatchKind::kBackwardCall);
  call.kernels = {elementwise_kernel(1, 0, 1)};  // ones_like(loss)
  p.ops.push_back(call);
  b.finish_backward();
  p.ops.push_back(step_op("loss.item", "loss", OpPhase::kBackward, DispatchKind::kSync));
  // torch.optim.SGD (no momentum, no weight decay): p -= lr · g.
  if (foreach) {
    p.ops.push_back(foreach_sgd_op(p.parameter_bytes, n, foreach_max_tensors, foreach_max_blocks,
                                   foreach_chunk_elements));
  } else {
    for (double bytes : p.parameter_bytes) {
      TorchOp o = step_op("add_", "optimizer", OpPhase::kOptimizer, DispatchKind::kOptimizerTensor);
      o.kernels = {elementwise_kernel(bytes / 4.0, 2, 3)};
      p.ops.push_back(o);
    }
  }
  TorchOp z = step_op("zero_grad", "optimizer", OpPhase::kOptimizer, DispatchKind::kZeroGrad);
  z.tensors = n;
  p.ops.push_back(z);
  return p;
}

}  // namespace ttsim
