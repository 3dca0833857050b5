#include "models/reference/reference_model.h"

#include <cmath>
#include <random>

#include "core/errors.h"
#include "models/reference/nn_ops.h"
#include "models/tt_init.h"

namespace ttsim::reference {

namespace {

constexpr std::size_t kPerEncoder = 6;  // q, k, v, o, ffn_in, ffn_out
enum LinearSlot { kQ = 0, kK, kV, kO, kFfnIn, kFfnOut };

std::string core_name(const std::string& prefix, std::size_t k) {
  return prefix + ".core" + std::to_string(k);
}

template <typename T>
void fill_normal(Mat<T>& m, double stddev, std::mt19937_64& rng) {
  std::normal_distribution<double> nd(0.0, stddev);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<T>(nd(rng));
}

template <typename T>
std::vector<int> argmax_rows(const Mat<T>& m) {
  std::vector<int> out(m.rows());
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    Eigen::Index c = 0;
    m.row(r).maxCoeff(&c);
    out[r] = static_cast<int>(c);
  }
  return out;
}

}  // namespace

template <typename T>
struct ReferenceModelT<T>::Cache {
  struct LinearCache {
    Mat<T> x;             // dense layers: the input
    TtFlowState<T> tt;    // TT layers: the flow state
  };
  struct Enc {
    Mat<T> q, k, v, ffn_pre;
    std::vector<Mat<T>> p;  // per head, K × K
    LayerNormState<T> ln1, ln2;
  };
  std::vector<int> tokens;
  TtmLookupState<T> ttm;
  LayerNormState<T> emb_ln;
  std::vector<LinearCache> lin;
  std::vector<Enc> enc;
  Mat<T> d_intent, d_slot;
};

ModelSpec densified(const ModelSpec& spec) {
  ModelSpec d = spec;
  d.token_embedding.format = WeightFormat::kDense;
  d.token_embedding.ttm = TtmShape();
  for (auto& l : d.linears) {
    l.format = WeightFormat::kDense;
    l.tt = TtShape();
  }
  return d;
}

template <typename T>
template <typename F>
void ReferenceModelT<T>::visit(const ModelSpec& spec, Params& p, F&& f) {
  const std::int64_t dm = spec.d_model;
  if (spec.token_embedding.format == WeightFormat::kTTM) {
    const auto& s = spec.token_embedding.ttm;
    for (std::size_t k = 0; k < s.cores(); ++k) {
      f(core_name("embedding.token", k),
        std::vector<std::int64_t>{s.ranks[k], s.vocab_factors[k], s.dim_factors[k], s.ranks[k + 1]},
        p.token_ttm.cores[k]);
    }
  } else {
    f(std::string("embedding.token.weight"), std::vector<std::int64_t>{spec.vocab, dm},
      p.token_dense);
  }
  f(std::string("embedding.position"), std::vector<std::int64_t>{spec.seq_len, dm}, p.position);
  f(std::string("embedding.ln.gain"), std::vector<std::int64_t>{dm}, p.emb_ln_gain);
  f(std::string("embedding.ln.bias"), std::vector<std::int64_t>{dm}, p.emb_ln_bias);
  auto linear = [&](std::size_t i) {
    const auto& l = spec.linears[i];
    auto& lp = p.linears[i];
    if (l.format == WeightFormat::kTT) {
      for (std::size_t k = 0; k < l.tt.cores(); ++k) {
        f(core_name(l.name, k),
          std::vector<std::int64_t>{l.tt.ranks[k], l.tt.mode(k), l.tt.ranks[k + 1]},
          lp.tt.cores[k]);
      }
    } else {
      f(l.name + ".weight", std::vector<std::int64_t>{l.in_dim, l.out_dim}, lp.weight);
    }
    if (l.bias) f(l.name + ".bias", std::vector<std::int64_t>{l.out_dim}, lp.bias);
  };
  for (int e = 0; e < spec.encoders; ++e) {
    for (std::size_t j = 0; j < kPerEncoder; ++j) linear(e * kPerEncoder + j);
    const std::string pre = "enc" + std::to_string(e);
    f(pre + ".ln1.gain", std::vector<std::int64_t>{dm}, p.norms[e].ln1_gain);
    f(pre + ".ln1.bias", std::vector<std::int64_t>{dm}, p.norms[e].ln1_bias);
    f(pre + ".ln2.gain", std::vector<std::int64_t>{dm}, p.norms[e].ln2_gain);
    f(pre + ".ln2.bias", std::vector<std::int64_t>{dm}, p.norms[e].ln2_bias);
  }
  linear(spec.encoders * kPerEncoder);
  linear(spec.encoders * kPerEncoder + 1);
}

