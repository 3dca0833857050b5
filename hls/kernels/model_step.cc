#include "hls/kernels/model_step.h"

#include <cassert>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "hls/kernels/attention.h"
#include "hls/kernels/modules.h"

namespace ttsim_hls {

namespace {

int max_i(int a, int b) { return a > b ? a : b; }

int linear_saved_words(const LinearDims& l, int K, int parity) {
  if (!l.tt) return 0;
  return l.btt ? btt_saved_words(l.t, K, parity) : tt_saved_words(l.t, K, parity);
}
int linear_scratch_words(const LinearDims& l, int K, int parity) {
  if (!l.tt) return 0;
  return l.btt ? btt_scratch_words(l.t, K, parity) : tt_scratch_words(l.t, K, parity);
}

/// Y = X (act) · W + b, Y in out (the K projection's in act: kKeyArena); BTT: the first
/// cores' copies and L_d pass through the chain arenas' linear scratch.
void linear_forward(int i, const LinearDims& l, const LinearSlots& s, int K, const Arenas& a, const Layout& L,
                    CRef X, Ref Y) {
#pragma HLS INLINE
  const TtDims t = layer_tt_dims(l, i);
  CRef W = a.param + s.w;
  CRef b = a.param + s.b;
  if (!layer_tt(l)) {
    dense_forward(a.index, l.in_dim, l.out_dim, K, X, W, b, Y, l.out_dim);
  } else if (layer_btt(l)) {
    btt_forward(a.index, t, K, X, W, b, Y, a.saved0 + s.saved[0], a.saved1 + s.saved[1], a.saved1 + s.z,
                a.chain0 + L.lin_scratch[0], a.chain1 + L.lin_scratch[1]);
  } else {
    tt_forward(a.index, t, K, X, W, b, Y, a.saved0 + s.saved[0], a.saved1 + s.saved[1]);
  }
}

/// Backward of linear_forward (layer `i` of its encoder): dX (+)= dY·Wᵀ, dW, db. dY and dX in
/// different bwd arenas.
/// A layer with dx_by_add accumulates its dX through `dx_part` (K × in_dim words of act that
/// are dead while it runs: model_train_step passes each encoder's attention context for q, k
/// and v, its GELU output for ffn_in) and an add.
void linear_backward(int i, const LinearDims& l, const LinearSlots& s, int K, const Arenas& a, const Layout& L,
                     CRef X, CRef dY, Ref dX, bool acc, Ref dx_part) {
#pragma HLS INLINE
  const TtDims t = layer_tt_dims(l, i);
  CRef W = a.param + s.w;
  Ref dW = a.grad + s.gw;
  Ref db = a.grad + s.gb;
  if (!layer_tt(l)) {
    dense_backward(a.index, l.in_dim, l.out_dim, K, X, dY, l.out_dim, W, dX, acc, acc && layer_dx_by_add(l), dx_part,
                   dW, db);
  } else if (layer_btt(l)) {
    // A recomputing layer's merges were overwritten by the later layers sharing its merge
    // slots: made again from the cores, which its update has not changed yet.
    if (layer_recompute(l)) {
      btt_remerge(a.index, t, K, W, a.saved0 + s.saved[0], a.saved1 + s.saved[1], a.chain0 + L.lin_scratch[0],
                  a.chain1 + L.lin_scratch[1]);
    }
    btt_backward(a.index, t, K, X, dY, W, a.saved0 + s.saved[0], a.saved1 + s.saved[1], a.saved1 + s.z, dX, acc,
                 acc && layer_dx_by_add(l), dx_part, dW, db, a.chain0 + L.lin_scratch[0],
                 a.chain1 + L.lin_scratch[1]);
  } else {
    tt_backward(a.index, t, K, X, dY, W, a.saved0 + s.saved[0], a.saved1 + s.saved[1], dX, acc, dW, db,
                a.chain0 + L.lin_scratch[0], a.chain1 + L.lin_scratch[1]);
  }
}

}  // namespace

void set_accumulate_by_add(ModelDims& m, int contract_lanes, int banks) {
  for (int e = 0; e < m.encoders && e < kMaxEncoders; ++e) {
    for (int i = 0; i < kLinearsPerEncoder; ++i) {
      LinearDims& l = m.lin[e][i];
      l.dx_by_add = (!l.tt || l.btt) && ttsim_spec::accumulate_by_add(contract_lanes, banks);
    }
  }
  m.intent_dx_by_add = ttsim_spec::accumulate_by_add(contract_lanes, banks);
  set_core_by_add(m.emb, contract_lanes, banks);
}

namespace {

/// Lays out a Layout arena by arena, in make_layout's order: a buffer goes at the end of
/// its arena; a parameter tensor at the end of the param arena with its gradient at the
/// end of its update group in the grad arena.
class LayoutBuilder {
 public:
  LayoutBuilder(const ModelDims& m, Layout& L) : m_(m), L_(L), K_(m.seq_len), D_(m.d_model) {}

