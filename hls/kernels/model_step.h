#pragma once
// One training step of the ATIS transformer for one sample, on the HLS kernels:
// forward, loss, backward, SGD update, with every parameter, gradient, saved
// activation and temporary in the on-chip arenas described by a Layout (ArenaId).
//
// Model (same as models/reference/reference_model.h): for K tokens (1 <= K <= seq_len)
//   x = TTM(tokens) + position[0:K];  h = LN_emb(x)
//   per encoder (post-LN): q,k,v = h·W + b (TT layers); per head S = Q_h·K_hᵀ/√dh,
//     P = softmax(S), C_h = P·V_h;  h1 = LN1(h + C·W_o + b_o);
//     h = LN2(h1 + GELU(h1·W_in + b_in)·W_out + b_out)   (GELU tanh form)
//   intent logits = h[0]·W_int + b_int; slot logits = h·W_slot + b_slot (dense heads)
//   loss = CE(intent) + slot_scale · Σ_t CE(slot_t) (tags < 0 ignored).
// TT layers use the BTT or the sequential TT flow per layer; encoder layers may also be
// dense. The TTM embedding needs d >= 2 cores.
//
// The same code runs in the HLS top function (dims from design_config.h, arenas as
// static on-chip arrays) and on the host (hls/host/hls_model.h, arenas in vectors).
// Every function here and in tt_linear.cc, attention.cc and ttm_embedding.cc that calls a
// kernel module carries `#pragma HLS INLINE`: all module call sites then sit in the top
// function, whose ALLOCATION limits (design_config.h TTSIM_INSTANCES_*) share one RTL
// instance of each module among them.

#include "hls/kernels/tt_linear.h"
#include "hls/kernels/ttm_embedding.h"

