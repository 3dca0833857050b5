#pragma once
// Contraction flows of a TT linear layer Y = X·W, X ∈ R^{K×M}, W ∈ R^{M×N} in TT form
// (models/model_spec.h TtShape), and their exact costs per training stage.
//
//   MM  : merge the cores into W (left merge, right merge, W = L·R), then Y = X·W.
//   TT  : contract X through the cores one after the other; every step carries K.
//   BTT : merge the input-side cores into L (M × r_d) and the output-side cores into
//         R (r_d × N) independently, then Z = X·L (K × r_d) and Y = Z·R.
// A dense-format layer always runs as one dense product (flow kMM, no merges).
//
// Notation (shared with the Eigen reference, the task graph and the HLS kernels):
// d input cores with modes m_1..m_d (product M), e output cores with modes n_1..n_e
// (product N), ranks r_0..r_{d+e} (r_0 = r_{d+e} = 1, middle bond r_d). Core k (1-based)
// G_k is r_{k-1} × s_k × r_k, s_k = m_k for k ≤ d and n_{k-d} otherwise.
// Mpre(k) = m_1···m_k, Msuf(k) = m_{k+1}···m_d, Npre(j) = n_1···n_j, Nsuf(j) = n_{j+1}···n_e
// (an empty product is 1). A contraction step is batch × (rows × inner)·(inner × cols) and
// costs batch·rows·inner·cols multiply-accumulates (MACs).
//
// Tensor names used by the step lists (local to one layer; the task graph binds them to
// buffers): "X" (K × M), "Y" (K × N), "dY", "dX"; cores "G1".."G{d+e}" and their
// gradients "dG1".."dG{d+e}"; a dense-format layer's weight "W" (M × N) and "dW".
// Intermediates: "L2".."L{d}" (L_k, Mpre(k) × r_k), "R1".."R{e-1}" (R_j, r_{d+j-1} × Nsuf(j-1)),
// "Z" (K × r_d), "dZ", "W"/"dW" (M × N) rebuilt by MM on a TT layer, "T1".."T{d+e-1}"
// (T_k of the sequential flow), "dT1".., "dL2".., "dR1"..., and BTT's "Lt" (L_dᵀ, r_d × M)
// and "dLt" (dL_dᵀ). Aliases that cost nothing:
// L_1 = G_1, R_e = G_{d+e}, T_0 = X, T_{d+e} = Y, dG_1 = dL_1, dG_{d+e} = dR_e, so a step
// that produces dL_1 writes "dG1" directly.

#include <cstdint>
#include <string>
#include <vector>

#include "models/model_spec.h"
#include "models/task_graph.h"