  /// A buffer of `words` at the end of arena `arena`; its offset.
  int alloc(int arena, int words) {
    const int off = L_.words[arena];
    L_.words[arena] += words;
    return off;
  }
  /// alloc at the next multiple of `align` words of the arena.
  int alloc_aligned(int arena, int words, int align) {
    L_.words[arena] = align_up(L_.words[arena], align);
    return alloc(arena, words);
  }
  /// Starts an update group (its gradients from word 0 of the grad arena, its parameters at
  /// the next multiple of kParamGroupAlign words of the param arena); the index of its first
  /// tensor.
  int group() {
    group_words_ = 0;
    group_first_ = L_.n_tensors;
    L_.words[kParamArena] = align_up(L_.words[kParamArena], kParamGroupAlign);
    return L_.n_tensors;
  }
  /// A parameter tensor of `words` in the current group; its param offset.
  int param(int words) {
    const int off = alloc(kParamArena, words);
    L_.tensors[L_.n_tensors++] = {off, words, group_words_, 0};
    group_words_ += words;
    L_.tensors[group_first_].group_words = group_words_;
    L_.words[kGradArena] = max_i(L_.words[kGradArena], group_words_);
    return off;
  }
  /// The gradient offset of the tensor laid out last.
  int grad_of_last() const { return L_.tensors[L_.n_tensors - 1].grad; }

  /// The embedding's parameters: its TTM cores (one group), then the position table and
  /// its LayerNorm (another).
  void embedding_params() {
    const int D = D_;
    L_.emb_t = group();
    L_.emb_cores = L_.words[kParamArena];
    for (int k = 1; k <= m_.emb.d; ++k) param(m_.emb.core_words(k));
    L_.emb_tensors = L_.n_tensors - L_.emb_t;
    L_.emb_gcores = L_.tensors[L_.emb_t].grad;
    L_.pos_t = group();
    L_.pos = param(m_.seq_len * D);
    L_.gpos = grad_of_last();
    L_.lne_g = param(D);
    L_.glne_g = grad_of_last();
    L_.lne_b = param(D);
    L_.glne_b = grad_of_last();
  }

  /// Linear layer i of encoder e: its update group, Z and saved merges (or its share of
  /// the recomputed merges' slots), its output; false when the kernels cannot run it.
  bool linear(int e, int i) {
    const LinearDims& l = m_.lin[e][i];
    const int K = K_;
    if (l.recompute && !(l.tt && l.btt)) return false;  // only BTT merges are recomputed
    if (l.tt) {
      if (l.t.d < 1 || l.t.e < 1 || l.t.d > kMaxTtFactors || l.t.e > kMaxTtFactors) return false;
      if (l.t.M() != l.in_dim || l.t.N() != l.out_dim) return false;
    }
    LinearSlots& s = L_.enc[e].lin[i];
    s.tensor = group();
    s.w = L_.words[kParamArena];
    s.gw = 0;
    if (l.tt) {
      for (int k = 1; k <= l.t.d + l.t.e; ++k) param(l.t.core_words(k));
    } else {
      param(l.in_dim * l.out_dim);
    }
    s.w_words = L_.words[kParamArena] - s.w;
    s.b = param(l.out_dim);
    s.gb = grad_of_last();
    s.tensors = L_.n_tensors - s.tensor;
    if (l.tt && l.btt) s.z = alloc(kSaved1Arena, K * l.t.r[l.t.d]);
    if (l.tt && l.btt && l.recompute) {
      // The shared merge slots (placed after the encoders): the largest recomputing layer's.
      for (int p = 0; p < 2; ++p) merge_words_[p] = max_i(merge_words_[p], linear_saved_words(l, K, p));
    } else {
      s.saved[0] = alloc(kSaved0Arena, linear_saved_words(l, K, 0));
      s.saved[1] = alloc(kSaved1Arena, linear_saved_words(l, K, 1));
    }
    if ((i == 3 || i == 5) && l.out_dim != D_) return false;  // a residual branch is D wide
    s.y = i == 3 || i == 5 ? L_.proj : alloc(i == 1 ? kKeyArena : kOutArena, K * l.out_dim);
    for (int p = 0; p < 2; ++p) lin_scratch_[p] = max_i(lin_scratch_[p], linear_scratch_words(l, K, p));
    return true;
  }

