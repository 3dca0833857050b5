#include "dse/space/axes.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "core/errors.h"
#include "hw/arch_spec.h"
#include "models/model_spec.h"

namespace ttsim::dse {

namespace {

const char* const kTtKinds[] = {"attention", "ffn_in", "ffn_out"};

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Arch members edited by each named arch axis.
std::vector<std::string> arch_pointers(const std::string& name) {
  if (name == "flow") return {"/flows/attention", "/flows/ffn_in", "/flows/ffn_out"};
  if (starts_with(name, "flow.")) return {"/flows/" + name.substr(5)};
  if (name == "engines" || name == "engines.contraction") return {"/contraction/engines"};
  if (starts_with(name, "engines.")) return {"/nonlinear/" + name.substr(8) + "/count"};
  if (name == "lanes") return {"/contraction/lanes"};
  if (name == "lanes_per_bank") return {"/contraction/lanes_per_bank"};
  if (name == "nonlinear_lanes") {
    return {"/nonlinear/softmax/lanes", "/nonlinear/layernorm/lanes", "/nonlinear/gelu/lanes",
            "/nonlinear/elementwise/lanes", "/nonlinear/loss/lanes", "/nonlinear/update/lanes"};
  }
  if (starts_with(name, "lanes.")) return {"/nonlinear/" + name.substr(6) + "/lanes"};
  if (name == "policy") return {"/scheduling/policy"};
  if (name == "parallel_merges" || name == "qkv_reschedule" || name == "fusion") {
    return {"/scheduling/" + name};
  }
  if (name == "memory_strategy") return {"/memory/strategy"};
  if (name == "recompute") return {"/memory/recompute"};
  if (name == "clock_mhz") return {"/clock_mhz"};
  if (name == "sequence_length") return {"/sequence_length"};
  return {};
}


/// The layers of a per-layer rank axis "tt_rank.enc<E>.<x>" (x: q, k, v, o, attention = the
/// four, ffn_in, ffn_out) as (encoder, layer names); encoder -1 when `name` is not one.
std::pair<int, std::vector<std::string>> layer_rank_axis(const std::string& name) {
  const std::string prefix = "tt_rank.enc";
  if (!starts_with(name, prefix)) return {-1, {}};
  std::size_t i = prefix.size(), digits = 0;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && digits < 5) ++i, ++digits;
  if (digits == 0 || i >= name.size() || name[i] != '.' || (digits > 1 && name[prefix.size()] == '0')) return {-1, {}};
  const int encoder = std::stoi(name.substr(prefix.size(), digits));
  const std::string x = name.substr(i + 1);
  std::vector<std::string> layers;
  if (x == "attention") {
    layers = {"q", "k", "v", "o"};
  } else if (x == "q" || x == "k" || x == "v" || x == "o" || x == "ffn_in" || x == "ffn_out") {
    layers = {x};
  } else {
    return {-1, {}};
  }
  for (auto& l : layers) l = "enc" + std::to_string(encoder) + "." + l;
  return {encoder, layers};
}

}  // namespace

std::vector<std::string> layer_rank_axis_layers(const std::string& name) { return layer_rank_axis(name).second; }

int layer_rank_axis_encoder(const std::string& name) { return layer_rank_axis(name).first; }

const std::vector<std::string>& named_axes() {
  static const std::vector<std::string> names = {
      "encoders",        "tt_rank",        "tt_rank.attention", "tt_rank.ffn_in",
      "tt_rank.ffn_out", "ttm_rank",       "flow",              "flow.attention",
      "flow.ffn_in",     "flow.ffn_out",   "engines",           "engines.contraction",
      "engines.softmax", "engines.layernorm", "engines.gelu",     "engines.elementwise",
      "engines.loss",    "engines.update",  "lanes",             "lanes_per_bank",   "nonlinear_lanes",
      "lanes.softmax",   "lanes.layernorm", "lanes.gelu",        "lanes.elementwise",
      "lanes.loss",      "lanes.update",
      "policy",          "parallel_merges", "qkv_reschedule",   "fusion",
      "memory_strategy", "recompute",      "clock_mhz",        "sequence_length"};
  return names;
}

std::vector<std::string> canonical_axis_order(const std::vector<std::string>& names) {
  auto has = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  std::vector<std::string> layer, pointer;
  for (const std::string& n : names) {
    if (layer_rank_axis(n).first >= 0) {
      layer.push_back(n);
    } else if (std::find(named_axes().begin(), named_axes().end(), n) == named_axes().end()) {
      pointer.push_back(n);
    }
  }
  std::sort(layer.begin(), layer.end());
  std::sort(pointer.begin(), pointer.end());
  std::vector<std::string> order;
  for (const std::string& n : named_axes()) {
    if (has(n)) order.push_back(n);
    if (n == "ttm_rank") order.insert(order.end(), layer.begin(), layer.end());
  }
  order.insert(order.end(), pointer.begin(), pointer.end());
  return order;
}

