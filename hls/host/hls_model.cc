#include "hls/host/hls_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core/errors.h"
#include "hls/host/host_capacity.h"
#include "models/tt_init.h"

namespace ttsim {

namespace {

using ttsim_hls::kLinearsPerEncoder;
constexpr const char* kLinearNames[kLinearsPerEncoder] = {"q", "k", "v", "o", "ffn_in", "ffn_out"};

[[noreturn]] void fail(const ModelSpec& spec, const std::string& what) {
  throw InputError((spec.source_file.empty() ? spec.name : spec.source_file) +
                   ": the HLS kernels do not implement this model: " + what);
}

const LinearLayerSpec& find_linear(const ModelSpec& spec, const std::string& name) {
  for (const auto& l : spec.linears) {
    if (l.name == name) return l;
  }
  fail(spec, "no linear layer named " + name);
}

int to_int(std::int64_t v) {
  if (v < 0 || v > std::numeric_limits<int>::max()) {
    throw InputError("HlsModel: dimension " + std::to_string(v) + " outside 0.." +
                     std::to_string(std::numeric_limits<int>::max()));
  }
  return static_cast<int>(v);
}

}  // namespace

void check_hls_linears(const ModelSpec& model, const std::string& file) {
  for (const LinearLayerSpec& l : model.linears) {
    const bool head = l.kind == "intent_head" || l.kind == "slot_head";
    if (!l.bias) {
      throw InputError(file + ": /layers/" + l.kind + "/bias or /overrides/" + l.name +
                       "/bias: the HLS kernel tree's linear layers all have a bias, found none for " + l.name);
    }
    if (head && l.format != WeightFormat::kDense) {
      throw InputError(file + ": /layers/" + l.kind + "/format or /overrides/" + l.name +
                       "/format: the HLS kernel tree's heads are dense, found " + to_string(l.format) + " for " +
                       l.name);
    }
  }
}

ttsim_hls::ModelDims hls_model_dims(const ModelSpec& spec, const HlsModelOptions& options) {
  ttsim_hls::ModelDims m;
  if (spec.batch != 1) fail(spec, "batch " + std::to_string(spec.batch) + " (one sample per step: batch 1)");
  if (spec.encoders > ttsim_hls::kMaxEncoders) fail(spec, "more than " + std::to_string(ttsim_hls::kMaxEncoders) + " encoders");
  if (spec.heads < 1 || spec.d_model % spec.heads != 0) fail(spec, "d_model not divisible by heads");
  m.encoders = spec.encoders;
  m.d_model = to_int(spec.d_model);
  m.heads = to_int(spec.heads);
  m.ffn_dim = to_int(spec.ffn_dim);
  m.seq_len = to_int(spec.seq_len);
  m.intents = to_int(spec.intents);
  m.slot_tags = to_int(spec.slot_tags);
  m.recompute_encoders = options.recompute_encoders;
  const EmbeddingSpec& emb = spec.token_embedding;
  if (emb.format != WeightFormat::kTTM) fail(spec, "a dense token embedding (TTM required)");
  const TtmShape& ts = emb.ttm;
  if (ts.cores() < 2 || ts.cores() > static_cast<std::size_t>(ttsim_hls::kMaxTtmFactors)) {
    fail(spec, "a TTM embedding with " + std::to_string(ts.cores()) + " cores (2 to 6 supported)");
  }
  m.emb.d = to_int(ts.cores());
  for (int k = 0; k < m.emb.d; ++k) {
    m.emb.v[k] = to_int(ts.vocab_factors[k]);
    m.emb.e[k] = to_int(ts.dim_factors[k]);
  }
  for (int k = 0; k <= m.emb.d; ++k) m.emb.r[k] = to_int(ts.ranks[k]);
  for (int e = 0; e < spec.encoders; ++e) {
    for (int i = 0; i < kLinearsPerEncoder; ++i) {
      const LinearLayerSpec& l = find_linear(spec, "enc" + std::to_string(e) + "." + kLinearNames[i]);
      ttsim_hls::LinearDims& ld = m.lin[e][i];
      ld.in_dim = to_int(l.in_dim);
      ld.out_dim = to_int(l.out_dim);
      ld.tt = l.format == WeightFormat::kTT;
      if (!ld.tt) continue;
      auto it = options.btt_by_kind.find(l.kind);
      ld.btt = it == options.btt_by_kind.end() ? true : it->second;
      ld.recompute = ld.btt && options.recompute_merges;
      const TtShape& t = l.tt;
      if (t.in_factors.size() > static_cast<std::size_t>(ttsim_hls::kMaxTtFactors) ||
          t.out_factors.size() > static_cast<std::size_t>(ttsim_hls::kMaxTtFactors)) {
        fail(spec, l.name + " has more than 6 factors on a side");
      }
      ld.t.d = to_int(t.in_factors.size());
      ld.t.e = to_int(t.out_factors.size());
      for (int k = 0; k < ld.t.d; ++k) ld.t.m[k] = to_int(t.in_factors[k]);
      for (int k = 0; k < ld.t.e; ++k) ld.t.n[k] = to_int(t.out_factors[k]);
      for (int k = 0; k <= ld.t.d + ld.t.e; ++k) ld.t.r[k] = to_int(t.ranks[k]);
    }
  }
  for (const char* head : {"intent_head", "slot_head"}) find_linear(spec, head);
  check_hls_linears(spec, spec.source_file.empty() ? spec.name : spec.source_file);
  // The calls of another machine's step when asked for (HlsModelOptions::contraction_lanes),
  // else of this tree's (design_config.h kAccumulateByAdd), whose kernels the model runs.
  if (options.contraction_lanes > 0) {
    ttsim_hls::set_accumulate_by_add(m, options.contraction_lanes, options.arena_banks);
  } else if (ttsim_cfg::kAccumulateByAdd) {
    ttsim_hls::set_accumulate_by_add(m, ttsim_cfg::kContractLanes, ttsim_cfg::kArenaBanks);
  }
  return m;
}

namespace {

/// Names and shapes (in_dim × out_dim for a dense weight) of the parameter tensors of
/// `dims`, in make_layout's allocation order; `transposed`: stored out_dim × in_dim in the
/// arena (the dense weights, hls/kernels/tt_linear.h dense_forward).
void parameter_table(const ttsim_hls::ModelDims& dims, std::vector<std::string>& names,
                     std::vector<std::vector<std::int64_t>>& shapes, std::vector<bool>& transposed) {
  const std::int64_t Dl = dims.d_model;
  auto add = [&](std::string name, std::vector<std::int64_t> shape, bool t = false) {
    names.push_back(std::move(name));
    shapes.push_back(std::move(shape));
    transposed.push_back(t);
  };
  for (int k = 0; k < dims.emb.d; ++k) {
    add("embedding.token.core" + std::to_string(k),
        {dims.emb.r[k], dims.emb.v[k], dims.emb.e[k], dims.emb.r[k + 1]});
  }
  add("embedding.position", {dims.seq_len, Dl});
  add("embedding.ln.gain", {Dl});
  add("embedding.ln.bias", {Dl});
  for (int e = 0; e < dims.encoders; ++e) {
    const std::string p = "enc" + std::to_string(e) + ".";
    for (int i = 0; i < kLinearsPerEncoder; ++i) {
      const ttsim_hls::LinearDims& l = dims.lin[e][i];
      const std::string n = p + kLinearNames[i];
      if (l.tt) {
        for (int k = 1; k <= l.t.d + l.t.e; ++k) {
          add(n + ".core" + std::to_string(k - 1), {l.t.r[k - 1], l.t.mode(k), l.t.r[k]});
        }
      } else {
        add(n + ".weight", {l.in_dim, l.out_dim}, true);
      }
      add(n + ".bias", {l.out_dim});
    }
    add(p + "ln1.gain", {Dl});
    add(p + "ln1.bias", {Dl});
    add(p + "ln2.gain", {Dl});
    add(p + "ln2.bias", {Dl});
  }
  add("intent_head.weight", {Dl, dims.intents}, true);
  add("intent_head.bias", {dims.intents});
  add("slot_head.weight", {Dl, dims.slot_tags}, true);
  add("slot_head.bias", {dims.slot_tags});
}

/// Draws the initial parameters into `param`, tensor by tensor in layout order, from
/// `rng` (see the HlsModel class comment).
class ParamInit {
 public:
  ParamInit(const ttsim_hls::Layout& layout, std::vector<float>& param, std::uint64_t seed)
      : layout_(layout), param_(param), rng_(seed) {}

