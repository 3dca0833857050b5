#include "hls/kernels/model_step.h"

#include "hls/kernels/attention.h"
#include "hls/kernels/modules.h"

namespace ttsim_hls {

namespace {

int max_i(int a, int b) { return a > b ? a : b; }

int linear_saved_words(const LinearDims& l, int K) {
  if (!l.tt) return 0;
  return l.btt ? btt_saved_words(l.t, K) : tt_saved_words(l.t, K);
}
int linear_scratch_words(const LinearDims& l, int K) {
  if (!l.tt) return 0;
  return l.btt ? btt_scratch_words(l.t, K) : tt_scratch_words(l.t, K);
}

void linear_forward(const LinearDims& l, const LinearSlots& s, int K, const Arenas& a,
                    CRef X) {
#pragma HLS INLINE
  Ref Y = a.act + s.y;
  CRef W = a.param + s.w;
  CRef b = a.param + s.b;
  if (!l.tt) {
    dense_forward(a.index, l.in_dim, l.out_dim, K, X, W, b, Y);
  } else if (l.btt) {
    btt_forward(a.index, l.t, K, X, W, b, Y, a.act + s.saved);
  } else {
    tt_forward(a.index, l.t, K, X, W, b, Y, a.act + s.saved);
  }
}

void linear_backward(const LinearDims& l, const LinearSlots& s, int K, const Arenas& a,
                     const Layout& L, CRef X, CRef dY, Ref dX, bool acc) {
#pragma HLS INLINE
  CRef W = a.param + s.w;
  Ref dW = a.grad + s.w;
  Ref db = a.grad + s.b;
  if (!l.tt) {
    dense_backward(a.index, l.in_dim, l.out_dim, K, X, dY, W, dX, acc, dW, db);
  } else if (l.btt) {
    btt_backward(a.index, l.t, K, X, dY, W, a.act + s.saved, dX, acc, dW, db, a.scratch + L.lin_scratch);
  } else {
    tt_backward(a.index, l.t, K, X, dY, W, a.act + s.saved, dX, acc, dW, db, a.scratch + L.lin_scratch);
  }
}

}  // namespace

bool make_layout(const ModelDims& m, Layout* out) {
  if (m.encoders < 0 || m.encoders > kMaxEncoders || m.heads < 1 || m.d_model % m.heads != 0) {
    return false;
  }
  if (m.emb.d < 2 || m.emb.d > kMaxTtmFactors || m.emb.dim() != m.d_model) return false;
  Layout& L = *out;
  L = Layout();
  const int K = m.seq_len, D = m.d_model, F = m.ffn_dim, H = m.heads;
  int p = 0, act = 0;
  auto param = [&](int words) {
    const int off = p;
    p += words;
    L.tensors[L.n_tensors++] = {off, words};
    return off;
  };
  auto alloc_act = [&](int words) {
    const int off = act;
    act += words;
    return off;
  };
  L.emb_cores = p;
  for (int k = 1; k <= m.emb.d; ++k) param(m.emb.core_words(k));
  L.pos = param(m.seq_len * D);
  L.lne_g = param(D);
  L.lne_b = param(D);
  int lin_scratch = 0;
  for (int e = 0; e < m.encoders; ++e) {
    EncoderSlots& es = L.enc[e];
    for (int i = 0; i < kLinearsPerEncoder; ++i) {
      const LinearDims& l = m.lin[e][i];
      if (l.tt) {
        if (l.t.d < 1 || l.t.e < 1 || l.t.d > kMaxTtFactors || l.t.e > kMaxTtFactors) return false;
        if (l.t.M() != l.in_dim || l.t.N() != l.out_dim) return false;
      }
      LinearSlots& s = es.lin[i];
      s.w = p;
      if (l.tt) {
        for (int k = 1; k <= l.t.d + l.t.e; ++k) param(l.t.core_words(k));
      } else {
        param(l.in_dim * l.out_dim);
      }
      s.w_words = p - s.w;
      s.b = param(l.out_dim);
      s.saved = alloc_act(linear_saved_words(l, K));
      s.y = alloc_act(K * l.out_dim);
      lin_scratch = max_i(lin_scratch, linear_scratch_words(l, K));
    }
    es.ln1_g = param(D);
    es.ln1_b = param(D);
    es.ln2_g = param(D);
    es.ln2_b = param(D);
    es.P = alloc_act(H * K * K);
    es.ctx = alloc_act(K * D);
    es.a1 = alloc_act(K * D);
    es.h1 = alloc_act(K * D);
    es.xhat1 = alloc_act(K * D);
    es.rstd1 = alloc_act(K);
    es.g = alloc_act(K * F);
    es.a2 = alloc_act(K * D);
    es.h2 = alloc_act(K * D);
    es.xhat2 = alloc_act(K * D);
    es.rstd2 = alloc_act(K);
  }
  L.wi = param(D * m.intents);
  L.bi = param(m.intents);
  L.ws = param(D * m.slot_tags);
  L.bs = param(m.slot_tags);
  L.param_words = p;

  L.emb_saved = alloc_act(ttm_saved_words(m.emb, K));
  L.E = alloc_act(K * D);
  L.x0 = alloc_act(K * D);
  L.h0 = alloc_act(K * D);
  L.xhat0 = alloc_act(K * D);
  L.rstd0 = alloc_act(K);
  L.logit_i = alloc_act(m.intents);
  L.logit_s = alloc_act(K * m.slot_tags);
  L.act_words = act;

  int s = 0;
  auto alloc_s = [&](int words) {
    const int off = s;
    s += words;
    return off;
  };
  const int wide = max_i(D, F);
  L.dA = alloc_s(K * D);
  L.dB = alloc_s(K * D);
  L.dctx = alloc_s(K * D);
  L.dq = alloc_s(K * D);
  L.dk = alloc_s(K * D);
  L.dv = alloc_s(K * D);
  L.dP = alloc_s(H * K * K);
  L.dF = alloc_s(K * wide);
  L.dlogit_i = alloc_s(m.intents);
  L.dlogit_s = alloc_s(K * m.slot_tags);
  L.stat = alloc_s(3 * max_i(H * K, K));
  L.lin_scratch = alloc_s(lin_scratch);
  L.ttm_scratch = alloc_s(ttm_scratch_words(m.emb, K));
  L.scratch_words = s;
  L.index_words = m.emb.d * K + K + 1;
  return true;
}

void model_forward(const ModelDims& m, const Layout& L, const Arenas& a, int K, const int* tokens) {
#pragma HLS INLINE
  const int D = m.d_model;
  Ref act = a.act;
  CRef P = a.param;
  Ref stat = a.scratch + L.stat;
  ttm_slice_offsets(m.emb, K, tokens, a.index);
  ttm_forward(a.index, m.emb, K, P + L.emb_cores, act + L.E, act + L.emb_saved);
  add(act + L.E, P + L.pos, act + L.x0, K, D, D, D, D);
  layernorm(act + L.x0, P + L.lne_g, P + L.lne_b, act + L.h0, act + L.xhat0, act + L.rstd0,
                  K, D, stat);
  CRef h = act + L.h0;
  for (int e = 0; e < m.encoders; ++e) {
    const EncoderSlots& es = L.enc[e];
    const LinearSlots* ls = es.lin;
    for (int i = 0; i < 3; ++i) linear_forward(m.lin[e][i], ls[i], K, a, h);
    attention_forward(a.index, K, D, m.heads, K, act + ls[0].y, act + ls[1].y, act + ls[2].y, act + es.P,
                      act + es.ctx, stat);
    linear_forward(m.lin[e][3], ls[3], K, a, act + es.ctx);
    add(h, act + ls[3].y, act + es.a1, K, D, D, D, D);
    layernorm(act + es.a1, P + es.ln1_g, P + es.ln1_b, act + es.h1, act + es.xhat1,
                    act + es.rstd1, K, D, stat);
    linear_forward(m.lin[e][4], ls[4], K, a, act + es.h1);
    gelu(act + ls[4].y, act + es.g, K, m.ffn_dim);
    linear_forward(m.lin[e][5], ls[5], K, a, act + es.g);
    add(act + es.h1, act + ls[5].y, act + es.a2, K, D, D, D, D);
    layernorm(act + es.a2, P + es.ln2_g, P + es.ln2_b, act + es.h2, act + es.xhat2,
                    act + es.rstd2, K, D, stat);
    h = act + es.h2;
  }
  dense_forward(a.index, D, m.intents, 1, h, P + L.wi, P + L.bi, act + L.logit_i);
  dense_forward(a.index, D, m.slot_tags, K, h, P + L.ws, P + L.bs, act + L.logit_s);
}

StepLosses model_forward_backward(const ModelDims& m, const Layout& L, const Arenas& a,
                                  const StepSample& smp) {
#pragma HLS INLINE
  const int K = smp.K, D = m.d_model;
  model_forward(m, L, a, K, smp.tokens);
  Ref act = a.act;
  Ref sc = a.scratch;
  CRef P = a.param;
  Ref G = a.grad;
  Ref stat = sc + L.stat;
  // Labels live after the TTM slice offsets in the int arena.
  const int labels = m.emb.d * K;
  for (int i = 0; i < K; ++i) a.index[labels + i] = smp.slot_tags[i];
  a.index[labels + K] = smp.intent;

  StepLosses loss;
  loss.intent = ttsim_hls::loss(act + L.logit_i, a.index, labels + K, sc + L.dlogit_i, 1, m.intents, 1.0f, stat);
  loss.slot = ttsim_hls::loss(act + L.logit_s, a.index, labels, sc + L.dlogit_s, K, m.slot_tags, smp.slot_scale,
                              stat);

  CRef h = m.encoders > 0 ? act + L.enc[m.encoders - 1].h2 : act + L.h0;
  Ref dA = sc + L.dA;
  Ref dB = sc + L.dB;
  dense_backward(a.index, D, m.slot_tags, K, h, sc + L.dlogit_s, P + L.ws, dA, false, G + L.ws, G + L.bs);
  dense_backward(a.index, D, m.intents, 1, h, sc + L.dlogit_i, P + L.wi, dA, true, G + L.wi, G + L.bi);
  for (int e = m.encoders - 1; e >= 0; --e) {
    const EncoderSlots& es = L.enc[e];
    const LinearSlots* ls = es.lin;
    CRef hin = e == 0 ? act + L.h0 : act + L.enc[e - 1].h2;
    // dA = dh2 → dB = da2 (= dh1 residual part and dY of ffn_out).
    layernorm_grad(dA, act + es.xhat2, act + es.rstd2, P + es.ln2_g, dB, G + es.ln2_g,
                         G + es.ln2_b, K, D, stat);
    Ref dF = sc + L.dF;
    linear_backward(m.lin[e][5], ls[5], K, a, L, act + es.g, dB, dF, false);
    gelu_grad(act + ls[4].y, dF, dF, K, m.ffn_dim);
    linear_backward(m.lin[e][4], ls[4], K, a, L, act + es.h1, dF, dB, true);  // dB = dh1
    layernorm_grad(dB, act + es.xhat1, act + es.rstd1, P + es.ln1_g, dA, G + es.ln1_g,
                         G + es.ln1_b, K, D, stat);  // dA = da1
    linear_backward(m.lin[e][3], ls[3], K, a, L, act + es.ctx, dA, sc + L.dctx, false);
    attention_backward(a.index, K, D, m.heads, act + ls[0].y, act + ls[1].y, act + ls[2].y, act + es.P,
                       sc + L.dctx, sc + L.dq, sc + L.dk, sc + L.dv, sc + L.dP, stat);
    linear_backward(m.lin[e][0], ls[0], K, a, L, hin, sc + L.dq, dA, true);
    linear_backward(m.lin[e][1], ls[1], K, a, L, hin, sc + L.dk, dA, true);
    linear_backward(m.lin[e][2], ls[2], K, a, L, hin, sc + L.dv, dA, true);  // dA = dh_in
  }
  layernorm_grad(dA, act + L.xhat0, act + L.rstd0, P + L.lne_g, dB, G + L.lne_g,
                       G + L.lne_b, K, D, stat);  // dB = dx0
  add_accumulate(dB, G + L.pos, K, D, D, D);
  ttm_backward(a.index, m.emb, K, P + L.emb_cores, act + L.emb_saved, dB, G + L.emb_cores,
               sc + L.ttm_scratch);
  return loss;
}

void model_sgd_update(const Layout& L, const Arenas& a, float lr) {
#pragma HLS INLINE
  for (int i = 0; i < L.n_tensors; ++i) {
    const ParamTensor& t = L.tensors[i];
    sgd_update(a.param + t.offset, a.grad + t.offset, t.words, lr);
  }
}

StepLosses model_train_step(const ModelDims& m, const Layout& L, const Arenas& a,
                            const StepSample& s, float lr) {
#pragma HLS INLINE
  const StepLosses loss = model_forward_backward(m, L, a, s);
  model_sgd_update(L, a, lr);
  return loss;
}

}  // namespace ttsim_hls
