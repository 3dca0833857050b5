#include "models/flows.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/errors.h"
#include "hls/include/kernel_spec.h"

namespace ttsim {

namespace {

/// The contraction form (hls/include/kernel_spec.h) the HLS kernels use for a flow step
/// of `role`, from the strides of its call in hls/kernels (tt_linear.cc, attention.cc,
/// ttm_embedding.cc): products whose B operand is read transposed (…·Gᵀ, …·Rᵀ, Q·Kᵀ,
/// X·(L_dᵀ)ᵀ, a dense layer's X·Wᵀ) run the dot form; every other the column form. Roles of the sequential TT flow
/// depend on the core and are given explicitly. Throws std::invalid_argument for a role
/// with no known form.
int contraction_form_of_role(const std::string& role) {
  static const char* const kDot[] = {"btt.grad_zr",      "btt.xl",           "btt.grad_merge_left",
                                     "btt.grad_core_right", "dense.product",    "mm.grad_input",
                                     "mm.grad_l",        "attn.qk",          "attn.grad_p",
                                     "ttm.grad_chain",   "ttm.grad_core_t",  "btt.grad_merge_right_t"};
  static const char* const kColumn[] = {
      "btt.merge_left", "btt.merge_right", "btt.grad_xl",  "btt.zr",         "btt.grad_r",
      "btt.grad_l",     "btt.grad_core_left", "btt.grad_merge_right", "dense.grad_input",
      "dense.grad_w",   "mm.rebuild",      "mm.product",   "mm.grad_w",      "mm.grad_r",
      "attn.pv",        "attn.grad_v",     "attn.grad_q",  "attn.grad_k",    "ttm.lookup",
      "ttm.grad_core",  "ttm.lookup_t",    "ttm.grad_chain_t", "tt.step",      "tt.grad_input",
      "tt.grad_core",   "btt.merge_right_t", "btt.grad_core_right_t"};
  // Every dot-form call writes its outputs adjacent along j (c_j = 1: kContractUnitCj), as
  // the probe's record of each call shows (tests/models/graph_matches_hls_test).
  for (const char* r : kDot) {
    if (role == r) return ttsim_spec::kContractDot | ttsim_spec::kContractUnitCj;
  }
  for (const char* r : kColumn) {
    if (role == r) return ttsim_spec::kContractColumn;
  }
  throw std::invalid_argument("contraction_form_of_role: no contraction form for role \"" + role + "\"");
}


using I = std::int64_t;

I product(const std::vector<I>& v, std::size_t from, std::size_t to) {
  I p = 1;
  for (std::size_t i = from; i < to && i < v.size(); ++i) p *= v[i];
  return p;
}

/// Builds a plan step by step; tensors are registered on first mention.
class PlanBuilder {
 public:
  explicit PlanBuilder(I tokens) { plan_.tokens = tokens; }

  /// `memory`: the ttsim_spec::MemoryId the HLS step keeps the tensor in (0: bound by the
  /// layer, or no HLS placement).
  void tensor(const std::string& name, TensorKind kind, std::vector<I> shape, int memory = 0) {
    for (const auto& t : plan_.tensors) {
      if (t.name == name) return;
    }
    plan_.tensors.push_back({name, kind, std::move(shape), memory});
  }

  /// `variant`: the kernel loop the HLS code runs for the step (kernel_spec.h); -1: the
  /// contraction form of `role` (contraction_form_of_role) for a contraction, 0 otherwise.
  void step(std::string name, std::string role, FlowStage stage, TaskShape shape,
            std::vector<std::string> reads, std::vector<std::string> writes, int level,
            TaskOp op = TaskOp::kContraction, int variant = -1, std::string site = {}) {
    FlowStep s;
    s.name = std::move(name);
    s.site = std::move(site);
    s.role = std::move(role);
    s.stage = stage;
    s.op = op;
    s.shape = shape;
    if (op == TaskOp::kContraction) {
      s.shape.variant = variant >= 0 ? variant : contraction_form_of_role(s.role);
    } else {
      s.shape.variant = std::max(variant, 0);
    }
    s.reads = std::move(reads);
    s.writes = std::move(writes);
    s.level = level;
    plan_.steps.push_back(std::move(s));
  }

  FlowPlan take() { return std::move(plan_); }

 private:
  FlowPlan plan_;
};

TaskShape shape4(I batch, I rows, I inner, I cols) {
  TaskShape s;
  s.batch = batch;
  s.rows = rows;
  s.inner = inner;
  s.cols = cols;
  return s;
}

/// Index helpers of a TT layer, 1-based as in the header's notation.
struct TtIndex {
  const TtShape& tt;
  std::size_t d, e;
  explicit TtIndex(const TtShape& t) : tt(t), d(t.in_factors.size()), e(t.out_factors.size()) {}
  I r(std::size_t k) const { return tt.ranks[k]; }
  I m(std::size_t k) const { return tt.in_factors[k - 1]; }
  I n(std::size_t j) const { return tt.out_factors[j - 1]; }
  I M() const { return product(tt.in_factors, 0, d); }
  I N() const { return product(tt.out_factors, 0, e); }
  I Mpre(std::size_t k) const { return product(tt.in_factors, 0, k); }
  I Msuf(std::size_t k) const { return product(tt.in_factors, k, d); }
  I Npre(std::size_t j) const { return product(tt.out_factors, 0, j); }
  I Nsuf(std::size_t j) const { return product(tt.out_factors, j, e); }
  I mode(std::size_t k) const { return k <= d ? m(k) : n(k - d); }
  /// Whether the rank-1 end of the right chain runs transposed (hls/kernels/tt_linear.h
  /// btt_right_end_transposed: e >= 2 and r_{d+e-2}·n_{e-1} > n_e).
  bool right_end_transposed() const {
    return e >= 2 && ttsim_spec::lanes_along_rows(r(d + e - 2) * n(e - 1), n(e));
  }

