#include "models/model_spec.h"

#include <algorithm>
#include <array>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>

namespace ttsim {

namespace {

constexpr std::int64_t kMaxDim = 1 << 20;

/// Product of the factors, or -1 when it exceeds 2^63 - 1 (factors are validated >= 1, so
/// a product that overflowed can never equal a dimension).
std::int64_t product(const std::vector<std::int64_t>& v) {
  std::int64_t p = 1;
  for (auto x : v) {
    if (__builtin_mul_overflow(p, x, &p)) return -1;
  }
  return p;
}

/// product(v) as text for an error message.
std::string product_text(const std::vector<std::int64_t>& v) {
  const std::int64_t p = product(v);
  return p < 0 ? "beyond 2^63" : std::to_string(p);
}

std::string list_to_string(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

/// A layer-format object before it is resolved against a layer's dimensions.
struct FormatDraft {
  WeightFormat format = WeightFormat::kDense;
  std::optional<JsonView> format_at;
  std::vector<std::int64_t> in_factors, out_factors;
  std::optional<JsonView> in_at, out_at;
  std::int64_t uniform_rank = 0;  // 0 when `ranks` gives the full list
  std::vector<std::int64_t> ranks;
  std::optional<JsonView> rank_at;
  bool bias = true;
};

/// Reads the keys of a linear-layer format object on top of `base` (in place).
void read_linear_format(const JsonView& v, FormatDraft& base) {
  v.allow_keys({"format", "in_factors", "out_factors", "rank", "ranks", "bias"});
  if (auto f = v.find("format")) {
    base.format = f->as_enum({"dense", "tt"}) == "tt" ? WeightFormat::kTT : WeightFormat::kDense;
    base.format_at = f;
  }
  if (auto f = v.find("in_factors")) {
    base.in_factors = f->as_int_list(1, kMaxDim);
    base.in_at = f;
  }
  if (auto f = v.find("out_factors")) {
    base.out_factors = f->as_int_list(1, kMaxDim);
    base.out_at = f;
  }
  if (v.has("rank") && v.has("ranks")) {
    v.at("ranks").fail("either \"rank\" or \"ranks\", not both", "both keys");
  }
  if (auto f = v.find("rank")) {
    base.uniform_rank = f->as_int(1, kMaxRank);
    base.ranks.clear();
    base.rank_at = f;
  }
  if (auto f = v.find("ranks")) {
    base.ranks = f->as_int_list(1, kMaxRank, 2);
    base.uniform_rank = 0;
    base.rank_at = f;
  }
  if (auto f = v.find("bias")) base.bias = f->as_bool();
}

/// Checks a rank list r_0..r_n: size n+1 and r_0 = r_n = 1.
void check_ranks(const std::vector<std::int64_t>& ranks, std::size_t cores, const JsonView& at) {
  if (ranks.size() != cores + 1) {
    at.fail("a rank list of " + std::to_string(cores + 1) + " entries (r_0..r_" +
                std::to_string(cores) + " for " + std::to_string(cores) + " cores)",
            "a list of " + std::to_string(ranks.size()));
  }
  if (ranks.front() != 1 || ranks.back() != 1) {
    at.fail("boundary ranks r_0 = r_" + std::to_string(cores) + " = 1",
            list_to_string(ranks));
  }
}

std::vector<std::int64_t> resolve_ranks(const FormatDraft& d, std::size_t cores,
                                        const JsonView& layer_at) {
  if (!d.rank_at) layer_at.fail("\"rank\" or \"ranks\" for a tensorized layer", "neither");
  if (d.uniform_rank > 0) {
    std::vector<std::int64_t> r(cores + 1, d.uniform_rank);
    r.front() = 1;
    r.back() = 1;
    return r;
  }
  check_ranks(d.ranks, cores, *d.rank_at);
  return d.ranks;
}

LinearLayerSpec resolve_linear(const FormatDraft& d, const std::string& name,
                               const std::string& kind, int encoder, std::int64_t in_dim,
                               std::int64_t out_dim, const JsonView& layer_at) {
  LinearLayerSpec s;
  s.name = name;
  s.kind = kind;
  s.encoder = encoder;
  s.in_dim = in_dim;
  s.out_dim = out_dim;
  s.format = d.format;
  s.bias = d.bias;
  if (d.format == WeightFormat::kTT) {
    if (!d.in_at) layer_at.fail("\"in_factors\" for a TT layer", "no such key");
    if (!d.out_at) layer_at.fail("\"out_factors\" for a TT layer", "no such key");
    if (product(d.in_factors) != in_dim) {
      d.in_at->fail("factors whose product is " + std::to_string(in_dim) + " (input dim of " +
                        name + ")",
                    list_to_string(d.in_factors) + " with product " +
                        product_text(d.in_factors));
    }
    if (product(d.out_factors) != out_dim) {
      d.out_at->fail("factors whose product is " + std::to_string(out_dim) +
                         " (output dim of " + name + ")",
                     list_to_string(d.out_factors) + " with product " +
                         product_text(d.out_factors));
    }
    s.tt.in_factors = d.in_factors;
    s.tt.out_factors = d.out_factors;
    s.tt.ranks = resolve_ranks(d, s.tt.cores(), layer_at);
  }
  return s;
}

Json linear_to_json(const LinearLayerSpec& l) {
  Json j;
  j["format"] = to_string(l.format);
  if (l.format == WeightFormat::kTT) {
    j["in_factors"] = l.tt.in_factors;
    j["out_factors"] = l.tt.out_factors;
    j["ranks"] = l.tt.ranks;
  }
  j["bias"] = l.bias;
  return j;
}

}  // namespace

const char* to_string(WeightFormat format) {
  switch (format) {
    case WeightFormat::kDense:
      return "dense";
    case WeightFormat::kTT:
      return "tt";
    case WeightFormat::kTTM:
      return "ttm";
  }
  return "?";
}

std::int64_t TtShape::mode(std::size_t core) const {
  return core < in_factors.size() ? in_factors[core] : out_factors[core - in_factors.size()];
}

std::int64_t TtShape::core_words(std::size_t core) const {
  return ranks[core] * mode(core) * ranks[core + 1];
}

std::int64_t TtShape::total_words() const {
  std::int64_t w = 0;
  for (std::size_t k = 0; k < cores(); ++k) w += core_words(k);
  return w;
}

std::int64_t TtmShape::core_words(std::size_t core) const {
  return ranks[core] * vocab_factors[core] * dim_factors[core] * ranks[core + 1];
}

std::int64_t TtmShape::total_words() const {
  std::int64_t w = 0;
  for (std::size_t k = 0; k < cores(); ++k) w += core_words(k);
  return w;
}

std::int64_t LinearLayerSpec::weight_params() const {
  return format == WeightFormat::kTT ? tt.total_words() : dense_weight_params();
}

std::int64_t EmbeddingSpec::params() const {
  return format == WeightFormat::kTTM ? ttm.total_words() : dense_params();
}

std::int64_t ModelSpec::dense_params() const {
  std::int64_t p = token_embedding.dense_params() + position_params() + layernorm_params();
  for (const auto& l : linears) p += l.dense_weight_params() + l.bias_params();
  return p;
}

std::int64_t ModelSpec::compressed_params() const {
  std::int64_t p = token_embedding.params() + position_params() + layernorm_params();
  for (const auto& l : linears) p += l.weight_params() + l.bias_params();
  return p;
}

Json ModelSpec::to_json() const {
  Json j;
  j["name"] = name;
  j["encoders"] = encoders;
  j["d_model"] = d_model;
  j["heads"] = heads;
  j["ffn_dim"] = ffn_dim;
  j["seq_len"] = seq_len;
  j["batch"] = batch;
  j["vocab"] = vocab;
  j["intents"] = intents;
  j["slot_tags"] = slot_tags;
  Json e;
  e["format"] = to_string(token_embedding.format);
  if (token_embedding.format == WeightFormat::kTTM) {
    e["vocab_factors"] = token_embedding.ttm.vocab_factors;
    e["dim_factors"] = token_embedding.ttm.dim_factors;
    e["ranks"] = token_embedding.ttm.ranks;
  }
  j["token_embedding"] = e;
  // Every layer is written as an override so the resolved file is self-contained.
  Json kinds = Json::object();
  Json overrides = Json::object();
  for (const auto& l : linears) {
    if (!kinds.contains(l.kind)) kinds[l.kind] = linear_to_json(l);
    if (linear_to_json(l) != kinds[l.kind]) overrides[l.name] = linear_to_json(l);
  }
  j["layers"] = kinds;
  j["overrides"] = overrides;
  return j;
}

namespace {

/// Reads the model's name and dimensions (the scalar keys of the root object).
void read_dimensions(const JsonView& root, ModelSpec& m) {
  m.name = root.at("name").as_string();
  if (auto d = root.find("description")) d->as_string();
  m.encoders = static_cast<int>(root.at("encoders").as_int(0, 1024));
  m.d_model = root.at("d_model").as_int(1, kMaxDim);
  m.heads = root.at("heads").as_int(1, 4096);
  if (m.d_model % m.heads != 0) {
    root.at("heads").fail("a head count that divides d_model = " + std::to_string(m.d_model),
                          std::to_string(m.heads));
  }
  m.ffn_dim = root.at("ffn_dim").as_int(1, kMaxDim);
  m.seq_len = root.at("seq_len").as_int(1, 65536);
  m.batch = root.get_int("batch", 1, 1, 65536);
  m.vocab = root.at("vocab").as_int(1, 1 << 26);
  m.intents = root.at("intents").as_int(1, kMaxDim);
  m.slot_tags = root.at("slot_tags").as_int(1, kMaxDim);
  // Every count of the workload (MACs, words, cycles) is a 64-bit integer: refuse a model
  // whose dense-equivalent step could not be counted in one. Per encoder and token the step
  // multiplies at most ~ 3 · (4 d² + 2 d·f + 2 L·d) (forward and two backward products of the
  // projections, the FFN and attention); 2^50 leaves room for the sums over an epoch's samples
  // (a step's cycles are at most its MACs on one lane).
  const long double step_macs =
      dense_step_macs_bound(m, static_cast<long double>(m.seq_len) * static_cast<long double>(m.batch));
  if (step_macs > kMaxStepMacs) {
    root.at("d_model").fail(
        "a model whose training step ttsim can count in 64-bit integers (about 3 x tokens x (encoders x (4 d_model^2 "
        "+ 2 d_model x ffn_dim + 2 seq_len x d_model) + d_model x (intents + slot_tags)) multiply-accumulates at most "
        "2^50)",
        [&] {
          std::ostringstream s;
          s << std::setprecision(3) << static_cast<double>(step_macs) << " multiply-accumulates per step (d_model "
            << m.d_model << ", ffn_dim " << m.ffn_dim << ", seq_len " << m.seq_len << ", batch " << m.batch
            << ", encoders " << m.encoders << ")";
          return s.str();
        }());
  }
}

/// Checks the TTM factors `t` read from `e`: as many of each, with products vocab and d_model.
void check_ttm_factors(const JsonView& e, const TtmShape& t, const ModelSpec& m) {
  if (t.dim_factors.size() != t.vocab_factors.size()) {
    e.at("dim_factors")
        .fail("as many factors as vocab_factors (" + std::to_string(t.vocab_factors.size()) +
                  ")",
              "a list of " + std::to_string(t.dim_factors.size()));
  }
  if (product(t.vocab_factors) != m.vocab) {
    e.at("vocab_factors")
        .fail("factors whose product is the vocabulary " + std::to_string(m.vocab),
              list_to_string(t.vocab_factors) + " with product " +
                  product_text(t.vocab_factors));
  }
  if (product(t.dim_factors) != m.d_model) {
    e.at("dim_factors")
        .fail("factors whose product is d_model " + std::to_string(m.d_model),
              list_to_string(t.dim_factors) + " with product " +
                  product_text(t.dim_factors));
  }
}

/// Reads the TTM shape (factors and ranks) of the token embedding object `e`.
void read_ttm_embedding(const JsonView& e, ModelSpec& m) {
  m.token_embedding.format = WeightFormat::kTTM;
  auto& t = m.token_embedding.ttm;
  t.vocab_factors = e.at("vocab_factors").as_int_list(1, kMaxDim);
  t.dim_factors = e.at("dim_factors").as_int_list(1, kMaxDim);
  check_ttm_factors(e, t, m);
  FormatDraft d;
  if (e.has("rank") && e.has("ranks")) {
    e.at("ranks").fail("either \"rank\" or \"ranks\", not both", "both keys");
  }
  if (auto r = e.find("rank")) {
    d.uniform_rank = r->as_int(1, kMaxRank);
    d.rank_at = r;
  }
  if (auto r = e.find("ranks")) {
    d.ranks = r->as_int_list(1, kMaxRank, 2);
    d.rank_at = r;
  }
  t.ranks = resolve_ranks(d, t.cores(), e);
}

/// Reads the token embedding object `e` (dense or TTM) into m.token_embedding.
void read_token_embedding(const JsonView& e, ModelSpec& m) {
  e.allow_keys({"format", "vocab_factors", "dim_factors", "rank", "ranks"});
  m.token_embedding.vocab = m.vocab;
  m.token_embedding.dim = m.d_model;
  const auto fmt = e.at("format").as_enum({"dense", "ttm"});
  if (fmt == "ttm") {
    read_ttm_embedding(e, m);
  } else {
    for (const char* k : {"vocab_factors", "dim_factors", "rank", "ranks"}) {
      if (e.has(k)) e.at(k).fail("no \"" + std::string(k) + "\" for a dense embedding", "the key");
    }
  }
}

/// A linear-layer kind and the input and output dimensions of its layers.
struct LayerKind {
  const char* name;
  std::int64_t in_dim, out_dim;
};
constexpr std::size_t kLayerKinds = 5;
using LayerKinds = std::array<LayerKind, kLayerKinds>;

/// The linear-layer kinds of `m`, in the order of the "layers" object's keys.
LayerKinds layer_kinds(const ModelSpec& m) {
  return {{{"attention", m.d_model, m.d_model},
           {"ffn_in", m.d_model, m.ffn_dim},
           {"ffn_out", m.ffn_dim, m.d_model},
           {"intent_head", m.d_model, m.intents},
           {"slot_head", m.d_model, m.slot_tags}}};
}

/// The format of each layer kind, and the object that gave it (none when absent).
struct KindFormats {
  FormatDraft draft[kLayerKinds];
  std::optional<JsonView> at[kLayerKinds];
};

/// Reads the per-kind formats of the "layers" object; the encoder kinds are required
/// when there are encoder layers.
KindFormats read_kind_formats(const JsonView& layers, const LayerKinds& kinds, int encoders) {
  layers.allow_keys({"attention", "ffn_in", "ffn_out", "intent_head", "slot_head"});
  KindFormats f;
  for (std::size_t k = 0; k < kLayerKinds; ++k) {
    f.at[k] = layers.find(kinds[k].name);
    if (f.at[k]) {
      read_linear_format(*f.at[k], f.draft[k]);
    } else if (std::string(kinds[k].name) != "intent_head" && std::string(kinds[k].name) != "slot_head" &&
               encoders > 0) {
      // Encoder layer kinds are required only when there are encoder layers (to_json()
      // of a model without encoders writes none).
      layers.fail("a format for layer kind \"" + std::string(kinds[k].name) + "\"", "no such key");
    }
  }
  return f;
}

/// A linear layer in execution order: its name, kind (index into LayerKinds) and encoder.
struct LayerSlot {
  std::string name;
  std::size_t kind;
  int encoder;
};

/// The linear layers of a model of `encoders` encoders, in execution order.
std::vector<LayerSlot> layer_slots(int encoders, const LayerKinds& kinds) {
  std::vector<LayerSlot> slots;
  slots.reserve(static_cast<std::size_t>(encoders) * 6 + 2);
  for (int e = 0; e < encoders; ++e) {
    const std::string p = "enc" + std::to_string(e) + ".";
    for (const char* n : {"q", "k", "v", "o", "ffn_in", "ffn_out"}) {
      const std::string kind = linear_kind_of(p + n);
      std::size_t k = 0;
      while (kinds[k].name != kind) ++k;
      slots.push_back({p + n, k, e});
    }
  }
  slots.push_back({"intent_head", 3, -1});
  slots.push_back({"slot_head", 4, -1});
  return slots;
}

/// The "overrides" object of each slot (by slot index), none for a layer not overridden.
std::vector<std::optional<JsonView>> read_overrides(const JsonView& root, const std::vector<LayerSlot>& slots) {
  std::vector<std::optional<JsonView>> override_at(slots.size());
  if (auto ov = root.find("overrides")) {
    if (!ov->is_object()) ov->fail("an object keyed by layer name");
    for (auto it = ov->raw().begin(); it != ov->raw().end(); ++it) {
      std::size_t i = 0;
      while (i < slots.size() && slots[i].name != it.key()) ++i;
      if (i == slots.size()) {
        ov->at(it.key()).fail("a layer name such as \"enc0.q\", \"enc0.ffn_in\" or \"slot_head\"",
                              "unknown layer \"" + it.key() + "\"");
      }
      override_at[i] = ov->at(it.key());
    }
  }
  return override_at;
}

}  // namespace

ModelSpec parse_model_spec(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  root.allow_keys({"name", "description", "encoders", "d_model", "heads", "ffn_dim", "seq_len",
                   "batch", "vocab", "intents", "slot_tags", "token_embedding", "layers",
                   "overrides"});
  ModelSpec m;
  m.source_file = file;
  read_dimensions(root, m);
  read_token_embedding(root.at("token_embedding"), m);
  const LayerKinds kinds = layer_kinds(m);
  JsonView layers = root.at("layers");
  const KindFormats formats = read_kind_formats(layers, kinds, m.encoders);
  const std::vector<LayerSlot> slots = layer_slots(m.encoders, kinds);
  const std::vector<std::optional<JsonView>> override_at = read_overrides(root, slots);

  m.linears.reserve(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const LayerSlot& s = slots[i];
    const LayerKind& kind = kinds[s.kind];
    FormatDraft d = formats.draft[s.kind];
    JsonView at = formats.at[s.kind] ? *formats.at[s.kind] : layers;
    if (override_at[i]) {
      read_linear_format(*override_at[i], d);
      at = *override_at[i];
    }
    m.linears.push_back(resolve_linear(d, s.name, kind.name, s.encoder, kind.in_dim, kind.out_dim, at));
  }
  return m;
}

std::string linear_kind_of(const std::string& layer_name) {
  if (layer_name.rfind("enc", 0) != 0 || layer_name.find('.') == std::string::npos) return layer_name;
  const std::string part = layer_name.substr(layer_name.find('.') + 1);
  return part == "ffn_in" || part == "ffn_out" ? part : "attention";
}

ModelSpec load_model_spec(const std::string& path) {
  return parse_model_spec(load_json_file(path), path);
}

long double dense_step_macs_bound(const ModelSpec& m, long double tokens) {
  const long double d = static_cast<long double>(m.d_model), f = static_cast<long double>(m.ffn_dim);
  return 3.0L * tokens *
         (static_cast<long double>(std::max(m.encoders, 1)) *
              (4 * d * d + 2 * d * f + 2 * static_cast<long double>(m.seq_len) * d) +
          d * static_cast<long double>(m.intents + m.slot_tags));
}

}  // namespace ttsim