template <typename T>
typename ReferenceModelT<T>::Params ReferenceModelT<T>::zero_like(const ModelSpec& spec) {
  Params p;
  const std::int64_t dm = spec.d_model;
  if (spec.token_embedding.format == WeightFormat::kTTM) {
    p.token_ttm = zero_ttm<T>(spec.token_embedding.ttm);
  } else {
    p.token_dense = Mat<T>::Zero(spec.vocab, dm);
  }
  p.position = Mat<T>::Zero(spec.seq_len, dm);
  p.emb_ln_gain = Mat<T>::Zero(1, dm);
  p.emb_ln_bias = Mat<T>::Zero(1, dm);
  for (const auto& l : spec.linears) {
    Linear lp;
    if (l.format == WeightFormat::kTT) {
      lp.tt = zero_tt<T>(l.tt);
    } else {
      lp.weight = Mat<T>::Zero(l.in_dim, l.out_dim);
    }
    if (l.bias) lp.bias = Mat<T>::Zero(1, l.out_dim);
    p.linears.push_back(std::move(lp));
  }
  for (int e = 0; e < spec.encoders; ++e) {
    EncoderNorms n;
    n.ln1_gain = n.ln1_bias = n.ln2_gain = n.ln2_bias = Mat<T>::Zero(1, dm);
    p.norms.push_back(n);
  }
  return p;
}

template <typename T>
ReferenceModelT<T>::ReferenceModelT(const ModelSpec& spec, const ReferenceOptions& options)
    : spec_(spec), options_(options) {
  if (spec.batch != 1) {
    throw InputError(spec.source_file + ": the reference model runs batch 1, the spec has batch " +
                     std::to_string(spec.batch));
  }
  const std::size_t expected = spec.encoders * kPerEncoder + 2;
  bool order_ok = spec.linears.size() == expected;
  for (std::size_t i = 0; order_ok && i < expected; ++i) {
    static const char* kinds[] = {"q", "k", "v", "o", "ffn_in", "ffn_out"};
    std::string want = i + 2 < expected ? "enc" + std::to_string(i / kPerEncoder) + "." +
                                              kinds[i % kPerEncoder]
                                        : (i + 2 == expected ? "intent_head" : "slot_head");
    order_ok = spec.linears[i].name == want;
  }
  if (!order_ok) {
    throw InputError(spec.source_file +
                     ": the reference model needs the linear layers in ModelSpec order");
  }
  params_ = zero_like(spec);
  grads_ = zero_like(spec);
  std::mt19937_64 rng(options.seed);
  const double dm = static_cast<double>(spec.d_model);
  if (spec.token_embedding.format == WeightFormat::kTTM) {
    const auto& s = spec.token_embedding.ttm;
    std::vector<std::int64_t> modes;
    for (std::size_t k = 0; k < s.cores(); ++k) modes.push_back(s.vocab_factors[k] * s.dim_factors[k]);
    const auto sd = tt_core_stddevs_xavier(modes, s.ranks, static_cast<double>(spec.vocab), dm);
    for (std::size_t k = 0; k < s.cores(); ++k) fill_normal(params_.token_ttm.cores[k], sd[k], rng);
  } else {
    fill_normal(params_.token_dense, std::sqrt(2.0 / (static_cast<double>(spec.vocab) + dm)), rng);
  }
  fill_normal(params_.position, std::sqrt(2.0 / (static_cast<double>(spec.seq_len) + dm)), rng);
  params_.emb_ln_gain.setOnes();
  for (auto& n : params_.norms) {
    n.ln1_gain.setOnes();
    n.ln2_gain.setOnes();
  }
  for (std::size_t i = 0; i < spec.linears.size(); ++i) {
    const auto& l = spec.linears[i];
    const double rows = static_cast<double>(l.in_dim), cols = static_cast<double>(l.out_dim);
    if (l.format == WeightFormat::kTT) {
      std::vector<std::int64_t> modes;
      for (std::size_t k = 0; k < l.tt.cores(); ++k) modes.push_back(l.tt.mode(k));
      const auto sd = tt_core_stddevs_balanced(modes, l.tt.ranks, rows, cols);
      for (std::size_t k = 0; k < l.tt.cores(); ++k) fill_normal(params_.linears[i].tt.cores[k], sd[k], rng);
    } else {
      fill_normal(params_.linears[i].weight, std::sqrt(2.0 / (rows + cols)), rng);
    }
  }
  macs_["embedding.token"] = StageMacs();
  for (const auto& l : spec.linears) macs_[l.name] = StageMacs();
  for (int e = 0; e < spec.encoders; ++e) macs_["enc" + std::to_string(e) + ".attention"] = {};
}