  static std::string G(std::size_t k) { return "G" + std::to_string(k); }
  static std::string dG(std::size_t k) { return "dG" + std::to_string(k); }
  /// Appended to the merges' names (L_k, k >= 2; R_j, j < e): the backward's recomputed
  /// copies are tensors of their own ("L2.re"), live from their recomputation on.
  std::string merge_suffix;
  std::string L(std::size_t k) const { return k == 1 ? G(1) : "L" + std::to_string(k) + merge_suffix; }
  std::string R(std::size_t j) const { return j == e ? G(d + e) : "R" + std::to_string(j) + merge_suffix; }
  std::string dL(std::size_t k) const { return k == 1 ? dG(1) : "dL" + std::to_string(k); }
  std::string dR(std::size_t j) const { return j == e ? dG(d + e) : "dR" + std::to_string(j); }
  std::string T(std::size_t t) const {
    return t == 0 ? "X" : t == d + e ? "Y" : "T" + std::to_string(t);
  }
  std::string dT(std::size_t t) const {
    return t == 0 ? "dX" : t == d + e ? "dY" : "dT" + std::to_string(t);
  }
  /// Forward step t of the sequential flow as (batch, rows, inner, cols), decomposed as
  /// hls/kernels/tt_linear.cc tt_forward runs it: an input core k is K products (one per
  /// token) of Msuf(k) rows over the shared core; an output core one product of
  /// K·Npre(j-1) rows.
  TaskShape tt_step(std::size_t t, I K) const {
    if (t <= d) return shape4(K, Msuf(t), r(t - 1) * m(t), r(t));
    const std::size_t j = t - d;
    return shape4(1, K * Npre(j - 1), r(t - 1), n(j) * r(t));
  }
};

void add_io(PlanBuilder& b, I K, I M, I N) {
  b.tensor("X", TensorKind::kInput, {K, M});
  b.tensor("Y", TensorKind::kOutput, {K, N});
  b.tensor("dY", TensorKind::kOutputGrad, {K, N});
  b.tensor("dX", TensorKind::kInputGrad, {K, M});
}

void add_cores(PlanBuilder& b, const TtIndex& x) {
  for (std::size_t k = 1; k <= x.d + x.e; ++k) {
    b.tensor(TtIndex::G(k), TensorKind::kCore, {x.r(k - 1), x.mode(k), x.r(k)});
    b.tensor(TtIndex::dG(k), TensorKind::kCoreGrad, {x.r(k - 1), x.mode(k), x.r(k)});
  }
}

/// saved0_mem / saved1_mem and chain0_mem / chain1_mem by parity.
int saved_mem(std::size_t parity) { return parity % 2 ? ttsim_spec::kSaved1Mem : ttsim_spec::kSaved0Mem; }
int chain_mem(std::size_t parity) { return parity % 2 ? ttsim_spec::kChain1Mem : ttsim_spec::kChain0Mem; }
/// The TTM embedding's scratch by parity: out_mem / act_mem, dead while it runs
/// (hls/kernels/model_step.h, make_layout chain_scratch).
int ttm_scratch_mem(std::size_t parity) { return parity % 2 ? ttsim_spec::kActMem : ttsim_spec::kOutMem; }

/// Intermediates L_k, R_j of the merges and their gradients dL_k, dR_j. With `place`, in
/// the memories of the HLS BTT flow (hls/kernels/tt_linear.cc btt_saved / btt_scratch):
/// L_k (k < d) in saved[(d−k) mod 2], L_d in chain1 (a forward temporary: its transpose
/// L_dᵀ is what the backward keeps), R_j in saved[(j−1) mod 2], dL_k in chain[(d−k) mod 2],
/// dR_j in chain[(j−1) mod 2]. Without `place` (MM: no HLS flow), none is placed.
void add_merge_tensors(PlanBuilder& b, const TtIndex& x, bool place) {
  for (std::size_t k = 2; k <= x.d; ++k) {
    const int l_mem = k == x.d ? ttsim_spec::kChain1Mem : saved_mem(x.d - k);
    b.tensor(x.L(k), TensorKind::kIntermediate, {x.Mpre(k), x.r(k)}, place ? l_mem : 0);
    b.tensor(x.dL(k), TensorKind::kIntermediate, {x.Mpre(k), x.r(k)}, place ? chain_mem(x.d - k) : 0);
  }
  for (std::size_t j = 1; j < x.e; ++j) {
    b.tensor(x.R(j), TensorKind::kIntermediate, {x.r(x.d + j - 1), x.Nsuf(j - 1)}, place ? saved_mem(j - 1) : 0);
    b.tensor(x.dR(j), TensorKind::kIntermediate, {x.r(x.d + j - 1), x.Nsuf(j - 1)}, place ? chain_mem(j - 1) : 0);
  }
}

/// Left and right merges of the forward stage (BTT and MM), levels 1..max(d-1, e-1).
void merges(PlanBuilder& b, const TtIndex& x, const std::string& left_role,
            const std::string& right_role) {
  for (std::size_t k = 2; k <= x.d; ++k) {
    b.step("fwd.merge_left." + std::to_string(k), left_role, FlowStage::kForward,
           shape4(1, x.Mpre(k - 1), x.r(k - 1), x.m(k) * x.r(k)), {x.L(k - 1), TtIndex::G(k)},
           {x.L(k)}, static_cast<int>(k - 1));
  }
  for (std::size_t j = x.e - 1; j >= 1; --j) {
    b.step("fwd.merge_right." + std::to_string(j), right_role, FlowStage::kForward,
           shape4(1, x.r(x.d + j - 1) * x.n(j), x.r(x.d + j), x.Nsuf(j)),
           {TtIndex::G(x.d + j), x.R(j + 1)}, {x.R(j)}, static_cast<int>(x.e - j));
  }
}

/// The two core-gradient chains of BTT (and MM): the left one from dL_d, whose producer
/// is at level `left_base` + 1, the right one from dR_1, whose producer is at level
/// `right_base` + 1. With `right_end_t` (BTT: hls/kernels/tt_linear.cc btt_right_chain) the
/// rank-1 end j = e−1 runs on transposed operands, its lanes along rows = r_{d+e-2}·n_{e-1}:
/// dR_{e-1} and G_{d+e-1} copied transposed ("dR{j}t" in chain[j mod 2], "G{d+j}t.b" in
/// chain[(j−1) mod 2]; role "btt.transpose"), dG_{d+e} = G_{d+e-1}ᵀ·dR_{e-1} (rows
/// r_{d+e-1}, inner rows, cols n_e; "btt.grad_merge_right_t", dot form), "dG{d+j}t" =
/// G_{d+e}·dR_{e-1}ᵀ (rows r_{d+e-1}, inner n_e, cols rows; "btt.grad_core_right_t", column
/// form, in chain[(j−1) mod 2]) copied transposed into dG_{d+e-1}.
void grad_chains(PlanBuilder& b, const TtIndex& x, int left_base, int right_base, bool right_end_t = false) {
  const auto d = x.d;
  for (std::size_t k = d; k >= 2; --k) {
    const int level = left_base + static_cast<int>(d - k) + 2;
    b.step("bwd.grad_core." + std::to_string(k), "btt.grad_core_left", FlowStage::kGradWeights,
           shape4(1, x.r(k - 1), x.Mpre(k - 1), x.m(k) * x.r(k)), {x.L(k - 1), x.dL(k)},
           {TtIndex::dG(k)}, level);
    b.step("bwd.grad_left." + std::to_string(k - 1), "btt.grad_merge_left",
           FlowStage::kGradWeights, shape4(1, x.Mpre(k - 1), x.m(k) * x.r(k), x.r(k - 1)),
           {x.dL(k), TtIndex::G(k)}, {x.dL(k - 1)}, level);
  }
  for (std::size_t j = 1; j < x.e; ++j) {
    const int level = right_base + static_cast<int>(j) + 1;
    if (right_end_t && j == x.e - 1) {
      const I rows = x.r(d + j - 1) * x.n(j), ne = x.n(x.e), rj = x.r(d + j);
      const std::string drt = "dR" + std::to_string(j) + "t", gt = TtIndex::G(d + j) + "t.b",
                        dgt = TtIndex::dG(d + j) + "t";
      b.tensor(drt, TensorKind::kIntermediate, {ne, rows}, chain_mem(j));
      b.tensor(gt, TensorKind::kIntermediate, {rj, rows}, chain_mem(j - 1));
      b.tensor(dgt, TensorKind::kIntermediate, {rj, rows}, chain_mem(j - 1));
      b.step("bwd.transpose_dr." + std::to_string(j), "btt.transpose", FlowStage::kGradWeights,
             shape4(1, rows, 1, ne), {x.dR(j)}, {drt}, level, TaskOp::kAdd, ttsim_spec::kAddTranspose);
      b.step("bwd.copy_core." + std::to_string(d + j), "btt.transpose", FlowStage::kGradWeights,
             shape4(1, rows, 1, rj), {TtIndex::G(d + j)}, {gt}, level, TaskOp::kAdd, ttsim_spec::kAddTranspose);
      b.step("bwd.grad_right." + std::to_string(j + 1), "btt.grad_merge_right_t", FlowStage::kGradWeights,
             shape4(1, rj, rows, ne), {gt, drt}, {x.dR(j + 1)}, level + 1);
      b.step("bwd.grad_core." + std::to_string(d + j), "btt.grad_core_right_t", FlowStage::kGradWeights,
             shape4(1, rj, ne, rows), {TtIndex::G(d + x.e), drt}, {dgt}, level + 1);
      b.step("bwd.transpose_dg." + std::to_string(d + j), "btt.transpose", FlowStage::kGradWeights,
             shape4(1, rj, 1, rows), {dgt}, {TtIndex::dG(d + j)}, level + 2, TaskOp::kAdd,
             ttsim_spec::kAddTranspose);
      continue;
    }
    b.step("bwd.grad_core." + std::to_string(d + j), "btt.grad_core_right",
           FlowStage::kGradWeights, shape4(1, x.r(d + j - 1) * x.n(j), x.Nsuf(j), x.r(d + j)),
           {x.dR(j), x.R(j + 1)}, {TtIndex::dG(d + j)}, level);
    b.step("bwd.grad_right." + std::to_string(j + 1), "btt.grad_merge_right",
           FlowStage::kGradWeights, shape4(1, x.r(d + j), x.r(d + j - 1) * x.n(j), x.Nsuf(j)),
           {TtIndex::G(d + j), x.dR(j)}, {x.dR(j + 1)}, level);
  }
}

FlowPlan plan_dense(const LinearLayerSpec& layer, I K) {
  PlanBuilder b(K);
  const I M = layer.in_dim, N = layer.out_dim;
  add_io(b, K, M, N);
  // W stored N × M (one row per output feature: hls/kernels/tt_linear.cc dense_forward).
  b.tensor("W", TensorKind::kCore, {N, M});
  b.tensor("dW", TensorKind::kCoreGrad, {N, M});
  b.step("fwd.product", "dense.product", FlowStage::kForward, shape4(1, K, M, N), {"X", "W"},
         {"Y"}, 1);
  b.step("bwd.grad_x", "dense.grad_input", FlowStage::kGradInput, shape4(1, K, N, M),
         {"dY", "W"}, {"dX"}, 1);
  b.step("bwd.grad_w", "dense.grad_w", FlowStage::kGradWeights, shape4(1, N, K, M), {"dY", "X"},
         {"dW"}, 1);
  return b.take();
}

/// The BTT merges (left merges, L_dᵀ by transpose, right merges) of `x` as steps of
/// `stage` named "<prefix>merge_left.k" / "<prefix>merge_right.j" / "<prefix>transpose_l",
/// writing x's merge tensors and `lt`; levels 1..P+2. The first merge of each chain
/// multiplies two cores, both parameters in param_mem: its A operand is first copied,
/// transposed, into chain0 ("<prefix>copy_left" G_1ᵀ, "<prefix>copy_right" G_{d+e-1}ᵀ, level
/// 1; hls/kernels/tt_linear.cc), so that no call binds param_mem to two arguments.
void btt_merges(PlanBuilder& b, const TtIndex& x, I M, I rd, const std::string& lt, FlowStage stage,
                const std::string& prefix) {
  const int P = static_cast<int>(std::max(x.d, x.e)) - 1;
  std::string left_a = x.L(1), right_a = TtIndex::G(x.d + x.e - 1);
  if (x.d >= 2) {
    const I rows = x.Mpre(1), inner = x.r(1);
    left_a = "G1t" + x.merge_suffix;
    b.tensor(left_a, TensorKind::kIntermediate, {inner, rows}, ttsim_spec::kChain0Mem);
    b.step(prefix + "copy_left", "btt.transpose", stage, shape4(1, rows, 1, inner), {TtIndex::G(1)}, {left_a}, 1,
           TaskOp::kAdd, ttsim_spec::kAddTranspose);
  }
  for (std::size_t k = 2; k <= x.d; ++k) {
    b.step(prefix + "merge_left." + std::to_string(k), "btt.merge_left", stage,
           shape4(1, x.Mpre(k - 1), x.r(k - 1), x.m(k) * x.r(k)), {k == 2 ? left_a : x.L(k - 1), TtIndex::G(k)},
           {x.L(k)}, static_cast<int>(k));
  }
  // The right chain after the left one (hls/kernels/tt_linear.cc btt_remerge).
  if (x.e >= 2) {
    const I rows = x.r(x.d + x.e - 2) * x.n(x.e - 1), inner = x.r(x.d + x.e - 1);
    right_a = TtIndex::G(x.d + x.e - 1) + "t" + x.merge_suffix;
    b.tensor(right_a, TensorKind::kIntermediate, {inner, rows}, ttsim_spec::kChain0Mem);
    // Two call sites in the glue, one per form of the right end (btt_right_merges).
    b.step(prefix + "copy_right", "btt.transpose", stage, shape4(1, rows, 1, inner), {TtIndex::G(x.d + x.e - 1)},
           {right_a}, 1, TaskOp::kAdd, ttsim_spec::kAddTranspose,
           prefix + (x.right_end_transposed() ? "copy_right.transposed_end" : "copy_right"));
  }
  // R_{e-1} transposed when right_end_transposed (hls/kernels/tt_linear.cc btt_right_merges): "R{e-1}t" = G_{d+e}ᵀ·G_{d+e-1}ᵀ
  // (rows n_e, inner r_{d+e-1}, cols r_{d+e-2}·n_{e-1}; "btt.merge_right_t", column form, in
  // chain1) copied transposed into R_{e-1} ("<prefix>transpose_r", level 3).
  for (std::size_t j = x.e - 1; j >= 1; --j) {
    if (j == x.e - 1 && x.right_end_transposed()) {
      const I rows = x.r(x.d + j - 1) * x.n(j), ne = x.n(x.e);
      const std::string rt = "R" + std::to_string(j) + "t" + x.merge_suffix;
      b.tensor(rt, TensorKind::kIntermediate, {ne, rows}, ttsim_spec::kChain1Mem);
      b.step(prefix + "merge_right." + std::to_string(j), "btt.merge_right_t", stage,
             shape4(1, ne, x.r(x.d + j), rows), {TtIndex::G(x.d + x.e), right_a}, {rt}, 2);
      b.step(prefix + "transpose_r", "btt.transpose", stage, shape4(1, ne, 1, rows), {rt}, {x.R(j)}, 3,
             TaskOp::kAdd, ttsim_spec::kAddTranspose);
      continue;
    }
    b.step(prefix + "merge_right." + std::to_string(j), "btt.merge_right", stage,
           shape4(1, x.r(x.d + j - 1) * x.n(j), x.r(x.d + j), x.Nsuf(j)),
           {j == x.e - 1 ? right_a : TtIndex::G(x.d + j), x.R(j + 1)}, {x.R(j)},
           static_cast<int>(x.e - j + (x.right_end_transposed() ? 2 : 1)));
  }
  b.step(prefix + "transpose_l", "btt.transpose", stage, shape4(1, M, 1, rd), {x.L(x.d)}, {lt}, P + 2,
         TaskOp::kAdd, ttsim_spec::kAddTranspose);
}

FlowPlan plan_btt(const TtIndex& x, I K, bool recompute) {
  PlanBuilder b(K);
  const I M = x.M(), N = x.N(), rd = x.r(x.d);
  add_io(b, K, M, N);
  add_cores(b, x);
  add_merge_tensors(b, x, true);
  b.tensor("Z", TensorKind::kIntermediate, {K, rd}, ttsim_spec::kSaved1Mem);
  b.tensor("dZ", TensorKind::kIntermediate, {K, rd}, ttsim_spec::kChain0Mem);
  // L_dᵀ (r_d × M) saved in saved0, dL_dᵀ in chain1: with M contiguous the three products
  // on L run their lanes along M.
  b.tensor("Lt", TensorKind::kIntermediate, {rd, M}, ttsim_spec::kSaved0Mem);
  b.tensor("dLt", TensorKind::kIntermediate, {rd, M}, ttsim_spec::kChain1Mem);
  const int P = static_cast<int>(std::max(x.d, x.e)) - 1;
  btt_merges(b, x, M, rd, "Lt", FlowStage::kForward, "fwd.");
  b.step("fwd.xl", "btt.xl", FlowStage::kForward, shape4(1, K, M, rd), {"X", "Lt"}, {"Z"}, P + 3);
  b.step("fwd.zr", "btt.zr", FlowStage::kForward, shape4(1, K, rd, N), {"Z", x.R(1)}, {"Y"},
         P + 4);
  // With recomputation the backward first makes the merges again (hls/kernels/tt_linear.h
  // btt_remerge, in the same memories), as tensors of their own, and reads those.
  TtIndex xb = x;
  std::string lt = "Lt";
  int shift = 0;
  if (recompute) {
    xb.merge_suffix = ".re";
    lt = "Lt.re";
    for (std::size_t k = 2; k <= x.d; ++k) {
      b.tensor(xb.L(k), TensorKind::kIntermediate, {x.Mpre(k), x.r(k)},
               k == x.d ? ttsim_spec::kChain1Mem : saved_mem(x.d - k));
    }
    for (std::size_t j = 1; j < x.e; ++j) {
      b.tensor(xb.R(j), TensorKind::kIntermediate, {x.r(x.d + j - 1), x.Nsuf(j - 1)}, saved_mem(j - 1));
    }
    b.tensor(lt, TensorKind::kIntermediate, {rd, M}, ttsim_spec::kSaved0Mem);
    btt_merges(b, xb, M, rd, lt, FlowStage::kGradInput, "bwd.re");
    shift = P + 2;
  }
  b.step("bwd.grad_z", "btt.grad_zr", FlowStage::kGradInput, shape4(1, K, N, rd),
         {"dY", xb.R(1)}, {"dZ"}, 1 + shift);
  b.step("bwd.grad_x", "btt.grad_xl", FlowStage::kGradInput, shape4(1, K, rd, M), {"dZ", lt}, {"dX"}, 2 + shift);
  b.step("bwd.grad_r", "btt.grad_r", FlowStage::kGradWeights, shape4(1, rd, K, N), {"Z", "dY"},
         {x.dR(1)}, 1);
  b.step("bwd.grad_l", "btt.grad_l", FlowStage::kGradWeights, shape4(1, rd, K, M), {"dZ", "X"}, {"dLt"}, 1);
  b.step("bwd.transpose_dl", "btt.transpose", FlowStage::kGradWeights, shape4(1, rd, 1, M), {"dLt"},
         {x.dL(x.d)}, 2, TaskOp::kAdd, ttsim_spec::kAddTranspose);
  grad_chains(b, xb, 1, 0, x.right_end_transposed());
  return b.take();
}

FlowPlan plan_mm(const TtIndex& x, I K) {
  PlanBuilder b(K);
  const I M = x.M(), N = x.N(), rd = x.r(x.d);
  add_io(b, K, M, N);
  add_cores(b, x);
  add_merge_tensors(b, x, false);  // the kernel tree has no MM flow
  b.tensor("W", TensorKind::kIntermediate, {M, N});
  b.tensor("dW", TensorKind::kIntermediate, {M, N});
  const int P = static_cast<int>(std::max(x.d, x.e)) - 1;
  merges(b, x, "mm.rebuild", "mm.rebuild");
  b.step("fwd.rebuild_w", "mm.rebuild", FlowStage::kForward, shape4(1, M, rd, N),
         {x.L(x.d), x.R(1)}, {"W"}, P + 1);
  b.step("fwd.product", "mm.product", FlowStage::kForward, shape4(1, K, M, N), {"X", "W"}, {"Y"},
         P + 2);
  b.step("bwd.grad_x", "mm.grad_input", FlowStage::kGradInput, shape4(1, K, N, M), {"dY", "W"},
         {"dX"}, 1);
  b.step("bwd.grad_w", "mm.grad_w", FlowStage::kGradWeights, shape4(1, M, K, N), {"X", "dY"},
         {"dW"}, 1);
  b.step("bwd.grad_l", "mm.grad_l", FlowStage::kGradWeights, shape4(1, M, N, rd),
         {"dW", x.R(1)}, {x.dL(x.d)}, 2);
  b.step("bwd.grad_r", "mm.grad_r", FlowStage::kGradWeights, shape4(1, rd, M, N),
         {x.L(x.d), "dW"}, {x.dR(1)}, 2);
  grad_chains(b, x, 1, 1);
  return b.take();
}

FlowPlan plan_tt(const TtIndex& x, I K) {
  PlanBuilder b(K);
  add_io(b, K, x.M(), x.N());
  add_cores(b, x);
  const std::size_t c = x.d + x.e;
  for (std::size_t t = 1; t < c; ++t) {
    std::vector<I> shape = t <= x.d ? std::vector<I>{K, x.Msuf(t), x.r(t)}
                                    : std::vector<I>{K, x.Npre(t - x.d), x.r(t)};
    // T_s in saved[s mod 2], dT_s in chain[s mod 2] (hls/kernels/tt_linear.cc tt_forward,
    // tt_backward).
    b.tensor(x.T(t), TensorKind::kIntermediate, shape, saved_mem(t));
    b.tensor(x.dT(t), TensorKind::kIntermediate, shape, chain_mem(t));
  }
  // Contraction variants of the sequential flow's steps from the operand strides of the
  // calls in hls/kernels/tt_linear.cc (tt_forward, tt_backward), with f = tt_step(t):
  //  input core k (ms = Msuf(k), pm = r_{k-1}·m_k, rk = r_k), T_k in (token, r_k, ms) order:
  //   forward    T_k = T_{k-1}·G_k     batch K (ms, pm, rk)  a_p ms, b_p rk, b_j 1,  c_j ms
  //   grad-input dT_{k-1} = dT_k·G_kᵀ  batch K (ms, rk, pm)  a_p ms, b_p 1,  b_j rk, c_j ms
  //   grad-core  dG_k = Σ_b T_{k-1}(b)ᵀ·dT_k(b), the batch reduced:
  //                                    batch K (pm, ms, rk)  a_p 1,  b_p 1,  b_j ms, c_j 1
  //  output core t (rows = K·Npre(j-1), rp = r_{t-1}, cols = n_j·r_t), row-major:
  //   forward (rows, rp, cols) column; grad-input (rows, cols, rp) dot (Gᵀ);
  //   grad-core (rp, rows, cols) column.
  using ttsim_spec::contract_variant;
  auto iv = [](I v) { return static_cast<int>(v); };
  for (std::size_t t = 1; t <= c; ++t) {
    const TaskShape f = x.tt_step(t, K);
    const int v = t <= x.d ? contract_variant(iv(f.rows), iv(f.cols), 1, iv(f.rows), false, false)
                           : contract_variant(1, iv(f.cols), 1, 1, false, false);
    b.step("fwd.tt_step." + std::to_string(t), "tt.step", FlowStage::kForward, f,
           {x.T(t - 1), TtIndex::G(t)}, {x.T(t)}, static_cast<int>(t), TaskOp::kContraction, v);
  }
  // Backward as tt_backward runs it: per step s = d+e..1, the core gradient dG_s, then the
  // input gradient dT_{s-1} (tt_backward_step).
  for (std::size_t t = c; t >= 1; --t) {
    const TaskShape f = x.tt_step(t, K);
    const int vc = t <= x.d ? contract_variant(1, 1, iv(f.rows), 1, true, false)
                            : contract_variant(iv(f.inner), iv(f.cols), 1, 1, false, false);
    b.step("bwd.grad_core." + std::to_string(t), "tt.grad_core", FlowStage::kGradWeights,
           shape4(f.batch, f.inner, f.rows, f.cols), {x.T(t - 1), x.dT(t)}, {TtIndex::dG(t)}, 1,
           TaskOp::kContraction, vc);
    const int vi = t <= x.d ? contract_variant(iv(f.rows), 1, iv(f.cols), iv(f.rows), false, false)
                            : contract_variant(1, 1, iv(f.cols), 1, false, false);
    b.step("bwd.tt_grad_input." + std::to_string(t), "tt.grad_input", FlowStage::kGradInput,
           shape4(f.batch, f.rows, f.cols, f.inner), {x.dT(t), TtIndex::G(t)}, {x.dT(t - 1)},
           static_cast<int>(c - t + 1), TaskOp::kContraction, vi);
  }
  return b.take();
}

void check_tokens(I tokens, const std::string& what) {
  if (tokens < 1) {
    throw InputError(what + ": expected a token count K >= 1, found " + std::to_string(tokens));
  }
}

}  // namespace

const char* to_string(Flow f) {
  switch (f) {
    case Flow::kMM: return "mm";
    case Flow::kTT: return "tt";
    case Flow::kBTT: return "btt";
  }
  return "?";
}

Flow parse_flow(const std::string& s) {
  if (s == "mm") return Flow::kMM;
  if (s == "tt") return Flow::kTT;
  if (s == "btt") return Flow::kBTT;
  throw InputError("contraction flow: expected one of \"mm\", \"tt\", \"btt\", found \"" + s +
                   "\"");
}

const char* to_string(FlowStage s) {
  switch (s) {
    case FlowStage::kForward: return "forward";
    case FlowStage::kGradInput: return "grad_input";
    case FlowStage::kGradWeights: return "grad_weights";
  }
  return "?";
}

std::int64_t FlowTensor::words() const {
  I w = 1;
  for (auto s : shape) w *= s;
  return w;
}

const FlowTensor& FlowPlan::tensor(const std::string& name) const {
  for (const auto& t : tensors) {
    if (t.name == name) return t;
  }
  throw std::out_of_range("flow plan has no tensor \"" + name + "\"");
}

std::vector<FlowStep> FlowPlan::stage_steps(FlowStage stage) const {
  std::vector<FlowStep> out;
  for (const auto& s : steps) {
    if (s.stage == stage) out.push_back(s);
  }
  return out;
}

FlowPlan plan_linear(const LinearLayerSpec& layer, Flow flow, std::int64_t tokens, bool recompute_merges) {
  check_tokens(tokens, "layer " + layer.name);
  if (layer.format != WeightFormat::kTT) return plan_dense(layer, tokens);
  if (layer.tt.in_factors.empty() || layer.tt.out_factors.empty()) {
    throw InputError("layer " + layer.name +
                     ": expected a TT shape with at least one input and one output core, found " +
                     std::to_string(layer.tt.in_factors.size()) + " and " +
                     std::to_string(layer.tt.out_factors.size()));
  }
  const TtIndex x(layer.tt);
  switch (flow) {
    case Flow::kMM: return plan_mm(x, tokens);
    case Flow::kTT: return plan_tt(x, tokens);
    case Flow::kBTT: return plan_btt(x, tokens, recompute_merges);
  }
  throw std::logic_error("unknown flow");
}

/// Index helpers of a TTM embedding, 1-based as in the header's notation; E_d is "Y".
struct TtmIndex {
  const TtmShape& ttm;
  std::size_t d;
  explicit TtmIndex(const TtmShape& t) : ttm(t), d(t.cores()) {}
  I r(std::size_t k) const { return ttm.ranks[k]; }
  I e(std::size_t k) const { return ttm.dim_factors[k - 1]; }
  I Epre(std::size_t k) const { return product(ttm.dim_factors, 0, k); }
  static std::string G(std::size_t k) { return "G" + std::to_string(k); }
  static std::string dG(std::size_t k) { return "dG" + std::to_string(k); }
  std::string E(std::size_t k) const { return k == 1 ? G(1) : k == d ? std::string("Y") : "E" + std::to_string(k); }
  std::string dE(std::size_t k) const { return k == 1 ? dG(1) : k == d ? std::string("dY") : "dE" + std::to_string(k); }
  std::string Et(std::size_t k) const { return E(k) + "t"; }
  /// Whether the k = d products run transposed (hls/kernels/ttm_embedding.cc ttm_last_transposed).
  bool last_transposed() const { return d >= 3 && ttsim_spec::lanes_along_rows(Epre(d - 1), e(d) * r(d)); }
};

/// The transposed last step of `x` (x.last_transposed()), forward at levels d..d+2 and
/// grad-weights at levels 1..3 (see plan_ttm_lookup).
void ttm_last_steps_transposed(PlanBuilder& b, const TtmIndex& x, I K) {
  const std::size_t d = x.d;
  const I ep = x.Epre(d - 1), cd = x.e(d) * x.r(d);
  const int L = static_cast<int>(d);
  b.step("fwd.ttm_transpose_e." + std::to_string(d - 1), "ttm.transpose", FlowStage::kForward,
         shape4(1, K * ep, 1, x.r(d - 1)), {x.E(d - 1)}, {x.Et(d - 1)}, L, TaskOp::kAdd, ttsim_spec::kAddTranspose);
  b.step("fwd.ttm_lookup." + std::to_string(d), "ttm.lookup_t", FlowStage::kForward,
         shape4(K, cd, x.r(d - 1), ep), {TtmIndex::G(d), x.Et(d - 1)}, {"Yt"}, L + 1);
  b.step("fwd.ttm_transpose_y", "ttm.transpose", FlowStage::kForward, shape4(1, cd, 1, K * ep), {"Yt"}, {"Y"},
         L + 2, TaskOp::kAdd, ttsim_spec::kAddTranspose);
  b.step("bwd.ttm_transpose_dy", "ttm.transpose", FlowStage::kGradWeights, shape4(1, K * ep, 1, cd), {"dY"},
         {"dYt"}, 1, TaskOp::kAdd, ttsim_spec::kAddTranspose);
  b.step("bwd.ttm_grad_core." + std::to_string(d), "ttm.grad_core_t", FlowStage::kGradWeights,
         shape4(K, x.r(d - 1), ep, cd), {x.Et(d - 1), "dYt"}, {TtmIndex::dG(d)}, 2);
  b.step("bwd.ttm_grad_chain." + std::to_string(d - 1), "ttm.grad_chain_t", FlowStage::kGradWeights,
         shape4(K, x.r(d - 1), cd, ep), {TtmIndex::G(d), "dYt"}, {"d" + x.Et(d - 1)}, 2);
  b.step("bwd.ttm_transpose_de." + std::to_string(d - 1), "ttm.transpose", FlowStage::kGradWeights,
         shape4(1, x.r(d - 1), 1, K * ep), {"d" + x.Et(d - 1)}, {x.dE(d - 1)}, 3, TaskOp::kAdd,
         ttsim_spec::kAddTranspose);
}

bool AccumulateByAdd::applies() const {
  return contraction_lanes >= 1 && ttsim_spec::accumulate_by_add(contraction_lanes, arena_banks);
}

FlowPlan plan_ttm_lookup(const TtmShape& ttm, std::int64_t tokens, const AccumulateByAdd& by_add) {
  check_tokens(tokens, "TTM embedding");
  const TtmIndex x(ttm);
  const std::size_t d = x.d;
  if (d == 0) throw InputError("TTM embedding: expected at least one core, found none");
  const I K = tokens;
  PlanBuilder b(K);
  const I D = x.Epre(d);
  b.tensor("Y", TensorKind::kOutput, {K, D});
  b.tensor("dY", TensorKind::kOutputGrad, {K, D});
  for (std::size_t k = 1; k <= d; ++k) {
    std::vector<I> core{x.r(k - 1), ttm.vocab_factors[k - 1], x.e(k), x.r(k)};
    b.tensor(TtmIndex::G(k), TensorKind::kCore, core);
    b.tensor(TtmIndex::dG(k), TensorKind::kCoreGrad, core);
  }
  // With d >= 3 and Epre(d-1) > e_d·r_d the k = d products run transposed
  // (hls/kernels/ttm_embedding.cc ttm_last_transposed, last_lookup_desc): E_{d-1} is saved
  // transposed ("E{d-1}t", [r][token][i]), the forward writes E_{d-1} and Eᵀ ("Yt") to
  // scratch1 and copies each transposed; the backward copies dY transposed ("dYt") into
  // scratch[(d−1) mod 2], writes dE_{d-1}ᵀ into scratch[d mod 2] and copies it transposed
  // into dE_{d-1}. Scratch0 / scratch1 are words of out_mem / act_mem (ttm_scratch_mem).
  const bool last_t = x.last_transposed();
  for (std::size_t k = 2; k < d; ++k) {
    // E_k in saved[k mod 2], dE_k in scratch[k mod 2] (hls/kernels/ttm_embedding.cc).
    const bool t_k = last_t && k == d - 1;
    b.tensor(x.E(k), TensorKind::kIntermediate, {K, x.Epre(k), x.r(k)}, t_k ? ttm_scratch_mem(1) : saved_mem(k));
    if (t_k) b.tensor(x.Et(k), TensorKind::kIntermediate, {x.r(k), K, x.Epre(k)}, saved_mem(k));
    b.tensor(x.dE(k), TensorKind::kIntermediate, {K, x.Epre(k), x.r(k)}, ttm_scratch_mem(k));
  }
  if (last_t) {
    const I ep = x.Epre(d - 1), cd = x.e(d) * x.r(d);
    b.tensor("Yt", TensorKind::kIntermediate, {cd, K, ep}, ttm_scratch_mem(1));
    b.tensor("dYt", TensorKind::kIntermediate, {cd, K, ep}, ttm_scratch_mem(d - 1));
    b.tensor("d" + x.Et(d - 1), TensorKind::kIntermediate, {x.r(d - 1), K, ep}, ttm_scratch_mem(d));
  }
  // The first lookup reads core 1 from its copy in chain0 (a plain copy by the elementwise
  // unit's transposed copy of a one-column view, role "ttm.copy": hls/kernels/ttm_embedding.cc),
  // so that it reads its two operands from two arrays.
  std::string first_a = x.E(1);
  if (d >= 2) {
    const I words = x.r(0) * ttm.vocab_factors[0] * x.e(1) * x.r(1);
    first_a = "G1c";
    b.tensor(first_a, TensorKind::kIntermediate, {words}, ttsim_spec::kChain0Mem);
    b.step("fwd.ttm_copy.1", "ttm.copy", FlowStage::kForward, shape4(1, words, 1, 1), {TtmIndex::G(1)}, {first_a},
           1, TaskOp::kAdd, ttsim_spec::kAddTranspose);
  }
  for (std::size_t k = 2; k <= (last_t ? d - 1 : d); ++k) {
    b.step("fwd.ttm_lookup." + std::to_string(k), "ttm.lookup", FlowStage::kForward,
           shape4(K, x.Epre(k - 1), x.r(k - 1), x.e(k) * x.r(k)), {k == 2 ? first_a : x.E(k - 1), TtmIndex::G(k)},
           {x.E(k)}, static_cast<int>(k));
  }
  if (last_t) ttm_last_steps_transposed(b, x, K);
  const int level = last_t ? 3 : 1;
  for (std::size_t k = last_t ? d - 1 : d; k >= 2; --k) {
    const int lv = level + static_cast<int>(d - k);
    const I rp = x.r(k - 1), ep = x.Epre(k - 1), cols = x.e(k) * x.r(k);
    const std::string core = "bwd.ttm_grad_core." + std::to_string(k);
    if (by_add.applies()) {
      // Token by token: dS_k(b) into the partial, then added into the token's slice of dG_k.
      const std::string part = "dS" + std::to_string(k) + "p";
      b.tensor(part, TensorKind::kIntermediate, {rp, cols}, ttsim_spec::kChain0Mem);
      for (I t = 0; t < K; ++t) {
        const int at = lv + 2 * static_cast<int>(t);
        // One call site each in the glue's token loop (ttm_embedding.cc).
        b.step(core + ".t" + std::to_string(t), "ttm.grad_core", FlowStage::kGradWeights, shape4(1, rp, ep, cols),
               {x.E(k - 1), x.dE(k)}, {part}, at, TaskOp::kContraction, -1, core + ".t");
        b.step(core + ".add" + std::to_string(t), "ttm.grad_core.add", FlowStage::kGradWeights,
               shape4(1, rp, 1, cols), {part, TtmIndex::dG(k)}, {TtmIndex::dG(k)}, at + 1, TaskOp::kAdd,
               ttsim_spec::kAddAccumulate, core + ".add");
      }
    } else {
      // A scatter-add into the token's slice of dG_k (the kernel's accumulate flag, C_old read
      // from the zeroed gradient): the column_acc loop.
      b.step(core, "ttm.grad_core", FlowStage::kGradWeights, shape4(K, rp, ep, cols), {x.E(k - 1), x.dE(k)},
             {TtmIndex::dG(k)}, lv, TaskOp::kContraction, ttsim_spec::kContractColumnAcc);
    }
    b.step("bwd.ttm_grad_chain." + std::to_string(k - 1), "ttm.grad_chain", FlowStage::kGradWeights,
           shape4(K, x.Epre(k - 1), x.e(k) * x.r(k), x.r(k - 1)), {x.dE(k), TtmIndex::G(k)}, {x.dE(k - 1)}, lv);
  }
  return b.take();
}

FlowPlan plan_attention(std::int64_t sequences, std::int64_t seq_len, std::int64_t heads,
                        std::int64_t head_dim) {
  if (sequences < 1 || seq_len < 1 || heads < 1 || head_dim < 1) {
    throw InputError("attention: expected sequences, sequence length, heads and head dim >= 1, "
                     "found " + std::to_string(sequences) + ", " + std::to_string(seq_len) +
                     ", " + std::to_string(heads) + ", " + std::to_string(head_dim));
  }
  const I B = sequences * heads, L = seq_len, dh = head_dim;
  const I K = sequences * seq_len, D = heads * head_dim;
  PlanBuilder b(K);
  for (const char* n : {"Q", "K", "V"}) b.tensor(n, TensorKind::kInput, {K, D});
  b.tensor("C", TensorKind::kOutput, {K, D});
  b.tensor("dC", TensorKind::kOutputGrad, {K, D});
  for (const char* n : {"dQ", "dK", "dV"}) b.tensor(n, TensorKind::kInputGrad, {K, D});
  // S and P in the P slot of saved1_mem (softmax in place), dP and dS in the dP slot of
  // bwd_a_mem (softmax_grad in place): hls/kernels/attention.cc, model_step.cc.
  for (const char* n : {"S", "P"}) b.tensor(n, TensorKind::kIntermediate, {B, L, L}, ttsim_spec::kSaved1Mem);
  for (const char* n : {"dP", "dS"}) b.tensor(n, TensorKind::kIntermediate, {B, L, L}, ttsim_spec::kBwdAMem);
  const auto F = FlowStage::kForward;
  const auto G = FlowStage::kGradInput;
  b.step("fwd.qk", "attn.qk", F, shape4(B, L, dh, L), {"Q", "K"}, {"S"}, 1);
  b.step("fwd.softmax", "attn.softmax", F, shape4(B, L, 1, L), {"S"}, {"P"}, 2,
         TaskOp::kSoftmax);
  b.step("fwd.pv", "attn.pv", F, shape4(B, L, L, dh), {"P", "V"}, {"C"}, 3);
  b.step("bwd.grad_p", "attn.grad_p", G, shape4(B, L, dh, L), {"dC", "V"}, {"dP"}, 1);
  b.step("bwd.grad_v", "attn.grad_v", G, shape4(B, L, L, dh), {"P", "dC"}, {"dV"}, 1);
  b.step("bwd.softmax_grad", "attn.softmax_grad", G, shape4(B, L, 1, L), {"P", "dP"}, {"dS"}, 2,
         TaskOp::kSoftmaxGrad);
  b.step("bwd.grad_q", "attn.grad_q", G, shape4(B, L, L, dh), {"dS", "K"}, {"dQ"}, 3);
  b.step("bwd.grad_k", "attn.grad_k", G, shape4(B, L, L, dh), {"dS", "Q"}, {"dK"}, 3);
  return b.take();
}

FlowCost stage_cost(const FlowPlan& plan, FlowStage stage) {
  FlowCost c;
  // Global step indices of first production and last read of every intermediate.
  std::map<std::string, std::pair<int, int>> span;  // name -> (produced, last read)
  std::map<std::string, I> words;
  for (const auto& t : plan.tensors) {
    if (t.kind == TensorKind::kIntermediate) words[t.name] = t.words();
  }
  const int n = static_cast<int>(plan.steps.size());
  for (int i = 0; i < n; ++i) {
    for (const auto& w : plan.steps[i].writes) {
      if (words.count(w) && !span.count(w)) span[w] = {i, i};
    }
    for (const auto& r : plan.steps[i].reads) {
      if (span.count(r)) span[r].second = std::max(span[r].second, i);
    }
  }
  std::vector<int> idx;
  std::map<std::string, bool> touched;
  for (int i = 0; i < n; ++i) {
    const auto& s = plan.steps[i];
    if (s.stage != stage) continue;
    idx.push_back(i);
    if (s.op == TaskOp::kContraction) c.macs += s.shape.macs();
    c.critical_path = std::max(c.critical_path, s.level);
    for (const auto& t : s.reads) touched[t] = true;
    for (const auto& t : s.writes) touched[t] = true;
  }
  for (int i : idx) {
    I live = 0;
    for (const auto& [name, sp] : span) {
      if (touched.count(name) && sp.first <= i && i <= sp.second) live += words[name];
    }
    c.peak_intermediate_words = std::max(c.peak_intermediate_words, live);
  }
  return c;
}

FlowCost linear_cost(const LinearLayerSpec& layer, Flow flow, std::int64_t tokens,
                     FlowStage stage) {
  return stage_cost(plan_linear(layer, flow, tokens), stage);
}

}  // namespace ttsim