  /// The next tensor, normal with standard deviation `sd`.
  void normal(double sd) {
    std::normal_distribution<double> dist(0.0, sd);
    const ttsim_hls::ParamTensor& t = layout_.tensors[next_++];
    for (int i = 0; i < t.words; ++i) param_[t.offset + i] = static_cast<float>(dist(rng_));
  }
  /// The next tensor, a dense weight stored out × in: drawn in in × out order (as
  /// `normal` would draw it untransposed), so each element gets the value it had when the
  /// arena stored the weight in × out.
  void normal_transposed(int in, int out, double sd) {
    std::normal_distribution<double> dist(0.0, sd);
    const ttsim_hls::ParamTensor& t = layout_.tensors[next_++];
    for (int i = 0; i < in; ++i) {
      for (int o = 0; o < out; ++o) param_[t.offset + o * in + i] = static_cast<float>(dist(rng_));
    }
  }
  /// The next tensor, every word `v`.
  void constant(float v) {
    const ttsim_hls::ParamTensor& t = layout_.tensors[next_++];
    std::fill(param_.begin() + t.offset, param_.begin() + t.offset + t.words, v);
  }

 private:
  const ttsim_hls::Layout& layout_;
  std::vector<float>& param_;
  std::mt19937_64 rng_;
  int next_ = 0;
};

/// Initializes the token embedding's TTM cores (Xavier over the whole table).
void init_embedding_cores(const ttsim_hls::ModelDims& dims, ParamInit& init) {
  std::vector<std::int64_t> modes, ranks(dims.emb.r, dims.emb.r + dims.emb.d + 1);
  for (int k = 0; k < dims.emb.d; ++k) modes.push_back(std::int64_t{dims.emb.v[k]} * dims.emb.e[k]);
  const auto sd = tt_core_stddevs_xavier(modes, ranks, dims.emb.vocab(), dims.d_model);
  for (int k = 0; k < dims.emb.d; ++k) init.normal(sd[k]);
}

/// Initializes one encoder linear layer: its TT cores (balanced) or dense weight, and a
/// zero bias.
void init_linear(const ttsim_hls::LinearDims& l, ParamInit& init) {
  if (l.tt) {
    const int c = l.t.d + l.t.e;
    std::vector<std::int64_t> modes, ranks(l.t.r, l.t.r + c + 1);
    for (int k = 1; k <= c; ++k) modes.push_back(l.t.mode(k));
    const auto sd = tt_core_stddevs_balanced(modes, ranks, l.in_dim, l.out_dim);
    for (int k = 0; k < c; ++k) init.normal(sd[k]);
  } else {
    init.normal_transposed(l.in_dim, l.out_dim, std::sqrt(2.0 / (l.in_dim + l.out_dim)));
  }
  init.constant(0.0f);
}

/// Initializes every parameter tensor of `dims` (layout order) into `param`.
void init_parameters(const ttsim_hls::ModelDims& dims, const ttsim_hls::Layout& layout, std::uint64_t seed,
                     std::vector<float>& param) {
  const int D = dims.d_model;
  ParamInit init(layout, param, seed);
  init_embedding_cores(dims, init);
  init.normal(std::sqrt(2.0 / (dims.seq_len + D)));
  init.constant(1.0f);
  init.constant(0.0f);
  for (int e = 0; e < dims.encoders; ++e) {
    for (int i = 0; i < kLinearsPerEncoder; ++i) init_linear(dims.lin[e][i], init);
    init.constant(1.0f);
    init.constant(0.0f);
    init.constant(1.0f);
    init.constant(0.0f);
  }
  init.normal_transposed(D, dims.intents, std::sqrt(2.0 / (D + dims.intents)));
  init.constant(0.0f);
  init.normal_transposed(D, dims.slot_tags, std::sqrt(2.0 / (D + dims.slot_tags)));
  init.constant(0.0f);
}

}  // namespace

HlsModel::HlsModel(const ModelSpec& spec, const HlsModelOptions& options)
    : spec_(spec), dims_(hls_model_dims(spec, options)) {
  // Sizes in int64 first: make_layout computes in int (the kernels' offset type).
  const HlsArenaWords words =
      check_hls_host_capacity(dims_, spec.source_file.empty() ? spec.name : spec.source_file);
  if (!ttsim_hls::make_layout(dims_, &layout_)) fail(spec, "shapes outside the kernel limits");
  // The layout lets the TTM embedding's temporaries use act's and out's words (and, with
  // encoder recomputation, one region hold every encoder's activations); the capacity check
  // counts them apart: an upper bound of the activation arenas.
  const bool act_agrees = words.act >= layout_.act_words;
  if (words.param != layout_.param_words || !act_agrees ||
      words.scratch != layout_.scratch_words || words.index != layout_.index_words ||
      words.grad != layout_.words[ttsim_hls::kGradArena]) {
    throw std::logic_error("HlsModel: host capacity check and make_layout disagree on arena sizes");
  }
  parameter_table(dims_, names_, shapes_, transposed_);
  if (static_cast<int>(names_.size()) != layout_.n_tensors) {
    throw std::logic_error("HlsModel: parameter table and layout disagree");
  }
  param_.assign(layout_.param_words, 0.0f);
  grad_.assign(static_cast<std::size_t>(std::max(1, layout_.words[ttsim_hls::kGradArena])), 0.0f);
  grad_out_.assign(layout_.param_words, 0.0f);
  for (int a = ttsim_hls::kActArena; a < ttsim_hls::kFloatArenas; ++a) {
    work_[a].assign(static_cast<std::size_t>(std::max(1, layout_.words[a])), 0.0f);
  }
  index_.assign(layout_.index_words, 0);
  init_parameters(dims_, layout_, options.seed, param_);
}

ttsim_hls::Arenas HlsModel::arenas() {
  using ttsim_cfg::kArenaBanks;
  auto view = [&](int a) { return ttsim_hls::bank_view<kArenaBanks>(work_[a].data()); };
  return {ttsim_hls::bank_view<kArenaBanks>(param_.data()),
          ttsim_hls::bank_view<kArenaBanks>(grad_.data()),
          view(ttsim_hls::kActArena),
          view(ttsim_hls::kOutArena),
          view(ttsim_hls::kSaved0Arena),
          view(ttsim_hls::kSaved1Arena),
          view(ttsim_hls::kBwdAArena),
          view(ttsim_hls::kBwdBArena),
          view(ttsim_hls::kBwdCArena),
          view(ttsim_hls::kChain0Arena),
          view(ttsim_hls::kChain1Arena),
          index_.data()};
}

std::vector<HlsModel::ArenaRange> HlsModel::arena_ranges() const {
  std::vector<ArenaRange> out;
  for (int a = 0; a < ttsim_hls::kFloatArenas; ++a) {
    const std::vector<float>& v = a == ttsim_hls::kParamArena ? param_ : a == ttsim_hls::kGradArena ? grad_ : work_[a];
    out.push_back({std::string(ttsim_hls::kArenaStems[a]) + "_mem", v.data(), static_cast<std::int64_t>(v.size())});
  }
  return out;
}

void HlsModel::check_sample(const std::vector<int>& tokens, int intent,
                            const std::vector<int>& slot_tags) const {
  const std::size_t K = tokens.size();
  if (K < 1 || K > static_cast<std::size_t>(dims_.seq_len)) {
    throw InputError("HlsModel: " + std::to_string(K) + " tokens; expected 1 to " +
                     std::to_string(dims_.seq_len));
  }
  if (slot_tags.size() != K) {
    throw InputError("HlsModel: " + std::to_string(slot_tags.size()) + " slot tags for " +
                     std::to_string(K) + " tokens");
  }
  const int V = dims_.emb.vocab();
  for (std::size_t i = 0; i < K; ++i) {
    if (tokens[i] < 0 || tokens[i] >= V) {
      throw InputError("HlsModel: token " + std::to_string(i) + " is " + std::to_string(tokens[i]) +
                       "; expected 0 to " + std::to_string(V - 1));
    }
    if (slot_tags[i] < -1 || slot_tags[i] >= dims_.slot_tags) {
      throw InputError("HlsModel: slot tag " + std::to_string(i) + " is " +
                       std::to_string(slot_tags[i]) + "; expected -1 to " +
                       std::to_string(dims_.slot_tags - 1));
    }
  }
  if (intent < -1 || intent >= dims_.intents) {
    throw InputError("HlsModel: intent " + std::to_string(intent) + "; expected -1 to " +
                     std::to_string(dims_.intents - 1));
  }
}

HlsLosses HlsModel::step(const std::vector<int>& tokens, int intent, const std::vector<int>& slot_tags, float lr,
                         float slot_scale, bool grad_mode) {
  check_sample(tokens, intent, slot_tags);
  ttsim_hls::StepSample s;
  s.K = static_cast<int>(tokens.size());
  s.tokens = tokens.data();
  s.slot_tags = slot_tags.data();
  s.intent = intent;
  s.slot_scale = slot_scale;
  const ttsim_hls::StepLosses l =
      ttsim_hls::model_train_step(dims_, layout_, arenas(), s, lr, grad_mode, grad_mode ? grad_out_.data() : nullptr);
  return {l.intent, l.slot};
}

HlsLosses HlsModel::forward_backward(const std::vector<int>& tokens, int intent,
                                     const std::vector<int>& slot_tags, float slot_scale) {
  return step(tokens, intent, slot_tags, 0.0f, slot_scale, true);
}

HlsLosses HlsModel::train_step(const std::vector<int>& tokens, int intent,
                               const std::vector<int>& slot_tags, float lr, float slot_scale) {
  return step(tokens, intent, slot_tags, lr, slot_scale, false);
}

HlsPrediction HlsModel::predict(const std::vector<int>& tokens) {
  check_sample(tokens, -1, std::vector<int>(tokens.size(), -1));
  const int K = static_cast<int>(tokens.size());
  ttsim_hls::model_forward(dims_, layout_, arenas(), K, tokens.data());
  HlsPrediction p;
  const float* li = work_[ttsim_hls::kOutArena].data() + layout_.logit_i;
  const float* ls = work_[ttsim_hls::kOutArena].data() + layout_.logit_s;
  p.intent_logits.assign(li, li + dims_.intents);
  // The slot logits' rows are logit_pitch words apart (model_step.h).
  const int pitch = ttsim_hls::logit_pitch(dims_.slot_tags);
  for (int t = 0; t < K; ++t) p.slot_logits.insert(p.slot_logits.end(), ls + t * pitch, ls + t * pitch + dims_.slot_tags);
  p.intent = static_cast<int>(std::max_element(li, li + dims_.intents) - li);
  for (int t = 0; t < K; ++t) {
    const float* row = ls + t * pitch;
    p.slots.push_back(static_cast<int>(std::max_element(row, row + dims_.slot_tags) - row));
  }
  return p;
}

int HlsModel::index_of(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  if (it == names_.end()) throw InputError("HlsModel: unknown parameter " + name);
  return static_cast<int>(it - names_.begin());
}

std::vector<std::int64_t> HlsModel::parameter_shape(const std::string& name) const {
  return shapes_[index_of(name)];
}

namespace {
/// `rows` × `cols` row-major `v` transposed (cols × rows).
std::vector<float> transpose_of(const float* v, std::int64_t rows, std::int64_t cols) {
  std::vector<float> out(static_cast<std::size_t>(rows * cols));
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) out[static_cast<std::size_t>(j * rows + i)] = v[i * cols + j];
  }
  return out;
}
}  // namespace

