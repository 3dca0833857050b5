#include "dse/accuracy/accuracy_grid_spec.h"

#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/errors.h"
#include "dse/accuracy/accuracy_lookup.h"
#include "dse/space/axes.h"
#include "dse/space/sweep_spec.h"

namespace ttsim::dse {

namespace {

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int32_t>::max();

std::vector<std::int64_t> distinct_ints(const JsonView& v, std::int64_t min, std::int64_t max) {
  const auto list = v.as_int_list(min, max, 1);
  std::set<std::int64_t> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!seen.insert(list[i]).second) v.at(i).fail("each value once", fmt::format("{} again", list[i]));
  }
  return list;
}

/// Encoder count -> (base model path, document), for the layer_ranks designs.
using BaseModels = std::map<std::int64_t, std::pair<std::string, Json>>;

/// The runs (seed not yet set) of the grid's "layer_ranks" designs, appended to `by_model`
/// (which holds the uniform-rank runs, so a design repeating one of them is refused). Errors
/// as parse_grid_spec's.
void add_layer_rank_designs(const JsonView& designs, const BaseModels& base_of, const Json& fixed,
                            std::vector<GridRun>& by_model) {
  std::set<std::string> names;
  for (const auto& dv : designs.as_array(0)) {
    dv.allow_keys({"name", "encoders", "ranks"});
    const std::string name = dv.at("name").as_string();
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
      dv.at("name").fail("a name of a-z, 0-9 and _ (it names the run files)", "\"" + name + "\"");
    }
    if (!names.insert(name).second) dv.at("name").fail("each name once", "\"" + name + "\" again");
    const std::int64_t enc = dv.at("encoders").as_int(1, 1024);
    const auto base = base_of.find(enc);
    if (base == base_of.end()) dv.at("encoders").fail("the encoder count of one of /models", std::to_string(enc));
    const JsonView ranks = dv.at("ranks");
    if (!ranks.is_object()) ranks.fail("an object of TT rank axis -> rank");
    if (ranks.raw().empty()) ranks.fail("an object of TT rank axis -> rank", "an empty object");
    Json model = base->second.second;
    Json arch = Json::object();
    for (auto it = ranks.raw().begin(); it != ranks.raw().end(); ++it) {
      const std::string axis = it.key();
      const bool kind_axis = axis == "tt_rank.attention" || axis == "tt_rank.ffn_in" || axis == "tt_rank.ffn_out";
      const int axis_enc = layer_rank_axis_encoder(axis);
      if (!kind_axis && (axis_enc < 0 || axis_enc >= enc)) {
        ranks.at(axis).fail(fmt::format("a TT rank axis of a {}-encoder model (tt_rank.<attention|ffn_in|ffn_out> "
                                        "or tt_rank.enc<0..{}>.<q|k|v|o|attention|ffn_in|ffn_out>)",
                                        enc, enc - 1),
                            "\"" + axis + "\"");
      }
      validate_axis_value(axis, ranks.at(axis));
      apply_axis(axis, it.value(), model, arch);
    }
    std::string why;
    const auto key = accuracy_key_of(model, fixed, why);
    if (!key) ranks.fail("ranks the accuracy table can key", why);
    if (!key->per_layer()) {
      ranks.fail("ranks that differ between TT layers (a uniform rank belongs in /tt_ranks)",
                 fmt::format("every TT layer at rank {}", key->tt_rank));
    }
    for (const auto& r : by_model) {
      if (r.key == *key) ranks.fail("ranks no other design has", "the ranks of " + r.model_name);
    }
    model["name"] = fmt::format("{}_{}", model.value("name", std::string("model")), name);
    GridRun r;
    r.key = *key;
    r.base_file = base->second.first;
    r.model = model;
    r.model_name = model["name"].get<std::string>();
    r.label = name;
    by_model.push_back(std::move(r));
  }
}

}  // namespace

