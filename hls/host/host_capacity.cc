#include "hls/host/host_capacity.h"

#include <algorithm>
#include <limits>

#include "core/errors.h"

namespace ttsim {

namespace {

using I64 = std::int64_t;
constexpr I64 kSat = std::numeric_limits<I64>::max();
constexpr const char* kLinearNames[ttsim_hls::kLinearsPerEncoder] = {"q", "k", "v", "o",
                                                                     "ffn_in", "ffn_out"};

I64 mul(I64 a, I64 b) {
  I64 r;
  return __builtin_mul_overflow(a, b, &r) ? kSat : r;
}
I64 mul(I64 a, I64 b, I64 c) { return mul(mul(a, b), c); }
I64 add(I64 a, I64 b) {
  I64 r;
  return __builtin_add_overflow(a, b, &r) ? kSat : r;
}

std::string words(I64 w) { return w == kSat ? "more than 2^63" : std::to_string(w); }

/// Starts an update group in the parameter arena: its words rounded up to the next multiple
/// of ttsim_hls::kParamGroupAlign (make_layout's LayoutBuilder::group).
void start_group(I64* P) {
  const I64 a = ttsim_hls::kParamGroupAlign;
  *P = add(*P, (a - *P % a) % a);
}

// A layer's name for messages, spelt out only when one is thrown: `name`, or
// "enc<encoder>.<name>" for an encoder's layer.
struct Layer {
  const char* name;
  int encoder = -1;
  std::string str() const { return (encoder >= 0 ? "enc" + std::to_string(encoder) + "." : std::string()) + name; }
};

// Accumulates arena words, checking every array and every running total against the
// int range of the kernels' offsets.
class Counter {
 public:
  explicit Counter(const std::string& source) : source_(source) {}