  /// Encoder e: its six linear layers, two LayerNorm groups and its activations (its output
  /// h2 too unless `h2_placed`); false when a layer cannot run.
  bool encoder(int e, bool h2_placed = false) {
    const int K = K_, D = D_, H = m_.heads;
    EncoderSlots& es = L_.enc[e];
    for (int i = 0; i < kLinearsPerEncoder; ++i) {
      if (!linear(e, i)) return false;
    }
    es.ln1_t = group();
    es.ln1_g = param(D);
    es.ln1_b = param(D);
    es.ln2_t = group();
    es.ln2_g = param(D);
    es.ln2_b = param(D);
    es.P = alloc(kSaved1Arena, H * K * K);
    es.ctx = alloc(kActArena, K * D);
    es.h1 = alloc(kActArena, K * D);
    es.xhat1 = alloc(kSaved1Arena, K * D);
    es.rstd1 = alloc(kSaved1Arena, K);
    // The GELU output; also ffn_in's partial dX when it accumulates by an add (in_dim words a
    // row: model_train_step).
    const LinearDims& fi = m_.lin[e][4];
    es.g = alloc(kActArena, K * (fi.dx_by_add ? max_i(m_.ffn_dim, fi.in_dim) : m_.ffn_dim));
    if (!h2_placed) es.h2 = alloc(kActArena, K * D);
    es.xhat2 = alloc(kSaved1Arena, K * D);
    es.rstd2 = alloc(kSaved1Arena, K);
    return true;
  }

  /// The encoders of a step that recomputes them (ModelDims::recompute_encoders): each
  /// encoder's output h2 in act, kept; then every encoder's other activations from one base
  /// in each activation arena (act, out, saved0, saved1), the region as large as the
  /// largest encoder's. False when a layer cannot run.
  bool recomputed_encoders() {
    static constexpr int kActivationArenas[] = {kActArena, kOutArena, kSaved0Arena, kSaved1Arena};
    for (int e = 0; e < m_.encoders; ++e) L_.enc[e].h2 = alloc(kActArena, K_ * D_);
    int base[kFloatArenas], end[kFloatArenas];
    for (int a = 0; a < kFloatArenas; ++a) base[a] = end[a] = L_.words[a];
    for (int e = 0; e < m_.encoders; ++e) {
      for (int a : kActivationArenas) L_.words[a] = base[a];
      if (!encoder(e, true)) return false;
      for (int a : kActivationArenas) end[a] = max_i(end[a], L_.words[a]);
    }
    for (int a : kActivationArenas) L_.words[a] = end[a];
    return true;
  }

  /// The merge slots every recomputing BTT layer shares (its merges live from its forward
  /// merges to its Y, and again from its backward's btt_remerge to its last chain step).
  void merge_slots() {
    L_.merge[0] = alloc(kSaved0Arena, merge_words_[0]);
    L_.merge[1] = alloc(kSaved1Arena, merge_words_[1]);
    for (int e = 0; e < m_.encoders; ++e) {
      for (int i = 0; i < kLinearsPerEncoder; ++i) {
        const LinearDims& l = m_.lin[e][i];
        if (!(l.tt && l.btt && l.recompute)) continue;
        L_.enc[e].lin[i].saved[0] = L_.merge[0];
        L_.enc[e].lin[i].saved[1] = L_.merge[1];
      }
    }
  }

  /// A head's update group: weight classes × D (one row per class), then bias.
  void head(LinearSlots& s, int classes) {
    s.tensor = group();
    s.w = param(D_ * classes);
    s.w_words = D_ * classes;
    s.gw = 0;
    s.b = param(classes);
    s.gb = grad_of_last();
    s.tensors = 2;
  }