template <typename T>
std::vector<std::string> ReferenceModelT<T>::parameter_names() const {
  std::vector<std::string> names;
  visit(spec_, const_cast<Params&>(params_),
        [&](const std::string& n, const std::vector<std::int64_t>&, Mat<T>&) { names.push_back(n); });
  return names;
}

template <typename T>
std::vector<std::int64_t> ReferenceModelT<T>::parameter_shape(const std::string& name) const {
  std::vector<std::int64_t> shape;
  bool found = false;
  visit(spec_, const_cast<Params&>(params_),
        [&](const std::string& n, const std::vector<std::int64_t>& s, Mat<T>&) {
          if (n == name) {
            shape = s;
            found = true;
          }
        });
  if (!found) throw InputError("reference model: no parameter named \"" + name + "\"");
  return shape;
}

template <typename T>
const Mat<T>* ReferenceModelT<T>::find(const Params& p, const std::string& name) const {
  const Mat<T>* out = nullptr;
  visit(spec_, const_cast<Params&>(p),
        [&](const std::string& n, const std::vector<std::int64_t>&, Mat<T>& m) {
          if (n == name) out = &m;
        });
  if (!out) throw InputError("reference model: no parameter named \"" + name + "\"");
  return out;
}

template <typename T>
Mat<T>& ReferenceModelT<T>::parameter(const std::string& name) {
  return const_cast<Mat<T>&>(*find(params_, name));
}
template <typename T>
const Mat<T>& ReferenceModelT<T>::parameter(const std::string& name) const {
  return *find(params_, name);
}
template <typename T>
const Mat<T>& ReferenceModelT<T>::gradient(const std::string& name) const {
  return *find(grads_, name);
}

template <typename T>
std::int64_t ReferenceModelT<T>::parameter_count() const {
  std::int64_t n = 0;
  visit(spec_, const_cast<Params&>(params_),
        [&](const std::string&, const std::vector<std::int64_t>&, Mat<T>& m) { n += m.size(); });
  return n;
}

template <typename T>
const StageMacs& ReferenceModelT<T>::macs(const std::string& name) const {
  auto it = macs_.find(name);
  if (it == macs_.end()) throw InputError("reference model: no MAC counter named \"" + name + "\"");
  return it->second;
}

template <typename T>
ReferenceModelT<T> ReferenceModelT<T>::dense_equivalent() const {
  ReferenceModelT<T> out(densified(spec_), options_);
  Params& p = out.params_;
  p.token_dense = spec_.token_embedding.format == WeightFormat::kTTM
                      ? reconstruct(params_.token_ttm)
                      : params_.token_dense;
  p.position = params_.position;
  p.emb_ln_gain = params_.emb_ln_gain;
  p.emb_ln_bias = params_.emb_ln_bias;
  p.norms = params_.norms;
  for (std::size_t i = 0; i < spec_.linears.size(); ++i) {
    p.linears[i].weight = spec_.linears[i].format == WeightFormat::kTT
                              ? reconstruct(params_.linears[i].tt)
                              : params_.linears[i].weight;
    p.linears[i].bias = params_.linears[i].bias;
  }
  return out;
}

