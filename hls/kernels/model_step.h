#pragma once
// One training step of the ATIS transformer for one sample, on the HLS kernels:
// forward, loss, backward, SGD update, with every parameter, gradient, saved
// activation and temporary in four flat on-chip arenas described by a Layout.
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

constexpr int kMaxEncoders = 12;
constexpr int kLinearsPerEncoder = 6;  ///< q, k, v, o, ffn_in, ffn_out
/// Parameter tensors: TTM cores, position, 2 LN, per encoder 6·(cores + bias) + 4 LN,
/// 4 head tensors.
constexpr int kMaxParamTensors =
    kMaxTtmFactors + 3 + kMaxEncoders * (kLinearsPerEncoder * (2 * kMaxTtFactors + 1) + 4) + 4;

/// One encoder linear layer: TT (BTT or sequential flow) or dense, always with a bias.
struct LinearDims {
  bool tt = true;
  bool btt = true;  ///< flow of a TT layer: true BTT, false sequential TT
  int in_dim = 0, out_dim = 0;
  TtDims t;  ///< valid when tt
};

/// Runtime shape of the whole model.
struct ModelDims {
  int encoders = 0, d_model = 0, heads = 0, ffn_dim = 0, seq_len = 0;
  int intents = 0, slot_tags = 0;
  TtmDims emb;  ///< vocab = emb.vocab()
  LinearDims lin[kMaxEncoders][kLinearsPerEncoder];
};

/// Word offsets of one linear layer in the arenas.
struct LinearSlots {
  int w = 0, w_words = 0;  ///< weights (TT cores contiguous, or dense M × N) in param/grad
  int b = 0;               ///< bias (N) in param/grad
  int saved = 0;           ///< saved intermediates in act (BTT: Z, L, R; TT: T_1..)
  int y = 0;               ///< output K × N in act
};

/// Offsets of one encoder (param/grad arena: ln*, act arena: everything else).
struct EncoderSlots {
  LinearSlots lin[kLinearsPerEncoder];
  int ln1_g = 0, ln1_b = 0, ln2_g = 0, ln2_b = 0;
  int P = 0, ctx = 0, a1 = 0, h1 = 0, xhat1 = 0, rstd1 = 0, g = 0, a2 = 0, h2 = 0, xhat2 = 0,
      rstd2 = 0;
};

/// One parameter tensor (its gradient has the same offset in the grad arena).
struct ParamTensor {
  int offset = 0, words = 0;
};

/// Arena layout for `seq_len` tokens (the largest K a step may use).
struct Layout {
  // Parameter (and gradient) arena.
  int emb_cores = 0, pos = 0, lne_g = 0, lne_b = 0;
  EncoderSlots enc[kMaxEncoders];
  int wi = 0, bi = 0, ws = 0, bs = 0;
  int param_words = 0;
  // Activation arena.
  int emb_saved = 0, E = 0, x0 = 0, h0 = 0, xhat0 = 0, rstd0 = 0, logit_i = 0, logit_s = 0;
  int act_words = 0;
  // Scratch arena.
  int dA = 0, dB = 0, dctx = 0, dq = 0, dk = 0, dv = 0, dP = 0, dF = 0, dlogit_i = 0,
      dlogit_s = 0, stat = 0, lin_scratch = 0, ttm_scratch = 0;
  int scratch_words = 0;
  int index_words = 0;  ///< int arena: TTM slice offsets, then labels
  ParamTensor tensors[kMaxParamTensors];
  int n_tensors = 0;
};

/// Computes the layout of `m`. Returns false (layout unusable) when a limit is broken:
/// encoders > kMaxEncoders, TT/TTM factors > 6, TTM d < 2, d_model % heads != 0.
bool make_layout(const ModelDims& m, Layout* out);

/// The arenas (sizes from the Layout).
struct Arenas {
  Ref param;    ///< param_words
  Ref grad;     ///< param_words; must be zero before the first step (SGD re-zeroes it)
  Ref act;      ///< act_words
  Ref scratch;  ///< scratch_words
  int* index;      ///< index_words
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

/// Forward only: logits in act[logit_i] (intents) and act[logit_s] (K × slot_tags).
void model_forward(const ModelDims& m, const Layout& L, const Arenas& a, int K, const int* tokens);
/// Forward, loss and backward: the gradients of this sample are added to the grad arena
/// (which SGD leaves at zero). Parameters unchanged.
StepLosses model_forward_backward(const ModelDims& m, const Layout& L, const Arenas& a,
                                  const StepSample& s);
/// SGD on every parameter tensor (one ttsim_sgd_update each); zeroes the gradients.
void model_sgd_update(const Layout& L, const Arenas& a, float lr);
/// forward_backward then sgd_update; returns the losses before the update.
StepLosses model_train_step(const ModelDims& m, const Layout& L, const Arenas& a,
                            const StepSample& s, float lr);

}  // namespace ttsim_hls