std::vector<float> HlsModel::tensor_view(const std::vector<float>& arena, const std::string& name) const {
  const int k = index_of(name);
  const ttsim_hls::ParamTensor& t = layout_.tensors[k];
  if (transposed_[k]) return transpose_of(arena.data() + t.offset, shapes_[k][1], shapes_[k][0]);
  return {arena.begin() + t.offset, arena.begin() + t.offset + t.words};
}

std::vector<float> HlsModel::parameter(const std::string& name) const { return tensor_view(param_, name); }

std::vector<float> HlsModel::gradient(const std::string& name) const { return tensor_view(grad_out_, name); }

void HlsModel::set_parameter(const std::string& name, const std::vector<float>& values) {
  const int k = index_of(name);
  const ttsim_hls::ParamTensor& t = layout_.tensors[k];
  if (static_cast<int>(values.size()) != t.words) {
    throw InputError("HlsModel: parameter " + name + " has " + std::to_string(t.words) +
                     " values; got " + std::to_string(values.size()));
  }
  if (transposed_[k]) {
    const std::vector<float> stored = transpose_of(values.data(), shapes_[k][0], shapes_[k][1]);
    std::copy(stored.begin(), stored.end(), param_.begin() + t.offset);
  } else {
    std::copy(values.begin(), values.end(), param_.begin() + t.offset);
  }
}

std::int64_t HlsModel::parameter_count() const {
  std::int64_t n = 0;
  for (int i = 0; i < layout_.n_tensors; ++i) n += layout_.tensors[i].words;
  return n;
}

void HlsModel::set_parameters(const std::vector<float>& values) {
  if (values.size() != param_.size()) {
    throw InputError("HlsModel: expected a parameter arena of " + std::to_string(param_.size()) +
                     " words; got " + std::to_string(values.size()));
  }
  param_ = values;
}

}  // namespace ttsim