  /// The activation gradients and the row statistics.
  void gradients() {
    const int K = K_, D = D_, H = m_.heads;
    L_.dA = alloc(kBwdAArena, K * D);
    L_.dP = alloc(kBwdAArena, H * K * K);
    // Gradients of disjoint lifetimes share a slot: the head dlogits (read by the heads'
    // backward, before any encoder's), dB (dead after LayerNorm 1's gradient), dctx (written
    // next, by o's backward; its last reads are attention's dV and dP products, each one
    // call over every head, before dK is written) and dk; dF (dead after ffn_in's backward)
    // with dq (written later, by attention's backward). Each contraction still writes a bwd
    // arena that none of its inputs is in.
    // The slot head's dlogits kLogitAlign-aligned after the intent head's, at the logits'
    // row pitch (dB is the arena's first slot: word 0).
    const int intents = align_up(m_.intents, kLogitAlign);
    const int logits_words = intents + K * logit_pitch(m_.slot_tags);
    L_.dB = alloc(kBwdBArena, max_i(K * D, logits_words));
    L_.dctx = L_.dB;
    L_.dk = L_.dB;
    L_.dlogit_i = L_.dB;
    L_.dlogit_s = L_.dB + intents;
    L_.dv = alloc(kBwdCArena, K * D);
    L_.dF = alloc(kBwdCArena, K * max_i(D, m_.ffn_dim));
    L_.dq = L_.dF;
  }

  /// The linear layers' chain scratch (BTT's L_d and R_{e-1}ᵀ in the forward pass, every
  /// layer's backward chain) from word 0 of each chain arena, and the TTM embedding's
  /// temporaries, which never live with them (its forward runs before every linear layer's,
  /// its backward after): core 1's copy from word 0 of chain0, the others from word 0 of
  /// out (scratch0) and act (scratch1), whose activations are not yet written in the forward
  /// pass and dead in the backward pass when the embedding runs.
  void chain_scratch() {
    for (int p = 0; p < 2; ++p) {
      const int arena = p == 0 ? kChain0Arena : kChain1Arena;
      L_.lin_scratch[p] = 0;
      L_.words[arena] = lin_scratch_[p];
      L_.ttm_scratch[p] = 0;
      const int host = p == 0 ? kOutArena : kActArena;
      L_.words[host] = max_i(L_.words[host], ttm_scratch_words(m_.emb, K_, p));
    }
    L_.ttm_copy = 0;
    L_.words[kChain0Arena] = max_i(L_.words[kChain0Arena], ttm_copy_words(m_.emb));
    // The partial of the intent head's dX and the TTM scatter's (Layout::part).
    L_.part = 0;
    L_.words[kChain0Arena] =
        max_i(L_.words[kChain0Arena], max_i(m_.intent_dx_by_add ? D_ : 0, ttm_part_words(m_.emb)));
    // The row statistics after chain1's scratch (no call binds both).
    L_.stat = alloc(kChain1Arena, 3 * max_i(m_.heads * K_, K_));
  }

