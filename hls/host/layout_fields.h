#pragma once
// Every int of a ttsim_hls::Layout (hls/kernels/model_step.h) with its C++ access path, for
// the host tools: `ttsim emit` renders the design's layout as compile-time constants
// (hls/kernels/design_layout.h) from this walk, and tests/hls/design_config_test checks that
// the walk reaches every field (a field added to Layout and not here fails it).

#include <string>

#include "hls/kernels/model_step.h"

namespace ttsim_hls {

namespace detail {
template <class Slots, class F>
void for_each_linear_field(const std::string& p, Slots& s, F& f) {
  f(p + "w", s.w);
  f(p + "w_words", s.w_words);
  f(p + "b", s.b);
  f(p + "gw", s.gw);
  f(p + "gb", s.gb);
  f(p + "tensor", s.tensor);
  f(p + "tensors", s.tensors);
  f(p + "saved[0]", s.saved[0]);
  f(p + "saved[1]", s.saved[1]);
  f(p + "z", s.z);
  f(p + "y", s.y);
}
}  // namespace detail

/// Calls f(path, field) for every int of `L` (Layout or const Layout), path as C++ member
/// access from the layout, e.g. "enc[1].lin[4].saved[0]" or "tensors[17].grad"; every
/// encoder slot up to kMaxEncoders and every tensor up to kMaxParamTensors, in declaration
/// order.
template <class LayoutT, class F>
void for_each_layout_field(LayoutT& L, F&& f) {
  auto idx = [](const char* name, int i) { return std::string(name) + "[" + std::to_string(i) + "]"; };
  f("emb_cores", L.emb_cores);
  f("pos", L.pos);
  f("lne_g", L.lne_g);
  f("lne_b", L.lne_b);
  f("emb_gcores", L.emb_gcores);
  f("gpos", L.gpos);
  f("glne_g", L.glne_g);
  f("glne_b", L.glne_b);
  f("emb_t", L.emb_t);
  f("emb_tensors", L.emb_tensors);
  f("pos_t", L.pos_t);
  for (int e = 0; e < kMaxEncoders; ++e) {
    auto& es = L.enc[e];
    const std::string p = idx("enc", e) + ".";
    for (int i = 0; i < kLinearsPerEncoder; ++i) detail::for_each_linear_field(p + idx("lin", i) + ".", es.lin[i], f);
    f(p + "ln1_g", es.ln1_g);
    f(p + "ln1_b", es.ln1_b);
    f(p + "ln2_g", es.ln2_g);
    f(p + "ln2_b", es.ln2_b);
    f(p + "ln1_t", es.ln1_t);
    f(p + "ln2_t", es.ln2_t);
    f(p + "P", es.P);
    f(p + "ctx", es.ctx);
    f(p + "h1", es.h1);
    f(p + "xhat1", es.xhat1);
    f(p + "rstd1", es.rstd1);
    f(p + "g", es.g);
    f(p + "h2", es.h2);
    f(p + "xhat2", es.xhat2);
    f(p + "rstd2", es.rstd2);
  }
  f("wi", L.wi);
  f("bi", L.bi);
  f("ws", L.ws);
  f("bs", L.bs);
  detail::for_each_linear_field("head_i.", L.head_i, f);
  detail::for_each_linear_field("head_s.", L.head_s, f);
  for (int i = 0; i < 2; ++i) f(idx("emb_saved", i), L.emb_saved[i]);
  f("E", L.E);
  f("h0", L.h0);
  f("xhat0", L.xhat0);
  f("rstd0", L.rstd0);
  f("logit_i", L.logit_i);
  f("logit_s", L.logit_s);
  for (int i = 0; i < 2; ++i) f(idx("merge", i), L.merge[i]);
  f("proj", L.proj);
  f("dA", L.dA);
  f("dB", L.dB);
  f("dctx", L.dctx);
  f("dq", L.dq);
  f("dk", L.dk);
  f("dv", L.dv);
  f("dP", L.dP);
  f("dF", L.dF);
  f("dlogit_i", L.dlogit_i);
  f("dlogit_s", L.dlogit_s);
  f("stat", L.stat);
  for (int i = 0; i < 2; ++i) f(idx("lin_scratch", i), L.lin_scratch[i]);
  for (int i = 0; i < 2; ++i) f(idx("ttm_scratch", i), L.ttm_scratch[i]);
  f("ttm_copy", L.ttm_copy);
  f("part", L.part);
  for (int i = 0; i < kFloatArenas; ++i) f(idx("words", i), L.words[i]);
  f("param_words", L.param_words);
  f("act_words", L.act_words);
  f("scratch_words", L.scratch_words);
  f("index_words", L.index_words);
  for (int i = 0; i < kMaxParamTensors; ++i) {
    const std::string p = idx("tensors", i) + ".";
    f(p + "offset", L.tensors[i].offset);
    f(p + "words", L.tensors[i].words);
    f(p + "grad", L.tensors[i].grad);
    f(p + "group_words", L.tensors[i].group_words);
  }
  f("n_tensors", L.n_tensors);
}

}  // namespace ttsim_hls