std::vector<std::string> legacy_axis_order(const std::vector<std::string>& names) {
  auto has = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  std::vector<std::string> rest;
  for (const std::string& n : names) {
    if (std::find(named_axes().begin(), named_axes().end(), n) == named_axes().end()) rest.push_back(n);
  }
  std::sort(rest.begin(), rest.end());
  std::vector<std::string> order;
  for (const std::string& n : named_axes()) {
    if (has(n)) order.push_back(n);
  }
  order.insert(order.end(), rest.begin(), rest.end());
  return order;
}

bool is_known_axis(const std::string& name) {
  const auto& n = named_axes();
  if (std::find(n.begin(), n.end(), name) != n.end()) return true;
  if (layer_rank_axis(name).first >= 0) return true;
  return (starts_with(name, "model:/") && name.size() > 7) ||
         (starts_with(name, "arch:/") && name.size() > 6);
}

void validate_axis_value(const std::string& name, const JsonView& v) {
  if (name == "encoders") {
    v.as_int(1, 1024);
  } else if (starts_with(name, "tt_rank") || name == "ttm_rank") {
    v.as_int(1, 4096);
  } else if (starts_with(name, "flow")) {
    v.as_enum({"mm", "tt", "btt"});
  } else if (name == "engines" || starts_with(name, "engines.") || name == "lanes" || name == "nonlinear_lanes" ||
             starts_with(name, "lanes.")) {
    v.as_int(1, 4096);
  } else if (name == "policy") {
    v.as_enum({"sequential", "parallel"});
  } else if (name == "parallel_merges" || name == "qkv_reschedule" || name == "fusion") {
    v.as_bool();
  } else if (name == "memory_strategy") {
    v.as_enum({"naive", "grouped"});
  } else if (name == "lanes_per_bank") {
    v.as_int(1, 2);
  } else if (name == "recompute") {
    v.as_enum(recompute_choices());
  } else if (name == "clock_mhz") {
    v.as_double(1, 2000);
  } else if (name == "sequence_length") {
    v.as_enum({"padded", "effective"});
  } else if (v.is_array() || v.is_object()) {
    v.fail("a scalar (number, string or boolean)");
  }
}

namespace {

/// The reference tokens of `p`, unescaped (~1 → /, ~0 → ~).
std::vector<std::string> pointer_tokens(const Json::json_pointer& p) {
  std::vector<std::string> tokens;
  const std::string text = p.to_string();
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('/', at + 1), text.size());
    std::string t = text.substr(at + 1, end - at - 1);
    for (std::size_t k = 0; (k = t.find("~1", k)) != std::string::npos; ++k) t.replace(k, 2, "/");
    for (std::size_t k = 0; (k = t.find("~0", k)) != std::string::npos; ++k) t.replace(k, 2, "~");
    tokens.push_back(std::move(t));
    at = end;
  }
  return tokens;
}

}  // namespace

AxisEditor::AxisEditor(const std::string& name) : name_(name) {
  auto [encoder, layers] = layer_rank_axis(name);
  if (encoder >= 0) {
    kind_ = Kind::kLayerRank;
    layers_ = std::move(layers);
    // The first layer's rank: its own override, else its kind's.
    read_ = {Json::json_pointer("/overrides/" + layers_.front() + "/rank"),
             Json::json_pointer("/layers/" + linear_kind_of(layers_.front()) + "/rank")};
  } else if (name == "encoders") {
    kind_ = Kind::kModelMember;
    write_ = read_ = {Json::json_pointer("/encoders")};
  } else if (name == "tt_rank") {
    kind_ = Kind::kKindRank;
    layers_.assign(std::begin(kTtKinds), std::end(kTtKinds));
    read_ = {Json::json_pointer("/layers/attention/rank")};
  } else if (starts_with(name, "tt_rank.")) {
    kind_ = Kind::kKindRank;
    layers_ = {name.substr(8)};
    read_ = {Json::json_pointer("/layers/" + name.substr(8) + "/rank")};
  } else if (name == "ttm_rank") {
    kind_ = Kind::kTtmRank;
    read_ = {Json::json_pointer("/token_embedding/rank")};
  } else if (starts_with(name, "model:")) {
    kind_ = Kind::kModelMember;
    write_ = read_ = {Json::json_pointer(name.substr(6))};
  } else if (starts_with(name, "arch:")) {
    kind_ = Kind::kArchMember;
    write_ = read_ = {Json::json_pointer(name.substr(5))};
  } else {
    kind_ = Kind::kArchMember;
    for (const auto& p : arch_pointers(name)) write_.emplace_back(p);
    if (!write_.empty()) read_ = {write_.front()};
  }
  for (const auto& p : read_) read_tokens_.push_back(pointer_tokens(p));
}