template <typename T>
void ReferenceModelT<T>::check_inputs(const std::vector<int>& tokens, int intent,
                                      const std::vector<int>& slot_tags) const {
  const std::string where = "reference step of " + spec_.name + ": ";
  if (tokens.empty() || static_cast<std::int64_t>(tokens.size()) > spec_.seq_len) {
    throw InputError(where + "expected 1 to " + std::to_string(spec_.seq_len) + " tokens, found " +
                     std::to_string(tokens.size()));
  }
  for (int t : tokens) {
    if (t < 0 || t >= spec_.vocab) {
      throw InputError(where + "expected token ids in [0, " + std::to_string(spec_.vocab) +
                       "), found " + std::to_string(t));
    }
  }
  if (intent < 0 || intent >= spec_.intents) {
    throw InputError(where + "expected an intent in [0, " + std::to_string(spec_.intents) +
                     "), found " + std::to_string(intent));
  }
  if (slot_tags.size() != tokens.size()) {
    throw InputError(where + "expected one slot tag per token (" + std::to_string(tokens.size()) +
                     "), found " + std::to_string(slot_tags.size()));
  }
  for (int s : slot_tags) {
    if (s < -1 || s >= spec_.slot_tags) {
      throw InputError(where + "expected slot tags in [-1, " + std::to_string(spec_.slot_tags) +
                       "), found " + std::to_string(s));
    }
  }
}

template <typename T>
Mat<T> ReferenceModelT<T>::linear_forward(std::size_t i, const Mat<T>& x, Cache* cache,
                                          StageMacs* macs) const {
  const auto& l = spec_.linears[i];
  const auto& p = params_.linears[i];
  MacCounter* fwd = macs ? &macs->forward : nullptr;
  Mat<T> y;
  if (l.format == WeightFormat::kTT) {
    y = tt_forward(p.tt, x, options_.tt_flow, cache ? &cache->lin[i].tt : nullptr, fwd);
  } else {
    y = contract(x, p.weight, fwd);
    if (cache) cache->lin[i].x = x;
  }
  if (l.bias) y.rowwise() += p.bias.row(0);
  return y;
}

template <typename T>
Mat<T> ReferenceModelT<T>::linear_backward(std::size_t i, const Mat<T>& dy, const Cache& cache,
                                           StageMacs* macs) {
  const auto& l = spec_.linears[i];
  const auto& p = params_.linears[i];
  auto& g = grads_.linears[i];
  Mat<T> dx;
  if (l.format == WeightFormat::kTT) {
    auto tg = tt_backward(p.tt, cache.lin[i].tt, dy, &macs->grad_input, &macs->grad_weights);
    for (std::size_t k = 0; k < tg.dcores.size(); ++k) g.tt.cores[k] += tg.dcores[k];
    dx = std::move(tg.dx);
  } else {
    dx = contract(dy, p.weight.transpose(), &macs->grad_input);
    g.weight += contract(cache.lin[i].x.transpose(), dy, &macs->grad_weights);
  }
  if (l.bias) g.bias += dy.colwise().sum();
  return dx;
}