  // Adds one array of `n` words to `arena` on behalf of `layer`.
  void array(I64* arena, const char* arena_name, const Layer& layer, I64 n) {
    if (n > kHlsMaxArenaWords) fail_array(arena_name, layer, n);
    *arena = add(*arena, n);
    if (*arena > kHlsMaxArenaWords) fail_arena(arena_name, layer, *arena);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void fail_array(const char* arena_name, const Layer& layer, I64 n) const {
    fail(layer.str() + " needs an array of " + words(n) + " words in the " + arena_name + " arena");
  }
  [[noreturn, gnu::cold, gnu::noinline]] void fail_arena(const char* arena_name, const Layer& layer,
                                                         I64 total) const {
    fail(layer.str() + " brings the " + arena_name + " arena to " + words(total) + " words");
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(source_ + ": the HLS host model cannot hold this model: " + what +
                     "; the kernels' int offsets allow at most " +
                     std::to_string(kHlsMaxArenaWords) + " words per arena");
  }
  const std::string& source() const { return source_; }

 private:
  const std::string& source_;  // outlives the Counter (check_hls_host_capacity's argument)
};

I64 mpre(const ttsim_hls::TtDims& t, int k) {
  I64 p = 1;
  for (int i = 0; i < k; ++i) p = mul(p, t.m[i]);
  return p;
}
I64 msuf(const ttsim_hls::TtDims& t, int k) {
  I64 p = 1;
  for (int i = k; i < t.d; ++i) p = mul(p, t.m[i]);
  return p;
}
I64 npre(const ttsim_hls::TtDims& t, int j) {
  I64 p = 1;
  for (int i = 0; i < j; ++i) p = mul(p, t.n[i]);
  return p;
}
I64 nsuf(const ttsim_hls::TtDims& t, int j) {
  I64 p = 1;
  for (int i = j; i < t.e; ++i) p = mul(p, t.n[i]);
  return p;
}
// tt_linear.cc tt_t_words: T_s of the sequential TT flow.
I64 tt_t_words(const ttsim_hls::TtDims& t, I64 K, int s) {
  return s <= t.d ? mul(K, msuf(t, s), t.r[s]) : mul(K, npre(t, s - t.d), t.r[s]);
}

/// Counts the token embedding (ttm_embedding.cc): its cores r_{k-1}·v_k·e_k·r_k (their words
/// into `core_words`: one update group), the position table and the LayerNorm (another)
/// into the parameter arena; its saved
/// E_k = K·(e_1···e_k)·r_k for k = 2..d-1 into `saved`, the largest of each parity into
/// scratch[k mod 2] (dE_k lives in scratch[k mod 2]); when the last step runs transposed
/// (ttm_last_transposed) its temporaries (ttm_scratch_words): E_{d-1} and Eᵀ = K·D in
/// scratch1, dEᵀ in scratch[(d−1) mod 2], dE_{d-1}ᵀ in scratch[d mod 2]. (Scratch0 and
/// scratch1 are words of out and act; core 1's copy, in chain0, is the caller's.)
void count_embedding(Counter& c, const ttsim_hls::TtmDims& emb, I64 K, I64 D, I64* P, I64* saved, I64 scratch[2],
                     I64* core_words) {
  const Layer emb_name{"embedding.token"};
  start_group(P);
  const I64 p0 = *P;
  for (int k = 1; k <= emb.d; ++k) {
    c.array(P, "parameter", emb_name, mul(mul(emb.r[k - 1], emb.v[k - 1]), emb.e[k - 1], emb.r[k]));
  }
  *core_words = *P - p0;
  start_group(P);
  c.array(P, "parameter", {"embedding.position"}, mul(K, D));
  c.array(P, "parameter", {"embedding.ln"}, mul(2, D));
  I64 epre = emb.e[0];
  for (int k = 2; k < emb.d; ++k) {
    epre = mul(epre, emb.e[k - 1]);
    const I64 ek = mul(K, epre, emb.r[k]);
    c.array(saved, "activation", emb_name, ek);
    scratch[k & 1] = std::max(scratch[k & 1], ek);  // dE_k in chain[k mod 2]
    if (k == emb.d - 1 && ttsim_hls::ttm_last_transposed(emb)) {
      const I64 dim = mul(K, D);
      scratch[1] = std::max({scratch[1], ek, dim});
      scratch[k & 1] = std::max(scratch[k & 1], dim);
      scratch[(k + 1) & 1] = std::max(scratch[(k + 1) & 1], ek);
    }
  }
}

/// The BTT saved words of TT layer `t`: Z (K·r_d) into `saved`, the merges into
/// merges[parity] (Σ_{k=2..d-1} Mpre(k)·r_k, M·r_d (L_dᵀ), Σ_{j=1..e-1} r_{d+j-1}·Nsuf(j-1),
/// by the saved arena each is in); its temporaries into the two chains
/// (dZ in chain0, dL_dᵀ in chain1, dL_k (k = 2..d) in chain[(d−k) mod 2], dR_j in
/// chain[(j−1) mod 2]; the transposed right end's temporaries, each at least as many words).
void count_btt_saved(Counter& c, const ttsim_hls::TtDims& t, const Layer& name, I64 K, I64* saved, I64 merges[2],
                     I64 scratch[2]) {
  const I64 z = mul(K, t.r[t.d]);
  c.array(saved, "activation", name, z);
  c.array(&scratch[0], "scratch", name, z);
  for (int k = 2; k < t.d; ++k) c.array(&merges[(t.d - k) & 1], "activation", name, mul(mpre(t, k), t.r[k]));
  const I64 lt = mul(mpre(t, t.d), t.r[t.d]);
  c.array(&merges[0], "activation", name, lt);
  c.array(&scratch[1], "scratch", name, lt);
  for (int k = 2; k <= t.d; ++k) c.array(&scratch[(t.d - k) & 1], "scratch", name, mul(mpre(t, k), t.r[k]));
  for (int j = 1; j < t.e; ++j) {
    const I64 w = mul(t.r[t.d + j - 1], nsuf(t, j - 1));
    c.array(&merges[(j - 1) & 1], "activation", name, w);
    c.array(&scratch[(j - 1) & 1], "scratch", name, w);
  }
  if (ttsim_hls::btt_right_end_transposed(t)) {  // the transposed right end (tt_linear.cc BttScratch): R_{e-1}ᵀ after L_d, dR_{e-1}ᵀ, G_{d+e-1}ᵀ
    const I64 w = mul(t.r[t.d + t.e - 2], nsuf(t, t.e - 2));
    const I64 core = mul(t.r[t.d + t.e - 2], t.n[t.e - 2], t.r[t.d + t.e - 1]);
    scratch[1] = std::max(scratch[1], add(lt, w));
    for (int q = 0; q < 2; ++q) scratch[q] = std::max({scratch[q], w, core});
  }
}

/// The sequential TT flow's saved Σ_{s<d+e} T_s into `saved`, and max T_s per chain.
void count_tt_saved(Counter& c, const ttsim_hls::TtDims& t, const Layer& name, I64 K, I64* saved, I64 scratch[2]) {
  I64 mx = 0;
  for (int s = 1; s < t.d + t.e; ++s) {
    const I64 ts = tt_t_words(t, K, s);
    c.array(saved, "activation", name, ts);
    mx = std::max(mx, ts);
  }
  scratch[0] = scratch[1] = mx;
}

/// Counts one encoder linear layer (tt_linear.cc): its weight (dense or TT cores) and bias
/// into the parameter arena, its saved block (the sum of its parts, split over
/// saved0/saved1) and output into the activation arena; each chain arena's scratch is
/// sized by the largest layer's part, kept in `lin_scratch`.
void count_linear(Counter& c, const ttsim_hls::LinearDims& l, const Layer& name, I64 K, I64* P, I64* A,
                  I64 lin_scratch[2], I64 merge_slots[2], I64* grad, bool shared_output) {
  start_group(P);
  const I64 p0 = *P;
  if (!l.tt) {
    c.array(P, "parameter", name, mul(l.in_dim, l.out_dim));
  } else {
    const ttsim_hls::TtDims& t = l.t;
    for (int k = 1; k <= t.d + t.e; ++k) {
      c.array(P, "parameter", name, mul(t.r[k - 1], t.mode(k), t.r[k]));
    }
    I64 saved = 0, merges[2] = {0, 0}, scratch[2] = {0, 0};
    if (l.btt) {
      count_btt_saved(c, t, name, K, &saved, merges, scratch);
      if (l.recompute) {
        // The merge slots every recomputing layer shares: the largest layer's (counted once).
        for (int q = 0; q < 2; ++q) merge_slots[q] = std::max(merge_slots[q], merges[q]);
      } else {
        saved = add(saved, add(merges[0], merges[1]));
      }
    } else {
      count_tt_saved(c, t, name, K, &saved, scratch);
    }
    c.array(A, "activation", name, saved);
    for (int q = 0; q < 2; ++q) lin_scratch[q] = std::max(lin_scratch[q], scratch[q]);
  }
  c.array(P, "parameter", name, l.out_dim);
  *grad = std::max(*grad, *P - p0);  // the layer's update group
  // o and ffn_out write the out arena's shared proj slot (counted once, check_hls_host_capacity).
  if (!shared_output) c.array(A, "activation", name, mul(K, l.out_dim));
}

/// Counts encoder `e`: its linear layers, LayerNorms, attention scores, residual and FFN
/// activations.
void count_encoder(Counter& c, const ttsim_hls::ModelDims& m, int e, I64* P, I64* A, I64 lin_scratch[2],
                   I64 merge_slots[2], I64* grad) {
  const I64 K = m.seq_len, D = m.d_model, F = m.ffn_dim, H = m.heads;
  for (int i = 0; i < ttsim_hls::kLinearsPerEncoder; ++i) {
    count_linear(c, m.lin[e][i], Layer{kLinearNames[i], e}, K, P, A, lin_scratch, merge_slots, grad,
                 i == 3 || i == 5);
  }
  *grad = std::max(*grad, mul(2, D));  // a LayerNorm's update group
  for (int ln = 0; ln < 2; ++ln) {
    start_group(P);
    c.array(P, "parameter", {"ln", e}, mul(2, D));
  }
  c.array(A, "activation", {"attention", e}, mul(H, K, K));
  // ctx, h1, h2, x̂1, x̂2 and the two 1/σ (the residual sums a1, a2 accumulate in place into
  // the o and ffn_out outputs, in the proj slot).
  c.array(A, "activation", {"residual", e}, add(mul(5, mul(K, D)), mul(2, K)));
  // The GELU output, at least in_dim wide when ffn_in's partial dX shares it (make_layout).
  const ttsim_hls::LinearDims& fi = m.lin[e][4];
  c.array(A, "activation", {"ffn", e}, mul(K, fi.dx_by_add ? std::max<I64>(F, fi.in_dim) : F));
}

/// Throws when the host arrays of `w` exceed kHlsMaxHostWords in all.
void check_host_total(const HlsArenaWords& w, const std::string& source) {
  if (w.host_total() > kHlsMaxHostWords) {
    throw InputError(source + ": the HLS host model cannot hold this model: it needs " +
                     words(w.host_total()) + " words (2·" + std::to_string(w.param) +
                     " parameter and gradient read-back, " + std::to_string(w.grad) + " gradient arena, " +
                     std::to_string(w.act) + " activation, " +
                     std::to_string(w.scratch) + " scratch); at most " +
                     std::to_string(kHlsMaxHostWords) + " words (8 GiB) in total");
  }
}

}  // namespace

I64 HlsArenaWords::host_total() const { return add(add(add(add(mul(2, param), grad), act), scratch), index); }

HlsArenaWords check_hls_host_capacity(const ttsim_hls::ModelDims& m, const std::string& source) {
  Counter c(source);
  HlsArenaWords w;
  const I64 K = m.seq_len, D = m.d_model, F = m.ffn_dim, H = m.heads;
  I64* P = &w.param;
  I64* A = &w.act;
  I64* S = &w.scratch;
  const ttsim_hls::TtmDims& emb = m.emb;
  const Layer emb_name{"embedding.token"};
  I64 emb_saved = 0, emb_scratch[2] = {0, 0}, emb_core_words = 0;
  count_embedding(c, emb, K, D, P, &emb_saved, emb_scratch, &emb_core_words);
  // Linear layers: the saved blocks in the activation arena; the two chain arenas' scratch
  // is the largest layer's part.
  I64 lin_scratch[2] = {0, 0}, merge_slots[2] = {0, 0};
  // The grad arena: the largest update group (make_layout) — the TTM cores, the position
  // table with the embedding LayerNorm, a linear layer, a LayerNorm, a head.
  const I64 pos_ln = add(mul(K, D), mul(2, D));  // counted by count_embedding after the cores
  w.grad = std::max(emb_core_words, pos_ln);
  for (int e = 0; e < m.encoders; ++e) count_encoder(c, m, e, P, A, lin_scratch, merge_slots, &w.grad);
  c.array(A, "activation", {"recomputed merges"}, add(merge_slots[0], merge_slots[1]));
  start_group(P);
  c.array(P, "parameter", {"intent_head"}, mul(add(D, 1), m.intents));
  start_group(P);
  c.array(P, "parameter", {"slot_head"}, mul(add(D, 1), m.slot_tags));
  w.grad = std::max({w.grad, mul(add(D, 1), m.intents), mul(add(D, 1), m.slot_tags)});
  c.array(A, "activation", emb_name, emb_saved);
  // h0, x̂0, 1/σ0, and the shared slot proj (E, every o and ffn_out output, and in place
  // the LayerNorm inputs x0, a1, a2).
  c.array(A, "activation", {"embedding"}, add(mul(3, mul(K, D)), K));
  // The heads' logits, the slot head's rows at logit_pitch, and the most padding their two
  // kLogitAlign-aligned starts can take (make_layout aligns them where the out arena is).
  const I64 la = ttsim_hls::kLogitAlign, pitch = ttsim_hls::logit_pitch(m.slot_tags);
  const I64 intents_padded = ttsim_hls::align_up(m.intents, ttsim_hls::kLogitAlign);
  c.array(A, "activation", {"heads"}, add(add(intents_padded, mul(K, pitch)), 2 * (la - 1)));
  // Scratch arenas (make_layout): dA, dP; the head dlogits | dB | dctx | dk (one slot); dv,
  // dF|dq; statistics; the chain scratch.
  c.array(S, "scratch", {"encoder gradients"},
          add(add(mul(2, mul(K, D)), mul(H, K, K)), mul(K, std::max(D, F))));
  c.array(S, "scratch", {"the head gradients, dB, dctx and dk"},
          std::max(mul(K, D), add(intents_padded, mul(K, pitch))));
  c.array(S, "scratch", {"statistics"}, mul(3, std::max(mul(H, K), K)));
  // The chain arenas hold the linear layers' scratch, chain0 at least the embedding's copy of
  // core 1; the embedding's other temporaries use words of out and act (make_layout
  // chain_scratch), counted here apart from those arenas' activations: an upper bound.
  const I64 core1 = mul(mul(emb.r[0], emb.v[0]), emb.e[0], emb.r[1]);
  c.array(S, "scratch", {"chains"},
          add(std::max({lin_scratch[0], core1, static_cast<I64>(ttsim_hls::ttm_part_words(emb)),
                        m.intent_dx_by_add ? D : I64{0}}),
              lin_scratch[1]));
  c.array(A, "activation", emb_name, add(emb_scratch[0], emb_scratch[1]));
  c.array(&w.index, "index", {"labels"}, add(mul(emb.d, K), add(K, 1)));
  check_host_total(w, source);
  return w;
}

}  // namespace ttsim