GridSpec parse_grid_spec(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  root.allow_keys({"description", "models", "tt_ranks", "seeds", "engine", "lr", "max_epochs",
                   "patience", "layer_ranks"});
  GridSpec g;
  g.file = file;
  if (auto d = root.find("description")) g.description = d->as_string();
  g.tt_ranks = distinct_ints(root.at("tt_ranks"), 1, 4096);
  g.seeds = distinct_ints(root.at("seeds"), 0, std::numeric_limits<std::int64_t>::max());
  g.engine = root.at("engine").as_enum({"reference", "hls", "dense"});
  g.lr = root.at("lr").as_double(1e-12, 1e6);
  g.max_epochs = root.at("max_epochs").as_int(1, kMaxInt);
  g.patience = root.at("patience").as_int(0, kMaxInt);

  BaseModels base_of;
  std::vector<GridRun> by_model;  // models × ranks, then layer_ranks designs; seed not yet set
  for (const auto& mv : root.at("models").as_array(1)) {
    const std::string given = mv.as_string();
    const std::string path = find_config_path(given, file);
    if (path.empty()) mv.fail("a path to an existing model file", "\"" + given + "\" (no such file)");
    const Json base = load_json_file(path);
    JsonView bv(base, path);
    const std::int64_t enc = bv.at("encoders").as_int(1, 1024);
    if (!base_of.emplace(enc, std::make_pair(path, base)).second) {
      mv.fail("one model per encoder count", fmt::format("a second model with {} encoders", enc));
    }
    Json fixed = Json::object();
    for (const char* k : {"d_model", "heads", "ffn_dim", "seq_len"}) {
      fixed[k] = bv.at(k).as_int(1, std::numeric_limits<std::int64_t>::max());
    }
    if (g.fixed.is_null()) {
      g.fixed = fixed;
    } else if (fixed != g.fixed) {
      mv.fail("a model with the first model's d_model, heads, ffn_dim and seq_len " + g.fixed.dump(),
              fixed.dump() + " in " + path);
    }
    const std::int64_t ttm = bv.at("token_embedding").at("rank").as_int(1, 4096);
    const std::string name = bv.at("name").as_string();
    g.model_files.push_back(path);
    for (std::int64_t rank : g.tt_ranks) {
      Json model = base;
      Json arch = Json::object();
      apply_axis("tt_rank", Json(rank), model, arch);
      model["name"] = fmt::format("{}_r{}", name, rank);
      GridRun r;
      r.key = AccuracyKey{enc, rank, ttm};
      r.base_file = path;
      r.model = model;
      r.model_name = model["name"].get<std::string>();
      by_model.push_back(std::move(r));
    }
  }
  if (auto designs = root.find("layer_ranks")) add_layer_rank_designs(*designs, base_of, g.fixed, by_model);
  // Seed-major: every key gets its first seed before any key gets its second, so a grid
  // stopped halfway still covers every (encoders, rank).
  for (std::int64_t seed : g.seeds) {
    for (GridRun r : by_model) {
      r.seed = seed;
      r.id = r.key.per_layer() ? fmt::format("e{}_{}_ttm{}_s{}", r.key.encoders, r.label, r.key.ttm_rank, seed)
                               : fmt::format("e{}_tt{}_ttm{}_s{}", r.key.encoders, r.key.tt_rank, r.key.ttm_rank, seed);
      g.runs.push_back(std::move(r));
    }
  }
  return g;
}

GridSpec load_grid_spec(const std::string& path) { return parse_grid_spec(load_json_file(path), path); }

std::size_t best_epoch_index(const std::vector<double>& dev_intent) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < dev_intent.size(); ++i) {
    if (dev_intent[i] > dev_intent[best]) best = i;
  }
  return best;
}

bool should_stop(const std::vector<double>& dev_intent, std::int64_t patience) {
  if (patience <= 0 || dev_intent.empty()) return false;
  const std::size_t since_best = dev_intent.size() - 1 - best_epoch_index(dev_intent);
  return static_cast<std::int64_t>(since_best) >= patience;
}

}  // namespace ttsim::dse