namespace ttsim {

/// Contraction flow of a TT linear layer (see the file comment for each step list).
enum class Flow { kMM, kTT, kBTT };
/// "mm", "tt", "btt".
const char* to_string(Flow f);
/// Parses "mm" / "tt" / "btt"; throws InputError otherwise.
Flow parse_flow(const std::string& s);

/// Training stages whose costs are reported separately.
enum class FlowStage {
  kForward,      ///< Y from X
  kGradInput,    ///< dX from dY
  kGradWeights,  ///< gradients of every core (or of W for a dense layer) from dY
};
/// "forward", "grad_input", "grad_weights".
const char* to_string(FlowStage s);

/// The role of a tensor in a flow; only kIntermediate counts towards the peak
/// intermediate words.
enum class TensorKind {
  kInput,         ///< X: the layer input (owned by the producer of the layer input)
  kOutput,        ///< Y: the layer output
  kOutputGrad,    ///< dY
  kInputGrad,     ///< dX
  kCore,          ///< a TT/TTM core G_k, or the weight W of a dense-format layer
  kCoreGrad,      ///< the gradient of a core (or of a dense W)
  kIntermediate,  ///< produced by a step of the flow: L_k, R_j, Z, rebuilt W, T_k, dZ, ...
};

/// One named tensor of a flow with its logical shape (words = product of the shape).
struct FlowTensor {
  std::string name;
  TensorKind kind = TensorKind::kIntermediate;
  std::vector<std::int64_t> shape;
  /// Memory of the HLS top an intermediate lives in (ttsim_spec::MemoryId: the saved and
  /// chain arenas by step parity, hls/kernels/tt_linear.cc and ttm_embedding.cc); 0 for the
  /// tensors the layer binds (X, Y, dX, dY, cores) and for flows the kernel tree lacks (MM).
  int memory = 0;
  std::int64_t words() const;
};

/// One step of a flow. Contraction steps have op == TaskOp::kContraction and cost
/// shape.macs() MACs; the attention plan also holds its row-wise softmax steps
/// (op kSoftmax / kSoftmaxGrad, shape batch × rows × cols elements, no MACs) and the BTT
/// plan its transposed copies (op kAdd, variant kAddTranspose, rows × cols elements).
struct FlowStep {
  std::string name;  ///< unique within the plan, e.g. "fwd.merge_left.2", "bwd.grad_core.3"
  /// Task::role tag, e.g. "btt.merge_left", "btt.xl", "tt.step", "mm.rebuild", see
  /// the step lists in flows.cc.
  std::string role;
  FlowStage stage = FlowStage::kForward;
  TaskOp op = TaskOp::kContraction;
  TaskShape shape;
  std::vector<std::string> reads;   ///< tensor names
  std::vector<std::string> writes;  ///< tensor names
  /// 1-based slot of the step in the stage's sequential schedule: steps of equal level
  /// are independent; a step's level exceeds the level of every step of the same
  /// stage that produces one of its inputs. The stage's critical path is the largest level.
  int level = 1;
  /// The call site of the emitted top this step's kernel call is made from, where the glue
  /// makes several steps from one call site in a loop (the TTM core gradient's per-token
  /// calls, "bwd.ttm_grad_core.2.t"): the name without the loop index. Empty: its own
  /// site (`name`). Task::site numbers the sites.
  std::string site;
};

/// Cost of one stage of a flow.
struct FlowCost {
  std::int64_t macs = 0;                     ///< exact multiply-accumulates
  int critical_path = 0;                     ///< sequential steps (largest FlowStep::level)
  std::int64_t peak_intermediate_words = 0;  ///< FP32 words, see stage_cost()
};

/// All steps of a flow for every stage, in the order forward, grad-input, grad-weights
/// (the order within a stage is the one the peak-intermediate rule walks), and the tensors
/// they touch.
struct FlowPlan {
  std::int64_t tokens = 0;  ///< K
  std::vector<FlowTensor> tensors;
  std::vector<FlowStep> steps;