template <typename T>
StepResultT<T> ReferenceModelT<T>::run_forward(const std::vector<int>& tokens, int intent,
                                               const std::vector<int>& slot_tags, Cache* cache,
                                               std::map<std::string, StageMacs>* macs) const {
  check_inputs(tokens, intent, slot_tags);
  const std::int64_t kt = static_cast<std::int64_t>(tokens.size());
  const std::int64_t dh = spec_.head_dim();
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(dh)));
  auto counters = [&](const std::string& name) { return macs ? &(*macs)[name] : nullptr; };
  if (cache) {
    cache->tokens = tokens;
    cache->lin.assign(spec_.linears.size(), {});
    cache->enc.assign(spec_.encoders, {});
  }
  Mat<T> x;
  if (spec_.token_embedding.format == WeightFormat::kTTM) {
    StageMacs* m = counters("embedding.token");
    x = ttm_lookup(params_.token_ttm, tokens, cache ? &cache->ttm : nullptr,
                   m ? &m->forward : nullptr);
  } else {
    x.resize(kt, spec_.d_model);
    for (std::int64_t t = 0; t < kt; ++t) x.row(t) = params_.token_dense.row(tokens[t]);
  }
  x += params_.position.topRows(kt);
  Mat<T> h = layernorm_forward(x, params_.emb_ln_gain, params_.emb_ln_bias,
                               cache ? &cache->emb_ln : nullptr);
  auto lin = [&](std::size_t i, const Mat<T>& in) {
    return linear_forward(i, in, cache, counters(spec_.linears[i].name));
  };
  for (int e = 0; e < spec_.encoders; ++e) {
    const std::size_t base = e * kPerEncoder;
    const auto& nrm = params_.norms[e];
    StageMacs* am = counters("enc" + std::to_string(e) + ".attention");
    MacCounter* af = am ? &am->forward : nullptr;
    Mat<T> q = lin(base + kQ, h), k = lin(base + kK, h), v = lin(base + kV, h);
    Mat<T> c(kt, spec_.d_model);
    std::vector<Mat<T>> probs;
    for (std::int64_t hd = 0; hd < spec_.heads; ++hd) {
      Mat<T> s = contract(q.middleCols(hd * dh, dh), k.middleCols(hd * dh, dh).transpose(), af);
      s *= scale;
      Mat<T> p = softmax_rows(s);
      c.middleCols(hd * dh, dh) = contract(p, v.middleCols(hd * dh, dh), af);
      probs.push_back(std::move(p));
    }
    Mat<T> u1 = h + lin(base + kO, c);
    LayerNormState<T> ln1, ln2;
    Mat<T> h1 = layernorm_forward(u1, nrm.ln1_gain, nrm.ln1_bias, &ln1);
    Mat<T> fpre = lin(base + kFfnIn, h1);
    Mat<T> u2 = h1 + lin(base + kFfnOut, gelu_forward(fpre));
    h = layernorm_forward(u2, nrm.ln2_gain, nrm.ln2_bias, &ln2);
    if (cache) {
      auto& ce = cache->enc[e];
      ce.q = std::move(q);
      ce.k = std::move(k);
      ce.v = std::move(v);
      ce.p = std::move(probs);
      ce.ln1 = std::move(ln1);
      ce.ln2 = std::move(ln2);
      ce.ffn_pre = std::move(fpre);
    }
  }
  const std::size_t head = spec_.encoders * kPerEncoder;
  StepResultT<T> r;
  r.intent_logits = lin(head, Mat<T>(h.topRows(1)));
  r.slot_logits = lin(head + 1, h);
  Mat<T> di, ds;
  r.intent_loss = softmax_cross_entropy(r.intent_logits, {intent}, &di);
  r.slot_loss = softmax_cross_entropy(r.slot_logits, slot_tags, &ds);
  r.loss = r.intent_loss + r.slot_loss;
  r.predicted_intent = argmax_rows(r.intent_logits)[0];
  r.predicted_slots = argmax_rows(r.slot_logits);
  if (cache) {
    cache->d_intent = std::move(di);
    cache->d_slot = std::move(ds);
  }
  return r;
}

template <typename T>
StepResultT<T> ReferenceModelT<T>::forward(const std::vector<int>& tokens, int intent,
                                           const std::vector<int>& slot_tags) const {
  return run_forward(tokens, intent, slot_tags, nullptr, nullptr);
}