namespace ttsim_hls {

/// Encoders the shape tables hold (ModelDims::lin, Layout::enc, Layout::tensors; the top
/// computes them at run time). An emitted build sizes them to its own model
/// (design_config.h: TTSIM_MAX_ENCODERS = kEncoders), so the top's tables are no larger
/// than its design needs; the host tools built by Bazel (simulator, host model, tests)
/// define 128 (hls/include/BUILD) so that one binary takes any model up to 128 encoders.
constexpr int kMaxEncoders = TTSIM_MAX_ENCODERS;
constexpr int kLinearsPerEncoder = 6;  ///< q, k, v, o, ffn_in, ffn_out
/// Every update group's parameters start at a multiple of this many words of the param
/// arena (its gradients at word 0 of the grad arena): the LayerNorm gains and biases then
/// start where a unit of up to 32 lanes finds them aligned (layernorm_lane_granule; the
/// activation slots of the ATIS presets are multiples of 32 words too). The padding (< 32
/// words a group) holds no parameter; the TT and TTM cores of a group stay contiguous (the
/// contractions address them from the group's first core).
constexpr int kParamGroupAlign = 32;
/// The heads' logits and their gradients start at multiples of this many words, and the
/// slot head's rows are logit_pitch words apart, so the loss unit's lane accesses start at
/// multiples of it (loss_lane_granule) for units of up to 32 lanes.
constexpr int kLogitAlign = 32;
/// `words` rounded up to a multiple of `align` (> 0), words.
inline int align_up(int words, int align) { return (words + align - 1) / align * align; }
/// Words between rows of the slot head's logits and their gradients: slot_tags rounded up
/// to a multiple of kLogitAlign.
inline int logit_pitch(int slot_tags) { return align_up(slot_tags, kLogitAlign); }

/// Parameter tensors: TTM cores, position, 2 LN, per encoder 6·(cores + bias) + 4 LN,
/// 4 head tensors.
constexpr int kMaxParamTensors =
    kMaxTtmFactors + 3 + kMaxEncoders * (kLinearsPerEncoder * (2 * kMaxTtFactors + 1) + 4) + 4;

/// One encoder linear layer: TT (BTT or sequential flow) or dense, always with a bias.
struct LinearDims {
  bool tt = true;
  bool btt = true;  ///< flow of a TT layer: true BTT, false sequential TT
  /// BTT only: the backward pass recomputes the layer's merges (btt_remerge) instead of
  /// reading them saved from the forward pass; they then live in the merge slots every
  /// recomputing layer shares (Layout::merge), and only Z is kept per layer.
  bool recompute = false;
  /// When the backward accumulates dX into a gradient it is given (linear_backward with acc),
  /// the product (BTT: dZ·L_dᵀ; dense: dY·W) runs into a partial buffer followed by an add
  /// (ttsim_spec::accumulate_by_add for the design's lanes; set_accumulate_by_add). Never
  /// for the sequential TT flow (its dX is not a column-form product).
  bool dx_by_add = false;
  int in_dim = 0, out_dim = 0;
  TtDims t;  ///< valid when tt
};

/// A layer's flow and forms as the glue (linear_forward, linear_backward) branches on
/// them. An emitted top runs its design's model only — every encoder layer TT
/// (machine::hls_design refuses others), with the design's one flow, merge recomputation and
/// dX accumulation (design_config.h kUseBtt, kRecomputeMerges, kAccumulateByAdd, as
/// design_config_dims sets them) — so with ttsim_cfg::kFixedLayerForms each is a constant
/// and its branch folds at compile time: the top holds only the call sites its design runs,
/// which the LUT estimate's argument multiplexers count (machine/machine.cc call sites,
/// docs/resources.md). The host tools run any model (TTSIM_ANY_LAYOUT) and read the layer.
inline bool layer_tt(const LinearDims& l) { return ttsim_cfg::kFixedLayerForms || l.tt; }
inline bool layer_btt(const LinearDims& l) { return ttsim_cfg::kFixedLayerForms ? ttsim_cfg::kUseBtt : l.btt; }
inline bool layer_recompute(const LinearDims& l) {
  return ttsim_cfg::kFixedLayerForms ? ttsim_cfg::kRecomputeMerges : l.recompute;
}
inline bool layer_dx_by_add(const LinearDims& l) {
  return ttsim_cfg::kFixedLayerForms
             ? ttsim_cfg::kAccumulateByAdd && ttsim_cfg::kUseBtt &&
                   ttsim_spec::accumulate_by_add(ttsim_cfg::kContractLanes, ttsim_cfg::kArenaBanks)
             : l.dx_by_add;
}

/// The TT shape layer `i` of an encoder (0..5: q, k, v, o, ffn_in, ffn_out; a constant at each
/// of the glue's call sites) passes to its flow: with ttsim_cfg::kFixedLayerForms its core
/// counts d and e are its kind's (design_config.h kAttnD / kAttnE, kFfnInD / kFfnInE,
/// kFfnOutD / kFfnOutE: one factorisation per kind), so that the flows' branches and loop
/// bounds on them (d == 1, e >= 2, the parity of d − 2 and e − 2, ...) are constants of the
/// inlined call site and fold, where l.t read at the encoder loop's index would not; the
/// layer's own otherwise (its modes and ranks always: ranks may differ per encoder).
inline TtDims layer_tt_dims(const LinearDims& l, int i) {
  TtDims t = l.t;
  if (ttsim_cfg::kFixedLayerForms) {
    t.d = i < 4 ? ttsim_cfg::kAttnD : i == 4 ? ttsim_cfg::kFfnInD : ttsim_cfg::kFfnOutD;
    t.e = i < 4 ? ttsim_cfg::kAttnE : i == 4 ? ttsim_cfg::kFfnInE : ttsim_cfg::kFfnOutE;
  }
  return t;
}

/// Runtime shape of the whole model.
struct ModelDims {
  int encoders = 0, d_model = 0, heads = 0, ffn_dim = 0, seq_len = 0;
  int intents = 0, slot_tags = 0;
  TtmDims emb;  ///< vocab = emb.vocab()
  LinearDims lin[kMaxEncoders][kLinearsPerEncoder];
  /// Encoder recomputation (activation checkpointing by encoder): the step keeps only each
  /// encoder's output h2 (the next encoder's input) from the forward pass; every encoder
  /// but the last runs its forward again, from its saved input and with its parameters not
  /// yet updated, just before its backward. The encoders' other activations (linear
  /// outputs, saved merges and Z, P, ctx, h1, GELU output, LayerNorm x̂ and 1/σ) then share
  /// one region per arena (Layout: every encoder's slots from the same base), sized by the
  /// largest encoder. The same arithmetic as keeping them: the recomputed values are the
  /// forward's, bit for bit.
  bool recompute_encoders = false;
  /// The intent head's dX (accumulated into the slot head's) through Layout::part and an
  /// add, as LinearDims::dx_by_add (set_accumulate_by_add).
  bool intent_dx_by_add = false;
};

/// Sets LinearDims::dx_by_add of every BTT or dense layer of `m`, ModelDims::intent_dx_by_add
/// and TtmDims::core_by_add of the embedding (its column-form core gradients) by
/// ttsim_spec::accumulate_by_add for a contraction of `contract_lanes` lanes on arenas of
/// `banks` banks (the top: design_config.h kContractLanes, kArenaBanks; the simulator: the
/// arch's). Call after the shapes are set.
void set_accumulate_by_add(ModelDims& m, int contract_lanes, int banks);

/// The top's float arenas (static arrays <name>_mem of hls/kernels/top.cc). The plan
/// keeps the output of every contraction out of the memories its inputs are in, so each
/// call holds at most two ports of any bank (kernel_spec.h kBankPorts) and the
/// contraction runs at II = 1:
///  - act:    layer inputs — LayerNorm outputs h, attention context, GELU output — and
///            the K projection's output (so that Q·Kᵀ reads Q and K from two arrays);
///  - out:    layer outputs — each linear layer's Y (q, v, ffn_in), one slot (proj)
///            shared by the TTM embedding's E and every o and ffn_out output (the
///            position add and the residual adds accumulate into it in place: it holds
///            the LayerNorm inputs x0, a1, a2), the head logits;
///  - saved0, saved1: forward intermediates kept for the backward pass: a chain
///            L_2..L_{d-1} / R_{e-1}..R_1 / T_1.. / E_2.. alternates between the two (step
///            k reads one, writes the other), BTT's L_dᵀ in saved0 and Z in saved1; attention
///            probabilities P, LayerNorm x̂ and 1/σ in saved1; the BTT layers that
///            recompute their merges share one merge slot in each;
///  - bwd_a, bwd_b, bwd_c: activation gradients: dA, dP | the head dlogits, dB, dctx and dk
///            (one slot) | dv, dF and dq (one slot) — each backward product's dY and dX in
///            different ones;
///  - chain0, chain1: temporaries of the backward chains of TT layers (dZ, dL_dᵀ, dL_k,
///            dR_j, dT_s), alternating like the forward ones, and BTT's L_d in chain1
///            between its merge and its transpose; chain0 also holds, from word 0, the
///            embedding's copy of its first core (its forward runs before any linear
///            layer's); chain1 the per-row statistics of softmax, LayerNorm and the loss
///            (stat) after the scratch: no call binds a chain temporary and stat.
///  The TTM embedding's other temporaries (its forward's E_{d-1} and Eᵀ, its backward chain
///  dE_k) use the words of act (scratch1) and out (scratch0) from word 0: its forward runs
///  before any activation is written and its backward after every one is dead.
enum ArenaId : int {
  kParamArena = 0,
  kGradArena,  ///< the gradients of one update group at a time (Layout::tensors[].grad)
  kActArena,
  kOutArena,
  kSaved0Arena,
  kSaved1Arena,
  kBwdAArena,
  kBwdBArena,
  kBwdCArena,
  kChain0Arena,
  kChain1Arena,
  kFloatArenas
};
/// C++ stem of each arena's array in top.cc (<stem>_mem) and design_config.h
/// (k<Stem>Words, TTSIM_<STEM>_STORAGE).
constexpr const char* kArenaStems[kFloatArenas] = {"param", "grad",  "act",   "out",    "saved0", "saved1",
                                                   "bwd_a", "bwd_b", "bwd_c", "chain0", "chain1"};

/// Word offsets of one linear layer in the arenas.
struct LinearSlots {
  int w = 0, w_words = 0;  ///< weights (TT cores contiguous, or dense N × M: one row per output) in param
  int b = 0;               ///< bias (N) in param
  int gw = 0, gb = 0;      ///< their gradients' offsets in grad (the layer's update group)
  int tensor = 0, tensors = 0;  ///< its parameter tensors: Layout::tensors[tensor, tensor + tensors)
  int saved[2] = {0, 0};   ///< saved intermediates in saved0 / saved1 (BTT: the merges L, R; TT: T_s)
  int z = 0;               ///< BTT: Z (K × r_d) in saved1, kept per layer
  int y = 0;               ///< output K × N in out (the K projection's in act: kKeyArena)
};

/// The arena of the K projection's output: act, so that Q·Kᵀ reads its two operands from
/// two arrays (Q in out); every other linear output is in out.
constexpr ArenaId kKeyArena = kActArena;

/// Offsets of one encoder (param: ln*; P, xhat*, rstd* in saved1; ctx, h*,
/// g in act). Each LayerNorm's gain and bias are one update group: tensors ln*_t (gain)
/// and ln*_t + 1 (bias), gradients at grad offsets 0 and D.
struct EncoderSlots {
  LinearSlots lin[kLinearsPerEncoder];
  int ln1_g = 0, ln1_b = 0, ln2_g = 0, ln2_b = 0;
  int ln1_t = 0, ln2_t = 0;
  int P = 0, ctx = 0, h1 = 0, xhat1 = 0, rstd1 = 0, g = 0, h2 = 0, xhat2 = 0, rstd2 = 0;
};

/// One parameter tensor: its words at `offset` in the param arena (and in param_io), its
/// gradient at `grad` in the grad arena.
struct ParamTensor {
  int offset = 0, words = 0;
  int grad = 0;
  /// Words of the update group this tensor starts (its contiguous parameters from `offset`,
  /// gradients from `grad` = 0); 0 for a tensor that starts no group.
  int group_words = 0;
};

/// Arena layout for `seq_len` tokens (the largest K a step may use). Every offset is in
/// words from the start of the arena named beside it.
///
/// Update groups (the fused update, model_train_step): the parameter tensors whose
/// gradients are complete at one point of the backward pass — the embedding's position
/// table and LayerNorm, its TTM cores, each linear layer (cores or weight, and bias), each
/// encoder LayerNorm (gain, bias), each head (weight, bias). A group's gradients are laid out from
/// word 0 of the grad arena, so the arena holds the largest group, not the whole model.
struct Layout {
  // param; the gradients of a group from word 0 of grad.
  int emb_cores = 0, pos = 0, lne_g = 0, lne_b = 0;
  int emb_gcores = 0, gpos = 0, glne_g = 0, glne_b = 0;  ///< the embedding's gradients in grad
  int emb_t = 0, emb_tensors = 0;  ///< the TTM cores' group: tensors[emb_t, emb_t + emb_tensors)
  int pos_t = 0;                   ///< the position and LayerNorm group: tensors[pos_t, pos_t + 3)
  EncoderSlots enc[kMaxEncoders];
  int wi = 0, bi = 0, ws = 0, bs = 0;
  LinearSlots head_i, head_s;  ///< the heads' update groups (w, b, gw, gb, tensor, tensors)
  // act: h0; out: E (= proj, then x0 = E + position in place), logit_i, logit_s;
  // saved0/saved1: emb_saved; saved1: xhat0, rstd0.
  int emb_saved[2] = {0, 0}, E = 0, h0 = 0, xhat0 = 0, rstd0 = 0, logit_i = 0, logit_s = 0;
  int merge[2] = {0, 0};  ///< saved0 / saved1: the merge slots of the layers that recompute them
  int proj = 0;  ///< out: the slot E and every o and ffn_out output share (and x0, a1, a2 in place)
  // bwd_a: dA, dP; bwd_b: dB = dctx = dk = dlogit_i (dlogit_s after it); bwd_c: dv, dF = dq;
  // chain1 (after the scratch): stat;
  // chain0/chain1: lin_scratch; chain0: ttm_copy; out/act: ttm_scratch[0] / ttm_scratch[1].
  int dA = 0, dB = 0, dctx = 0, dq = 0, dk = 0, dv = 0, dP = 0, dF = 0, dlogit_i = 0, dlogit_s = 0, stat = 0;
  int lin_scratch[2] = {0, 0}, ttm_scratch[2] = {0, 0}, ttm_copy = 0;
  /// chain0: the partial of the intent head's dX (d_model words, intent_dx_by_add) and of
  /// ttm_backward's scatter (ttm_part_words), from word 0 with the chain scratch: nothing else
  /// in chain0 is live while the heads' or the embedding's backward runs. (The encoder layers'
  /// partial dX use act words dead while they run: model_train_step.)
  int part = 0;
  int words[kFloatArenas] = {};  ///< words of each float arena (grad: the largest update group)
  int param_words = 0;           ///< = words[kParamArena]
  int act_words = 0;             ///< Σ words of act, out, saved0, saved1
  int scratch_words = 0;         ///< Σ words of bwd_a, bwd_b, bwd_c, chain0, chain1 (stat in chain1)
  int index_words = 0;           ///< int arena: TTM slice offsets, then labels
  ParamTensor tensors[kMaxParamTensors];
  int n_tensors = 0;
};

/// Computes the layout of `m` into `*out`, which must be a Layout value-initialised or last
/// written by make_layout (its tensor table past n_tensors zero: only the entries it lists are
/// cleared). Returns false (layout unusable) when a limit is broken: encoders > kMaxEncoders,
/// TT/TTM factors > 6, TTM d < 2, d_model % heads != 0.
bool make_layout(const ModelDims& m, Layout* out);

/// Lane alignment the layout gives the LayerNorm unit (ttsim_layernorm, ttsim_layernorm_grad):
/// the greatest common divisor of d_model and every word offset model_train_step passes to
/// their lane accesses (the embedding's and each encoder's inputs x, outputs y, x̂, γ, β, the
/// gradients dy, dx, dγ, dβ). Each row of those calls starts at a multiple of it, so the
/// unit's lane accesses can take the aligned network (banked.h lane_read<LANES, true>) when
/// LANES divides it. rstd and stat are scalar accesses and do not count.
int layernorm_lane_granule(const ModelDims& m, const Layout& L);
/// The same for the GELU unit (ttsim_gelu, ttsim_gelu_grad): ffn_dim and the offsets of the
/// FFN-in output, its GELU output g and the gradient dF.
int gelu_lane_granule(const ModelDims& m, const Layout& L);
/// The same for the softmax unit (ttsim_softmax, ttsim_softmax_grad): the row pitch of the
/// scores, seq_len (attention.h: every sample's rows are seq_len words apart), and the
/// offsets of each encoder's probabilities P and of the gradient dP (the heads' blocks start
/// at multiples of the pitch).
int softmax_lane_granule(const ModelDims& m, const Layout& L);
/// The same for the SGD unit (ttsim_sgd_update): each update group's parameters are updated
/// by one call from the group's first word (kParamGroupAlign-aligned) and its gradients from
/// the group's first gradient word (0): the gcd of those words over the groups (0 when every
/// group starts at word 0).
int sgd_lane_granule(const Layout& L);
/// The same for the loss unit (ttsim_loss): the slot head's row pitch (logit_pitch) and the
/// offsets of both heads' logits and logit gradients.
int loss_lane_granule(const ModelDims& m, const Layout& L);

/// The arenas (sizes from the Layout's words[]), one view per ArenaId.
struct Arenas {
  Ref param;    ///< parameters
  Ref grad;     ///< one update group's gradients; zero before the first step (each update re-zeroes it)
  Ref act, out, saved0, saved1, bwd_a, bwd_b, bwd_c, chain0, chain1;
  int* index;  ///< index_words
};

/// One sample. tokens/slot_tags: K entries; tokens in [0, vocab), tags in
/// [-1, slot_tags) (-1 ignored); intent in [0, intents) or -1 (ignored).
struct StepSample {
  int K = 0;
  const int* tokens = nullptr;
  const int* slot_tags = nullptr;
  int intent = 0;
  float slot_scale = 1.0f;  ///< weight of the summed slot cross-entropy
};

struct StepLosses {
  float intent = 0, slot = 0;  ///< slot already multiplied by slot_scale
  float total() const { return intent + slot; }
};

/// Forward only: logits in out[logit_i] (intents) and out[logit_s] (K × slot_tags).
void model_forward(const ModelDims& m, const Layout& L, const Arenas& a, int K, const int* tokens);
/// The gradient mode's read-back of `words` gradient words from g to out (each re-zeroed);
/// one RTL instance in the top (ALLOCATION limit 1, top.cc).
void ttsim_store_gradient(Ref g, float* out, int words);

/// One training step: forward, loss, backward, and each update group's update fused into
/// the backward pass — as soon as the group's gradients are complete and every task that
/// reads the group's old values has run (the group's own backward), before the next
/// group's gradients reuse the grad arena:
///  - grad_mode false: SGD, w −= lr·g, one ttsim_sgd_update per update group over its
///    contiguous words (ParamTensor::group_words; it re-zeroes g);
///  - grad_mode true (the debug path of the reference test): the gradients are written to
///    grad_out[tensors[i].offset ...] (param_words words, Layout order, as the parameters)
///    and re-zeroed; the parameters are unchanged and lr is not used.
/// The same arithmetic as a step that keeps every gradient and updates at the end: each
/// tensor is updated once with its own complete gradient, after its last reader.
StepLosses model_train_step(const ModelDims& m, const Layout& L, const Arenas& a, const StepSample& s, float lr,
                            bool grad_mode, float* grad_out);

}  // namespace ttsim_hls