void AxisEditor::apply(const Json& value, Json& model, Json& arch) const {
  auto set = [&](Json& doc, const char* which, const Json::json_pointer& p) {
    if (!doc.contains(p.parent_pointer())) {
      throw InputError("axis \"" + name_ + "\": the base " + which + " document has no member " +
                       p.parent_pointer().to_string());
    }
    doc[p] = value;
  };
  switch (kind_) {
    case Kind::kLayerRank:
      // Written for every point; the model loader refuses the point (not evaluated, with its
      // reason) when its model has no such encoder or the layer is not TT.
      for (const std::string& layer : layers_) {
        Json& o = model["overrides"][layer];
        if (o.is_null()) o = Json::object();
        o.erase("ranks");
        o["rank"] = value;
      }
      return;
    case Kind::kKindRank:
      for (const std::string& kind : layers_) {
        if (!model.contains("layers") || !model["layers"].contains(kind)) {
          throw InputError("axis \"" + name_ + "\": the base model has no /layers/" + kind);
        }
        Json& layer = model["layers"][kind];
        if (layer.value("format", std::string()) != "tt") continue;  // dense layers have no rank
        layer.erase("ranks");
        layer["rank"] = value;
      }
      return;
    case Kind::kTtmRank: {
      if (!model.contains("token_embedding")) {
        throw InputError("axis \"ttm_rank\": the base model has no /token_embedding");
      }
      Json& e = model["token_embedding"];
      if (e.value("format", std::string()) != "ttm") return;
      e.erase("ranks");
      e["rank"] = value;
      return;
    }
    case Kind::kModelMember:
      for (const auto& p : write_) set(model, "model", p);
      return;
    case Kind::kArchMember:
      if (write_.empty()) throw InputError("unknown axis \"" + name_ + "\"");
      for (const auto& p : write_) set(arch, "arch", p);
      return;
  }
}

std::vector<std::string> AxisEditor::members_set() const {
  std::vector<std::string> out;
  switch (kind_) {
    case Kind::kLayerRank:  // sets "rank", removes "ranks"
      for (const std::string& l : layers_) {
        out.push_back("model:/overrides/" + l + "/rank");
        out.push_back("model:/overrides/" + l + "/ranks");
      }
      break;
    case Kind::kKindRank:
      for (const std::string& k : layers_) {
        out.push_back("model:/layers/" + k + "/rank");
        out.push_back("model:/layers/" + k + "/ranks");
      }
      break;
    case Kind::kTtmRank:
      out.push_back("model:/token_embedding/rank");
      out.push_back("model:/token_embedding/ranks");
      break;
    case Kind::kModelMember:
      for (const auto& p : write_) out.push_back("model:" + p.to_string());
      break;
    case Kind::kArchMember:
      for (const auto& p : write_) out.push_back("arch:" + p.to_string());
      break;
  }
  return out;
}

Json AxisEditor::current(const Json& model, const Json& arch) const {
  const Json& doc = kind_ == Kind::kArchMember ? arch : model;
  for (std::size_t i = 0; i < read_.size(); ++i) {
    // One walk through objects (contains() then at() would take two); a pointer into an
    // array takes json_pointer's own rules for its index.
    const Json* v = &doc;
    bool through_array = false;
    for (const std::string& t : read_tokens_[i]) {
      if (v->is_array()) {
        through_array = true;
        break;
      }
      if (!v->is_object()) {
        v = nullptr;
        break;
      }
      const auto it = v->find(t);
      v = it == v->end() ? nullptr : &*it;
      if (!v) break;
    }
    if (through_array) v = doc.contains(read_[i]) ? &doc.at(read_[i]) : nullptr;
    if (v && (!v->is_null() || kind_ != Kind::kLayerRank)) return *v;
  }
  return Json(nullptr);
}

void apply_axis(const std::string& name, const Json& value, Json& model, Json& arch) {
  AxisEditor(name).apply(value, model, arch);
}

Json axis_current_value(const std::string& name, const Json& model, const Json& arch) {
  return AxisEditor(name).current(model, arch);
}

}  // namespace ttsim::dse