template <typename T>
StepResultT<T> ReferenceModelT<T>::forward_backward(const std::vector<int>& tokens, int intent,
                                                    const std::vector<int>& slot_tags) {
  for (auto& [name, m] : macs_) m = StageMacs();
  Cache cache;
  StepResultT<T> r = run_forward(tokens, intent, slot_tags, &cache, &macs_);
  visit(spec_, grads_, [](const std::string&, const std::vector<std::int64_t>&, Mat<T>& g) {
    g.setZero();  // in place: no reallocation of the (large, for dense models) gradients
  });
  const std::int64_t kt = static_cast<std::int64_t>(tokens.size());
  const std::int64_t dh = spec_.head_dim();
  const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(dh)));
  auto back = [&](std::size_t i, const Mat<T>& dy) {
    return linear_backward(i, dy, cache, &macs_.at(spec_.linears[i].name));
  };
  const std::size_t head = spec_.encoders * kPerEncoder;
  Mat<T> dh_all = back(head + 1, cache.d_slot);
  dh_all.topRows(1) += back(head, cache.d_intent);
  for (int e = spec_.encoders - 1; e >= 0; --e) {
    const std::size_t base = e * kPerEncoder;
    const auto& ce = cache.enc[e];
    const auto& nrm = params_.norms[e];
    auto& gn = grads_.norms[e];
    MacCounter* ab = &macs_.at("enc" + std::to_string(e) + ".attention").grad_input;
    Mat<T> du2 = layernorm_backward(ce.ln2, nrm.ln2_gain, dh_all, &gn.ln2_gain, &gn.ln2_bias);
    Mat<T> dfpre = gelu_backward(ce.ffn_pre, back(base + kFfnOut, du2));
    Mat<T> dh1 = du2 + back(base + kFfnIn, dfpre);
    Mat<T> du1 = layernorm_backward(ce.ln1, nrm.ln1_gain, dh1, &gn.ln1_gain, &gn.ln1_bias);
    Mat<T> dc = back(base + kO, du1);
    Mat<T> dq(kt, spec_.d_model), dk(kt, spec_.d_model), dv(kt, spec_.d_model);
    for (std::int64_t hd = 0; hd < spec_.heads; ++hd) {
      const auto dch = dc.middleCols(hd * dh, dh);
      const Mat<T>& p = ce.p[hd];
      Mat<T> dp = contract(dch, ce.v.middleCols(hd * dh, dh).transpose(), ab);
      dv.middleCols(hd * dh, dh) = contract(p.transpose(), dch, ab);
      Mat<T> ds = softmax_rows_backward(p, dp);
      dq.middleCols(hd * dh, dh) = contract(ds, ce.k.middleCols(hd * dh, dh), ab) * scale;
      dk.middleCols(hd * dh, dh) = contract(ds.transpose(), ce.q.middleCols(hd * dh, dh), ab) * scale;
    }
    dh_all = du1 + back(base + kQ, dq) + back(base + kK, dk) + back(base + kV, dv);
  }
  Mat<T> dx = layernorm_backward(cache.emb_ln, params_.emb_ln_gain, dh_all, &grads_.emb_ln_gain,
                                 &grads_.emb_ln_bias);
  grads_.position.topRows(kt) += dx;
  if (spec_.token_embedding.format == WeightFormat::kTTM) {
    ttm_backward(params_.token_ttm, cache.ttm, dx, &grads_.token_ttm.cores,
                 &macs_.at("embedding.token").grad_weights);
  } else {
    for (std::int64_t t = 0; t < kt; ++t) grads_.token_dense.row(tokens[t]) += dx.row(t);
  }
  return r;
}

template <typename T>
void ReferenceModelT<T>::sgd_update(double lr) {
  const T step = static_cast<T>(lr);
  std::vector<Mat<T>*> grads;
  visit(spec_, grads_, [&](const std::string&, const std::vector<std::int64_t>&, Mat<T>& g) {
    grads.push_back(&g);
  });
  std::size_t i = 0;
  visit(spec_, params_, [&](const std::string&, const std::vector<std::int64_t>&, Mat<T>& p) {
    p -= step * *grads[i++];
  });
}

template <typename T>
StepResultT<T> ReferenceModelT<T>::train_step(const std::vector<int>& tokens, int intent,
                                              const std::vector<int>& slot_tags, double lr) {
  StepResultT<T> r = forward_backward(tokens, intent, slot_tags);
  sgd_update(lr);
  return r;
}

template class ReferenceModelT<float>;
template class ReferenceModelT<double>;

}  // namespace ttsim::reference