  /// The tensor called `name`; throws std::out_of_range when absent.
  const FlowTensor& tensor(const std::string& name) const;
  /// The steps of one stage, in order.
  std::vector<FlowStep> stage_steps(FlowStage stage) const;
};

/// The steps of a linear layer (TT or dense) for flow `flow` and K = `tokens` rows of X.
///
/// BTT forward: the first core of each merge chain copied transposed (G_1ᵀ, G_{d+e-1}ᵀ:
/// role "btt.transpose", level 1); left merge L_k = L_{k-1}·G_k for k = 2..d (rows
/// Mpre(k-1), inner r_{k-1}, cols m_k·r_k; role "btt.merge_left", level k); right merge
/// R_j = G_{d+j}·R_{j+1} for j = e-1..1 (rows r_{d+j-1}·n_j, inner r_{d+j}, cols Nsuf(j);
/// "btt.merge_right", level e-j+1, one more when the rank-1 end is transposed), the rank-1
/// end j = e-1, when r_{d+e-2}·n_{e-1} > n_e, transposed — R_{e-1}ᵀ = G_{d+e}ᵀ·G_{d+e-1}ᵀ
/// (rows n_e, inner r_{d+e-1}, cols r_{d+e-2}·n_{e-1}; "btt.merge_right_t", column form,
/// level 2, in chain1) copied transposed into R_{e-1} ("btt.transpose", level 3);
/// L_dᵀ = transpose of L_d (rows M, cols r_d; the add kernel's transposed copy, variant
/// kAddTranspose, role "btt.transpose", level P+2), Z = X·L_d (rows K, inner M, cols r_d;
/// "btt.xl", dot form: X and L_dᵀ both contiguous along M) and Y = Z·R_1 (rows K, inner
/// r_d, cols N; "btt.zr") after both merges, levels P+3 and P+4 with P = max(d-1, e-1).
/// BTT grad-input: dZ = dY·R_1ᵀ (K, N, r_d; "btt.grad_zr"), dX = dZ·L_dᵀ (K, r_d, M;
/// "btt.grad_xl", column form along M).
/// BTT grad-weights: dR_1 = Zᵀ·dY (r_d, K, N; "btt.grad_r") and dL_dᵀ = dZᵀ·X (r_d, K, M;
/// "btt.grad_l", column form along M) at level 1; dL_d = transpose of dL_dᵀ (rows r_d,
/// cols M; "btt.transpose", level 2); left chain k = d..2 at level d-k+3: dG_k = L_{k-1}ᵀ·dL_k
/// (r_{k-1}, Mpre(k-1), m_k·r_k; "btt.grad_core_left") and dL_{k-1} = dL_k·G_kᵀ
/// (Mpre(k-1), m_k·r_k, r_{k-1}; "btt.grad_merge_left"); right chain j = 1..e-1 (e-2 when
/// the rank-1 end is transposed) at level j+1:
/// dG_{d+j} = dR_j·R_{j+1}ᵀ (r_{d+j-1}·n_j, Nsuf(j), r_{d+j}; "btt.grad_core_right") and
/// dR_{j+1} = G_{d+j}ᵀ·dR_j (r_{d+j}, r_{d+j-1}·n_j, Nsuf(j); "btt.grad_merge_right"); its
/// rank-1 end j = e-1 (when transposed, as the forward's) on transposed operands at levels e..e+2 (grad_chains in flows.cc:
/// "btt.grad_merge_right_t", dot form, and "btt.grad_core_right_t", column form).
/// TT forward ("tt.step", level t), as hls/kernels/tt_linear.cc runs it: input core
/// k = 1..d: T_k = T_{k-1}·G_k as batch K (one product per token over the shared core),
/// rows Msuf(k), inner r_{k-1}·m_k, cols r_k (scalar form when Msuf(k) > 1: T_k is stored
/// (token, r_k, Msuf(k)), so neither B nor C is lane-contiguous; column form for k = d);
/// output core j = 1..e (t = d+j): batch 1, rows K·Npre(j-1), inner r_{d+j-1},
/// cols n_j·r_{d+j} (column form). TT grad-input ("tt.grad_input"), t = d+e..1 at level
/// d+e-t+1: dT_{t-1} = dT_t·G_tᵀ (batch_t; rows_t, cols_t, inner_t). TT grad-weights
/// ("tt.grad_core"), t = d+e..1, all level 1: dG_t = T_{t-1}ᵀ·dT_t (batch_t; inner_t, rows_t,
/// cols_t), for an input core with the batch reduced (kContractReduceBatch: the K per-token
/// products sum into one dG_k). Variants from the calls' operand strides (contract_variant).
/// MM forward: the BTT merges (role "mm.rebuild"), W = L_d·R_1 (M, r_d, N; "mm.rebuild",
/// level P+1), Y = X·W (K, M, N; "mm.product", level P+2). MM grad-input: dX = dY·Wᵀ
/// (K, N, M; "mm.grad_input"). MM grad-weights: dW = Xᵀ·dY (M, K, N; "mm.grad_w", level 1),
/// dL_d = dW·R_1ᵀ (M, N, r_d; "mm.grad_l") and dR_1 = L_dᵀ·dW (r_d, M, N; "mm.grad_r") at
/// level 2, then both BTT chains one level later.
/// Dense-format layer (any flow), W stored N × M (one row per output feature): Y = X·Wᵀ
/// (K, M, N; "dense.product", dot form), dX = dY·W (K, N, M; "dense.grad_input"), dW =
/// dYᵀ·X (N, K, M; "dense.grad_w").
/// Bias gradients and bias adds are not contractions and are not part of a flow.
/// Throws InputError when tokens < 1 or a TT layer has no input or no output cores.
/// With `recompute_merges` (BTT only; ignored by the other flows), the backward stage first
/// recomputes the merges ("bwd.remerge_left.k", "bwd.remerge_right.j",
/// "bwd.retranspose_l": the forward's steps again, levels 1..P+1 of the grad-input stage,
/// grad_z and grad_x after them) into tensors of their own ("L2.re", "R1.re", "Lt.re", in the
/// forward's memories), which the backward steps read instead of the forward's.
FlowPlan plan_linear(const LinearLayerSpec& layer, Flow flow, std::int64_t tokens, bool recompute_merges = false);

/// The machine figures that decide whether the products accumulating into C in the column
/// form run as products into partial buffers and adds (ttsim_spec::accumulate_by_add): its
/// contraction lanes and arena banks. Both 0 (default): never.
struct AccumulateByAdd {
  int contraction_lanes = 0, arena_banks = 0;
  /// ttsim_spec::accumulate_by_add of these figures.
  bool applies() const;
};

/// TTM embedding lookup of K = `tokens` tokens (TtmShape: d cores r_{k-1} × v_k × e_k × r_k,
/// Epre(k) = e_1···e_k). Per token the slice S_k = G_k[:, v_k, :, :] (r_{k-1} × e_k·r_k)
/// is read straight from core "G{k}" (the token's index selects it), E_1 = S_1.
/// Forward ("ttm.lookup", level k) for k = 2..d (after the copy of core 1, level 1): E_k = E_{k-1}·S_k with batch K, rows
/// Epre(k-1), inner r_{k-1}, cols e_k·r_k; E_d is "Y" (K × D). Grad-weights (core
/// gradients only) for k = d..2 at level d-k+1: dS_k = E_{k-1}ᵀ·dE_k (batch K, rows r_{k-1},
/// inner Epre(k-1), cols e_k·r_k; "ttm.grad_core", scatter-added into slice v_k of "dG{k}")
/// and dE_{k-1} = dE_k·S_kᵀ (batch K, rows Epre(k-1), inner e_k·r_k, cols r_{k-1};
/// "ttm.grad_chain"); dE_d = "dY", dE_1 = dS_1 is written into "dG1". No grad-input stage.
/// Intermediates "E2".."E{d-1}" (K × Epre(k) × r_k) and "dE2".."dE{d-1}".
/// With d >= 3 and Epre(d-1) > e_d·r_d the k = d products run transposed
/// (hls/kernels/ttm_embedding.cc ttm_last_transposed), so that
/// their lanes run along ep = Epre(d-1) rather than cd = e_d·r_d: forward, E_{d-1} copied
/// transposed into "E{d-1}t" (r_{d-1} × K × ep, saved; role "ttm.transpose", a kAddTranspose
/// step of rows K·ep, cols r_{d-1}, level d), "Yt" = S_dᵀ·E_{d-1}ᵀ (batch K, rows cd, inner
/// r_{d-1}, cols ep; "ttm.lookup_t", column form, level d+1) copied transposed into "Y"
/// (level d+2); grad-weights, "dY" copied transposed into "dYt" (level 1), dS_d =
/// E_{d-1}ᵀ·dYtᵀ (batch K, rows r_{d-1}, inner ep, cols cd; "ttm.grad_core_t", dot form)
/// and "dE{d-1}t" = S_d·dYt (batch K, rows r_{d-1}, inner cd, cols ep; "ttm.grad_chain_t",
/// column form) at level 2, copied transposed into dE_{d-1} (level 3); the steps k = d-1..2
/// follow at level d-k+3.
/// Throws InputError when tokens < 1 or the shape has no cores.
/// With `by_add` applying (ttsim_spec::accumulate_by_add) a column-form grad_core step k is
/// instead K steps per token: "…ttm_grad_core.k.tb"
/// (role "ttm.grad_core", batch 1, the plain column form) into the partial "dSkp" (r_{k−1} ×
/// e_k·r_k, chain0_mem), each followed by "…ttm_grad_core.k.addb" (role "ttm.grad_core.add",
/// an in-place add of rows r_{k−1}, cols e_k·r_k into dG_k), as hls/kernels/ttm_embedding.cc
/// scatter_core_grad runs them.
FlowPlan plan_ttm_lookup(const TtmShape& ttm, std::int64_t tokens, const AccumulateByAdd& by_add = {});

/// Multi-head self-attention of `sequences` independent sequences of `seq_len` tokens,
/// `heads` heads of `head_dim` (batch B = sequences · heads). Inputs "Q", "K", "V" and
/// output "C" (tokens × heads·head_dim, heads concatenated), gradients "dC", "dQ", "dK", "dV".
/// Forward: S = Q_h·K_hᵀ/√dh (batch B, rows L, inner dh, cols L; "attn.qk", the scale folded
/// into the contraction), P = softmax(S) (kSoftmax, B × L rows of L; "attn.softmax"),
/// C = P·V_h (B, L, L, dh; "attn.pv"). Grad-input: dP = dC·V_hᵀ (B, L, dh, L; "attn.grad_p"),
/// dV = Pᵀ·dC (B, L, L, dh; "attn.grad_v"), dS = softmax_grad(P, dP) (kSoftmaxGrad;
/// "attn.softmax_grad"), dQ = dS·K_h/√dh (B, L, L, dh; "attn.grad_q"),
/// dK = dSᵀ·Q_h/√dh (B, L, L, dh; "attn.grad_k"). Intermediates S, P, dP, dS (B·L·L words).
/// Throws InputError when any argument is < 1.
FlowPlan plan_attention(std::int64_t sequences, std::int64_t seq_len, std::int64_t heads,
                        std::int64_t head_dim);

/// Cost of one stage of a plan.
/// macs: Σ shape.macs() over the stage's contraction steps.
/// critical_path: the largest FlowStep::level of the stage (0 for a stage with no steps).
///   Closed forms: forward BTT max(d-1, e-1)+3, MM max(d-1, e-1)+2, TT d+e, dense 1;
///   grad-input BTT 2, TT d+e, MM and dense 1; grad-weights BTT max(d+1, e), TT 1,
///   MM 1+max(d, e), dense 1;
///   TTM forward and grad-weights d-1.
/// peak_intermediate_words: the maximum over the stage's steps, in order, of the total words
///   of kIntermediate tensors live at that step. Only tensors the stage reads or writes
///   count. A tensor is live at step s when it was produced at or before s (in this stage
///   or an earlier one) and is read at or after s (in this stage or a later one: a tensor
///   saved for the backward pass stays live to the end of the forward stage); a step's output
///   is live at that step. X, Y, dY, dX, cores and core gradients are not intermediates.
FlowCost stage_cost(const FlowPlan& plan, FlowStage stage);

/// stage_cost(plan_linear(layer, flow, tokens), stage).
FlowCost linear_cost(const LinearLayerSpec& layer, Flow flow, std::int64_t tokens,
                     FlowStage stage);

}  // namespace ttsim