 private:
  const ModelDims& m_;
  Layout& L_;
  const int K_, D_;
  int group_words_ = 0;
  int group_first_ = 0;  ///< the current update group's first tensor
  int lin_scratch_[2] = {0, 0};
  int merge_words_[2] = {0, 0};
};

/// As `L = Layout()`, rewriting of the tensor table only the entries a layout listed in it
/// (tensors[0, n_tensors)): the rest are as value-initialised in every Layout, since one
/// starts so and make_layout lists tensors from 0. The table of a 128-encoder host build
/// is 168 KB, of which a model lists a few hundred entries (the simulator lays out one
/// model per design it evaluates). Every member before the table is an int (or an array or
/// struct of ints) initialised to 0 above, and n_tensors is the last member.
void clear_layout(Layout& L) {
  static_assert(std::is_trivially_copyable<Layout>::value && std::is_standard_layout<Layout>::value,
                "clear_layout writes the members before the tensor table as bytes");
  static_assert(offsetof(Layout, n_tensors) == offsetof(Layout, tensors) + sizeof(L.tensors) &&
                    sizeof(Layout) == offsetof(Layout, n_tensors) + sizeof(L.n_tensors),
                "the tensor table and its count end the Layout");
  const int listed = L.n_tensors < 0 ? 0 : L.n_tensors > kMaxParamTensors ? kMaxParamTensors : L.n_tensors;
  for (int t = 0; t < listed; ++t) L.tensors[t] = ParamTensor();
  L.n_tensors = 0;
  std::memset(static_cast<void*>(&L), 0, offsetof(Layout, tensors));
}

}  // namespace

bool make_layout(const ModelDims& m, Layout* out) {
  if (m.encoders < 0 || m.encoders > kMaxEncoders || m.heads < 1 || m.d_model % m.heads != 0) {
    return false;
  }
  if (m.emb.d < 2 || m.emb.d > kMaxTtmFactors || m.emb.dim() != m.d_model) return false;
  Layout& L = *out;
  clear_layout(L);
  LayoutBuilder b(m, L);
  const int K = m.seq_len, D = m.d_model;
  int* W = L.words;
  b.embedding_params();
  // Slots shared by buffers whose lifetimes do not overlap (arrays by lifetime):
  //  - proj (out): the embedding's E and each encoder's o and ffn_out outputs; the add that
  //    follows each (the position embedding, the residual) accumulates into it in place,
  //    and the sum is read only by the LayerNorm after it, whose backward reads x̂ and 1/σ
  //    instead.
  L.proj = b.alloc(kOutArena, K * D);
  if (m.recompute_encoders) {
    if (!b.recomputed_encoders()) return false;
  } else {
    for (int e = 0; e < m.encoders; ++e) {
      if (!b.encoder(e)) return false;
    }
  }
  b.merge_slots();
  b.head(L.head_i, m.intents);
  b.head(L.head_s, m.slot_tags);
  L.wi = L.head_i.w;
  L.bi = L.head_i.b;
  L.ws = L.head_s.w;
  L.bs = L.head_s.b;
  L.param_words = W[kParamArena];

  L.emb_saved[0] = b.alloc(kSaved0Arena, ttm_saved_words(m.emb, K, 0));
  L.emb_saved[1] = b.alloc(kSaved1Arena, ttm_saved_words(m.emb, K, 1));
  L.E = L.proj;
  L.h0 = b.alloc(kActArena, K * D);
  L.xhat0 = b.alloc(kSaved1Arena, K * D);
  L.rstd0 = b.alloc(kSaved1Arena, K);
  L.logit_i = b.alloc_aligned(kOutArena, m.intents, kLogitAlign);
  L.logit_s = b.alloc_aligned(kOutArena, K * logit_pitch(m.slot_tags), kLogitAlign);
  b.gradients();
  b.chain_scratch();
  L.act_words = W[kActArena] + W[kOutArena] + W[kSaved0Arena] + W[kSaved1Arena];
  L.scratch_words = W[kBwdAArena] + W[kBwdBArena] + W[kBwdCArena] + W[kChain0Arena] + W[kChain1Arena];
  L.index_words = m.emb.d * K + K + 1;
  return true;
}

namespace {

/// The input of encoder e in act: the embedding's h0 or the previous encoder's h2.
int encoder_input(const Layout& L, int e) { return e == 0 ? L.h0 : L.enc[e - 1].h2; }

/// The forward pass of encoder e, from its input in act to its output h2 in act, saving
/// what its backward reads (the forward pass, and a recomputing step's recomputation).
void encoder_forward(const ModelDims& m, const Layout& L, const Arenas& a, int K, int e) {
#pragma HLS INLINE
  const int D = m.d_model;
  CRef P = a.param;
  Ref stat = a.chain1 + L.stat;
  const int h = encoder_input(L, e);
  const EncoderSlots& es = L.enc[e];
  const LinearSlots* ls = es.lin;
  // Q and V in out, K in act (kKeyArena): one call site each, so every argument is bound
  // to a fixed array.
  linear_forward(0, m.lin[e][0], ls[0], K, a, L, a.act + h, a.out + ls[0].y);
  linear_forward(1, m.lin[e][1], ls[1], K, a, L, a.act + h, a.act + ls[1].y);
  linear_forward(2, m.lin[e][2], ls[2], K, a, L, a.act + h, a.out + ls[2].y);
  attention_forward(a.index, K, D, m.heads, K, m.seq_len, a.out + ls[0].y, a.act + ls[1].y, a.out + ls[2].y,
                    a.saved1 + es.P, a.act + es.ctx, stat);
  linear_forward(3, m.lin[e][3], ls[3], K, a, L, a.act + es.ctx, a.out + ls[3].y);
  add_accumulate(a.act + h, a.out + ls[3].y, K, D, D, D);  // a1 = h + o, in place on o
  layernorm(a.out + ls[3].y, P + es.ln1_g, P + es.ln1_b, a.act + es.h1, a.saved1 + es.xhat1,
            a.saved1 + es.rstd1, K, D, stat);
  linear_forward(4, m.lin[e][4], ls[4], K, a, L, a.act + es.h1, a.out + ls[4].y);
  gelu(a.out + ls[4].y, a.act + es.g, K, m.ffn_dim);
  linear_forward(5, m.lin[e][5], ls[5], K, a, L, a.act + es.g, a.out + ls[5].y);
  add_accumulate(a.act + es.h1, a.out + ls[5].y, K, D, D, D);  // a2 = h1 + ffn_out, in place
  layernorm(a.out + ls[5].y, P + es.ln2_g, P + es.ln2_b, a.act + es.h2, a.saved1 + es.xhat2,
            a.saved1 + es.rstd2, K, D, stat);
}

}  // namespace

void model_forward(const ModelDims& m, const Layout& L, const Arenas& a, int K, const int* tokens) {
#pragma HLS INLINE
  const int D = m.d_model;
  CRef P = a.param;
  Ref stat = a.chain1 + L.stat;
  ttm_slice_offsets(m.emb, K, tokens, a.index);
  ttm_forward(a.index, m.emb, K, P + L.emb_cores, a.out + L.E, a.saved0 + L.emb_saved[0],
              a.saved1 + L.emb_saved[1], a.chain0 + L.ttm_copy, a.act + L.ttm_scratch[1]);
  add_accumulate(P + L.pos, a.out + L.E, K, D, D, D);  // x0 = E + position, in place on E
  layernorm(a.out + L.E, P + L.lne_g, P + L.lne_b, a.act + L.h0, a.saved1 + L.xhat0, a.saved1 + L.rstd0, K, D,
            stat);
  for (int e = 0; e < m.encoders; ++e) encoder_forward(m, L, a, K, e);
  const int h = m.encoders > 0 ? L.enc[m.encoders - 1].h2 : L.h0;
  dense_forward(a.index, D, m.intents, 1, a.act + h, P + L.wi, P + L.bi, a.out + L.logit_i, m.intents);
  dense_forward(a.index, D, m.slot_tags, K, a.act + h, P + L.ws, P + L.bs, a.out + L.logit_s,
                logit_pitch(m.slot_tags));
}

/// The gradient mode's read-back of one tensor's gradient (words from g) to out, each word
/// re-zeroed: not inlined, and limited to one instance in the top (ALLOCATION in top.cc), so
/// the top holds one copy of the loop whatever the number of update points (not a step the
/// simulator prices).
void ttsim_store_gradient(Ref g, float* out, int words) {
#pragma HLS INLINE off
grad_store:
  for (int w = 0; w < words; ++w) {
#pragma HLS PIPELINE II = 1
    out[w] = bank_read("g", g, w);
    bank_write("g", g, w, 0.0f);
  }
}

namespace {

/// The update of one update group, tensors [first, first + count) of L.tensors, whose
/// gradients are complete in the grad arena (model_train_step). SGD: one call over the
/// whole group, tensors[first].group_words words from tensors[first].offset (param) and
/// .grad (grad) — the group is contiguous in both arenas (make_layout) and SGD is
/// element-wise, so this is the per-tensor update exactly, from a kParamGroupAlign-aligned
/// start (sgd_lane_granule). Gradient mode: each tensor's gradients copied to grad_out
/// (Layout order) and re-zeroed.
void update_group(const Layout& L, const Arenas& a, int first, int count, float lr, bool grad_mode,
                  float* grad_out) {
#pragma HLS INLINE
  if (!grad_mode) {
    const ParamTensor& g = L.tensors[first];
#ifndef __SYNTHESIS__
    // C simulation: the group is [first, first + count), contiguous in both arenas.
    int words = 0;
    for (int i = first; i < first + count; ++i) {
      assert(L.tensors[i].offset == g.offset + words && L.tensors[i].grad == g.grad + words);
      words += L.tensors[i].words;
    }
    assert(words == g.group_words);
#endif
    sgd_update(a.param + g.offset, a.grad + g.grad, g.group_words, lr);
    return;
  }
  for (int i = first; i < first + count; ++i) {
    const ParamTensor& t = L.tensors[i];
    ttsim_store_gradient(a.grad + t.grad, grad_out + t.offset, t.words);
  }
}

void update_linear(const Layout& L, const Arenas& a, const LinearSlots& s, float lr, bool grad_mode,
                   float* grad_out) {
#pragma HLS INLINE
  update_group(L, a, s.tensor, s.tensors, lr, grad_mode, grad_out);
}

/// Greatest common divisor of a and b (>= 0; gcd_of(a, 0) = |a|). The kernel sources are
/// C++14 (run_hls.tcl), which has no std::gcd.
int gcd_of(int a, int b) {
  while (b != 0) {
    const int t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

}  // namespace

// The offsets below are the ones model_forward / encoder_forward / model_train_step pass to
// layernorm, layernorm_grad, gelu, gelu_grad, softmax, softmax_grad, loss and sgd_update
// (each call's view offset; the kernels add row · pitch + tile · LANES). A call added there
// must be added here: the C simulation of an emitted build asserts every aligned access
// (banked.h TTSIM_CHECK_ALIGNED).
int layernorm_lane_granule(const ModelDims& m, const Layout& L) {
  int g = m.d_model;
  for (int v : {L.E, L.lne_g, L.lne_b, L.h0, L.xhat0, L.dA, L.dB, L.glne_g, L.glne_b}) g = gcd_of(g, v);
  for (int e = 0; e < m.encoders; ++e) {
    const EncoderSlots& es = L.enc[e];
    for (int v : {es.lin[3].y, es.lin[5].y, es.ln1_g, es.ln1_b, es.ln2_g, es.ln2_b, es.h1, es.h2, es.xhat1,
                  es.xhat2, L.tensors[es.ln1_t].grad, L.tensors[es.ln1_t + 1].grad, L.tensors[es.ln2_t].grad,
                  L.tensors[es.ln2_t + 1].grad}) {
      g = gcd_of(g, v);
    }
  }
  return g;
}

int gelu_lane_granule(const ModelDims& m, const Layout& L) {
  int g = gcd_of(m.ffn_dim, L.dF);
  for (int e = 0; e < m.encoders; ++e) g = gcd_of(gcd_of(g, L.enc[e].lin[4].y), L.enc[e].g);
  return g;
}

int sgd_lane_granule(const Layout& L) {
  int g = 0;
  for (int t = 0; t < L.n_tensors; ++t) {
    // A group's first tensor: its update starts there in both arenas.
    if (L.tensors[t].group_words > 0) g = gcd_of(gcd_of(g, L.tensors[t].offset), L.tensors[t].grad);
  }
  return g;
}

int loss_lane_granule(const ModelDims& m, const Layout& L) {
  int g = logit_pitch(m.slot_tags);
  for (int v : {L.logit_i, L.logit_s, L.dlogit_i, L.dlogit_s}) g = gcd_of(g, v);
  return g;
}

int softmax_lane_granule(const ModelDims& m, const Layout& L) {
  int g = gcd_of(m.seq_len, L.dP);
  for (int e = 0; e < m.encoders; ++e) g = gcd_of(g, L.enc[e].P);
  return g;
}

StepLosses model_train_step(const ModelDims& m, const Layout& L, const Arenas& a, const StepSample& smp, float lr,
                            bool grad_mode, float* grad_out) {
#pragma HLS INLINE
  const int K = smp.K, D = m.d_model;
  model_forward(m, L, a, K, smp.tokens);
  CRef P = a.param;
  Ref G = a.grad;
  Ref stat = a.chain1 + L.stat;
  // Labels live after the TTM slice offsets in the int arena.
  const int labels = m.emb.d * K;
  for (int i = 0; i < K; ++i) a.index[labels + i] = smp.slot_tags[i];
  a.index[labels + K] = smp.intent;

  StepLosses loss;
  loss.intent = ttsim_hls::loss(a.out + L.logit_i, a.index, labels + K, a.bwd_b + L.dlogit_i, 1, m.intents,
                                m.intents, 1.0f, stat);
  loss.slot = ttsim_hls::loss(a.out + L.logit_s, a.index, labels, a.bwd_b + L.dlogit_s, K, m.slot_tags,
                              logit_pitch(m.slot_tags), smp.slot_scale, stat);

  CRef h = a.act + (m.encoders > 0 ? L.enc[m.encoders - 1].h2 : L.h0);
  Ref dA = a.bwd_a + L.dA;  // gradient of the encoder output / LayerNorm 1 input
  Ref dB = a.bwd_b + L.dB;  // gradient of LayerNorm 2 input / encoder input
  Ref dF = a.bwd_c + L.dF;
  dense_backward(a.index, D, m.slot_tags, K, h, a.bwd_b + L.dlogit_s, logit_pitch(m.slot_tags), P + L.ws, dA, false,
                 false, a.chain0 + L.part, G + L.head_s.gw, G + L.head_s.gb);
  update_linear(L, a, L.head_s, lr, grad_mode, grad_out);
  dense_backward(a.index, D, m.intents, 1, h, a.bwd_b + L.dlogit_i, m.intents, P + L.wi, dA, true,
                 m.intent_dx_by_add, a.chain0 + L.part, G + L.head_i.gw, G + L.head_i.gb);
  update_linear(L, a, L.head_i, lr, grad_mode, grad_out);
  for (int e = m.encoders - 1; e >= 0; --e) {
    const EncoderSlots& es = L.enc[e];
    const LinearSlots* ls = es.lin;
    CRef hin = a.act + encoder_input(L, e);
    // A recomputing step runs the encoder's forward again (its region of the activation
    // arenas holds the later encoder's values since the forward pass); the last encoder's
    // are still there. Its parameters are not updated yet: the values are the forward's.
    if (m.recompute_encoders && e < m.encoders - 1) encoder_forward(m, L, a, K, e);
    // dA = dh2 → dB = da2 (= dh1 residual part and dY of ffn_out).
    layernorm_grad(dA, a.saved1 + es.xhat2, a.saved1 + es.rstd2, P + es.ln2_g, dB, G + L.tensors[es.ln2_t].grad,
                   G + L.tensors[es.ln2_t + 1].grad, K, D, stat);
    update_group(L, a, es.ln2_t, 2, lr, grad_mode, grad_out);
    // The accumulating layers' partial dX (dx_by_add) in act words dead by then: the GELU
    // output for ffn_in (read last by ffn_out's backward), the attention context for q, k, v
    // (read last by o's).
    linear_backward(5, m.lin[e][5], ls[5], K, a, L, a.act + es.g, dB, dF, false, a.act + es.ctx);
    update_linear(L, a, ls[5], lr, grad_mode, grad_out);
    gelu_grad(a.out + ls[4].y, dF, K, m.ffn_dim);
    linear_backward(4, m.lin[e][4], ls[4], K, a, L, a.act + es.h1, dF, dB, true, a.act + es.g);  // dB = dh1
    update_linear(L, a, ls[4], lr, grad_mode, grad_out);
    layernorm_grad(dB, a.saved1 + es.xhat1, a.saved1 + es.rstd1, P + es.ln1_g, dA, G + L.tensors[es.ln1_t].grad,
                   G + L.tensors[es.ln1_t + 1].grad, K, D, stat);  // dA = da1
    update_group(L, a, es.ln1_t, 2, lr, grad_mode, grad_out);
    linear_backward(3, m.lin[e][3], ls[3], K, a, L, a.act + es.ctx, dA, a.bwd_b + L.dctx, false, a.act + es.g);
    update_linear(L, a, ls[3], lr, grad_mode, grad_out);
    attention_backward(a.index, K, D, m.heads, m.seq_len, a.out + ls[0].y, a.act + ls[1].y, a.out + ls[2].y,
                       a.saved1 + es.P, a.bwd_b + L.dctx, a.bwd_c + L.dq, a.bwd_b + L.dk, a.bwd_c + L.dv,
                       a.bwd_a + L.dP, stat);
    linear_backward(0, m.lin[e][0], ls[0], K, a, L, hin, a.bwd_c + L.dq, dA, true, a.act + es.ctx);
    update_linear(L, a, ls[0], lr, grad_mode, grad_out);
    linear_backward(1, m.lin[e][1], ls[1], K, a, L, hin, a.bwd_b + L.dk, dA, true, a.act + es.ctx);
    update_linear(L, a, ls[1], lr, grad_mode, grad_out);
    linear_backward(2, m.lin[e][2], ls[2], K, a, L, hin, a.bwd_c + L.dv, dA, true, a.act + es.ctx);  // dA = dh_in
    update_linear(L, a, ls[2], lr, grad_mode, grad_out);
  }
  layernorm_grad(dA, a.saved1 + L.xhat0, a.saved1 + L.rstd0, P + L.lne_g, dB, G + L.glne_g, G + L.glne_b, K, D,
                 stat);  // dB = dx0
  add_accumulate(dB, G + L.gpos, K, D, D, D);
  update_group(L, a, L.pos_t, 3, lr, grad_mode, grad_out);  // position, LayerNorm gain and bias
  ttm_backward(a.index, m.emb, K, P + L.emb_cores, a.saved0 + L.emb_saved[0], a.saved1 + L.emb_saved[1], dB,
               G + L.emb_gcores, a.out + L.ttm_scratch[0], a.act + L.ttm_scratch[1], a.chain0 + L.part);
  update_group(L, a, L.emb_t, L.emb_tensors, lr, grad_mode, grad_out);
  return loss;
}

}  // namespace ttsim_hls
