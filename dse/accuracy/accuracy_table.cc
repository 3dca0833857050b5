#include "dse/accuracy/accuracy_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <tuple>

#include <fmt/format.h>

namespace ttsim::dse {

namespace {

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int32_t>::max();

Json spread_to_json(const Spread& s) {
  return {{"mean", s.mean}, {"std", s.std ? Json(*s.std) : Json(nullptr)}};
}

std::optional<std::int64_t> optional_count(const JsonView& v) {
  if (v.raw().is_null()) return std::nullopt;
  return v.as_int(1, std::numeric_limits<std::int64_t>::max());
}

Json optional_json(const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

/// True for "enc<E>.<x>" with E < encoders and x one of q, k, v, o, ffn_in, ffn_out: a TT
/// encoder layer of ModelSpec::linears.
bool encoder_layer_name(const std::string& name, std::int64_t encoders) {
  if (name.rfind("enc", 0) != 0) return false;
  std::size_t i = 3;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
  if (i == 3 || i - 3 > 4 || i >= name.size() || name[i] != '.' || (i - 3 > 1 && name[3] == '0')) return false;
  if (std::stoll(name.substr(3, i - 3)) >= encoders) return false;
  const std::string x = name.substr(i + 1);
  return x == "q" || x == "k" || x == "v" || x == "o" || x == "ffn_in" || x == "ffn_out";
}

/// Exactly one of "tt_rank" and "layer_ranks"; layer_ranks names every TT encoder layer of
/// the model (q, k, v, o, ffn_in, ffn_out of each encoder), with ranks not all equal.
AccuracyKey key_from_json(const JsonView& v) {
  AccuracyKey k;
  k.encoders = v.at("encoders").as_int(1, 1024);
  k.ttm_rank = v.at("ttm_rank").as_int(1, 4096);
  const auto layers = v.find("layer_ranks");
  if (layers && v.find("tt_rank")) v.fail("one of tt_rank and layer_ranks", "both");
  if (!layers) {
    k.tt_rank = v.at("tt_rank").as_int(1, 4096);
    return k;
  }
  const std::size_t want = static_cast<std::size_t>(6 * k.encoders);
  if (!layers->is_object()) layers->fail("an object of layer name -> TT rank");
  for (auto it = layers->raw().begin(); it != layers->raw().end(); ++it) {
    if (!encoder_layer_name(it.key(), k.encoders)) {
      layers->at(it.key()).fail(fmt::format("a TT encoder layer of a {}-encoder model (enc<0..{}>.<q|k|v|o|ffn_in|ffn_out>)",
                                            k.encoders, k.encoders - 1),
                                "\"" + it.key() + "\"");
    }
    k.layer_ranks[it.key()] = layers->at(it.key()).as_int(1, 4096);
  }
  if (k.layer_ranks.size() != want) {
    layers->fail(fmt::format("the rank of every TT encoder layer ({} layers for {} encoders)", want, k.encoders),
                 fmt::format("{} layer(s)", k.layer_ranks.size()));
  }
  const std::int64_t first = k.layer_ranks.begin()->second;
  if (std::all_of(k.layer_ranks.begin(), k.layer_ranks.end(), [&](const auto& l) { return l.second == first; })) {
    layers->fail("ranks that differ between layers", fmt::format("every layer at rank {} (use tt_rank)", first));
  }
  return k;
}

Json layer_ranks_json(const AccuracyKey& k) {
  Json j = Json::object();
  for (const auto& [layer, rank] : k.layer_ranks) j[layer] = rank;
  return j;
}

Json key_to_json(const AccuracyKey& k) {
  if (k.per_layer()) {
    return {{"encoders", k.encoders}, {"layer_ranks", layer_ranks_json(k)}, {"ttm_rank", k.ttm_rank}};
  }
  return {{"encoders", k.encoders}, {"tt_rank", k.tt_rank}, {"ttm_rank", k.ttm_rank}};
}

/// The stored {"mean", "std"} of `v` must be the runs' (to 1e-9).
void check_spread(const JsonView& v, const Spread& want) {
  v.allow_keys({"mean", "std"});
  const double mean = v.at("mean").as_double(0, 1);
  if (std::abs(mean - want.mean) > 1e-9) {
    v.at("mean").fail(fmt::format("{:.12g} (the mean of the runs)", want.mean));
  }
  const JsonView s = v.at("std");
  if (!want.std) {
    if (!s.raw().is_null()) s.fail("null (one run has no sample standard deviation)");
  } else if (s.raw().is_null() || std::abs(s.as_double(0, 1) - *want.std) > 1e-9) {
    s.fail(fmt::format("{:.12g} (the sample standard deviation of the runs)", *want.std));
  }
}

}  // namespace

bool AccuracyKey::operator<(const AccuracyKey& o) const {
  const bool a = per_layer(), b = o.per_layer();
  return std::tie(encoders, ttm_rank, a, tt_rank, layer_ranks) <
         std::tie(o.encoders, o.ttm_rank, b, o.tt_rank, o.layer_ranks);
}

std::string AccuracyKey::describe() const {
  if (!per_layer()) return fmt::format("encoders {}, TT rank {}, TTM rank {}", encoders, tt_rank, ttm_rank);
  std::string layers;
  for (const auto& [layer, rank] : layer_ranks) layers += fmt::format("{}{} {}", layers.empty() ? "" : ", ", layer, rank);
  return fmt::format("encoders {}, per-layer TT ranks ({}), TTM rank {}", encoders, layers, ttm_rank);
}

Spread spread_of(const std::vector<double>& values) {
  Spread s;
  if (values.empty()) return s;
  double sum = 0;
  for (double x : values) sum += x;
  s.mean = sum / static_cast<double>(values.size());
  if (values.size() > 1) {
    double ss = 0;
    for (double x : values) ss += (x - s.mean) * (x - s.mean);
    s.std = std::sqrt(ss / static_cast<double>(values.size() - 1));
  }
  return s;
}

void summarize(AccuracyEntry& e) {
  std::sort(e.runs.begin(), e.runs.end(),
            [](const AccuracyRun& a, const AccuracyRun& b) { return a.seed < b.seed; });
  std::vector<double> ti, ts, di;
  for (const auto& r : e.runs) {
    ti.push_back(r.test_intent_accuracy);
    ts.push_back(r.test_slot_f1);
    di.push_back(r.dev_intent_accuracy);
  }
  e.test_intent_accuracy = spread_of(ti);
  e.test_slot_f1 = spread_of(ts);
  e.dev_intent_accuracy = spread_of(di);
}

const AccuracyEntry* AccuracyTable::find(const AccuracyKey& key) const {
  for (const auto& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

Json accuracy_run_to_json(const AccuracyRun& r) {
  return {{"seed", r.seed},
          {"best_epoch", r.best_epoch},
          {"stopped_epoch", r.stopped_epoch},
          {"test_intent_accuracy", r.test_intent_accuracy},
          {"test_slot_f1", r.test_slot_f1},
          {"dev_intent_accuracy", r.dev_intent_accuracy},
          {"dev_slot_f1", r.dev_slot_f1},
          {"train_loss", r.train_loss},
          {"seconds", r.seconds},
          {"samples_per_second", r.samples_per_second}};
}

AccuracyRun accuracy_run_from_json(const JsonView& v) {
  v.allow_keys({"seed", "best_epoch", "stopped_epoch", "test_intent_accuracy", "test_slot_f1",
                "dev_intent_accuracy", "dev_slot_f1", "train_loss", "seconds",
                "samples_per_second"});
  AccuracyRun r;
  r.seed = v.at("seed").as_int(0, std::numeric_limits<std::int64_t>::max());
  r.stopped_epoch = v.at("stopped_epoch").as_int(1, kMaxInt);
  r.best_epoch = v.at("best_epoch").as_int(1, r.stopped_epoch);
  r.test_intent_accuracy = v.at("test_intent_accuracy").as_double(0, 1);
  r.test_slot_f1 = v.at("test_slot_f1").as_double(0, 1);
  r.dev_intent_accuracy = v.at("dev_intent_accuracy").as_double(0, 1);
  r.dev_slot_f1 = v.at("dev_slot_f1").as_double(0, 1);
  r.train_loss = v.at("train_loss").as_double(0, 1e9);
  r.seconds = v.at("seconds").as_double(0, 1e12);
  r.samples_per_second = v.at("samples_per_second").as_double(0, 1e12);
  return r;
}

AccuracyTable parse_accuracy_table(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  root.allow_keys({"description", "fixed", "training", "provenance", "entries", "missing"});
  AccuracyTable t;
  t.file = file;
  t.description = root.at("description").as_string();
  const JsonView fixed = root.at("fixed");
  if (!fixed.is_object()) fixed.fail("an object of model fields");
  for (auto it = fixed.raw().begin(); it != fixed.raw().end(); ++it) {
    fixed.at(it.key()).as_int(1, std::numeric_limits<std::int64_t>::max());
  }
  t.fixed = fixed.raw();

  const JsonView tr = root.at("training");
  tr.allow_keys({"engine", "lr", "max_epochs", "patience", "selection", "limit", "eval_limit",
                 "test_samples"});
  t.training.engine = tr.at("engine").as_string();
  t.training.lr = tr.at("lr").as_double(1e-12, 1e6);
  t.training.max_epochs = tr.at("max_epochs").as_int(1, kMaxInt);
  t.training.patience = tr.at("patience").as_int(0, kMaxInt);
  t.training.selection = tr.at("selection").as_string();
  t.training.limit = optional_count(tr.at("limit"));
  t.training.eval_limit = optional_count(tr.at("eval_limit"));
  t.training.test_samples = tr.at("test_samples").as_int(1, kMaxInt);

  const JsonView prov = root.at("provenance");
  prov.allow_keys({"command", "data", "grid", "git_commit"});
  for (const char* k : {"command", "data", "grid", "git_commit"}) prov.at(k).as_string();
  t.provenance = prov.raw();

  for (const auto& ev : root.at("entries").as_array(0)) {
    ev.allow_keys({"encoders", "tt_rank", "layer_ranks", "ttm_rank", "model", "n", "test_intent_accuracy",
                   "test_slot_f1", "dev_intent_accuracy", "runs"});
    AccuracyEntry e;
    e.key = key_from_json(ev);
    if (t.find(e.key)) ev.fail("each (encoders, tt_rank or layer_ranks, ttm_rank) once", e.key.describe() + " again");
    e.model = ev.at("model").as_string();
    for (const auto& rv : ev.at("runs").as_array(1)) {
      AccuracyRun r = accuracy_run_from_json(rv);
      for (const auto& seen : e.runs) {
        if (seen.seed == r.seed) rv.at("seed").fail("each seed once", fmt::format("seed {} again", r.seed));
      }
      if (r.stopped_epoch > t.training.max_epochs) {
        rv.at("stopped_epoch").fail(fmt::format("at most /training/max_epochs = {}", t.training.max_epochs));
      }
      e.runs.push_back(r);
    }
    summarize(e);
    const auto n = ev.at("n").as_int(1, kMaxInt);
    if (n != static_cast<std::int64_t>(e.runs.size())) {
      ev.at("n").fail(fmt::format("{} (the number of runs)", e.runs.size()));
    }
    check_spread(ev.at("test_intent_accuracy"), e.test_intent_accuracy);
    check_spread(ev.at("test_slot_f1"), e.test_slot_f1);
    check_spread(ev.at("dev_intent_accuracy"), e.dev_intent_accuracy);
    t.entries.push_back(std::move(e));
  }
  std::sort(t.entries.begin(), t.entries.end(),
            [](const AccuracyEntry& a, const AccuracyEntry& b) { return a.key < b.key; });
  for (const auto& mv : root.at("missing").as_array(0)) {
    mv.allow_keys({"encoders", "tt_rank", "layer_ranks", "ttm_rank", "seeds"});
    MissingRuns m;
    m.key = key_from_json(mv);
    m.seeds = mv.at("seeds").as_int_list(0, std::numeric_limits<std::int64_t>::max(), 1);
    t.missing.push_back(std::move(m));
  }
  return t;
}

AccuracyTable load_accuracy_table(const std::string& path) {
  return parse_accuracy_table(load_json_file(path), path);
}

Json accuracy_table_to_json(const AccuracyTable& t) {
  const auto& tr = t.training;
  Json j = {{"description", t.description},
            {"fixed", t.fixed.is_null() ? Json::object() : t.fixed},
            {"training",
             {{"engine", tr.engine},
              {"lr", tr.lr},
              {"max_epochs", tr.max_epochs},
              {"patience", tr.patience},
              {"selection", tr.selection},
              {"limit", optional_json(tr.limit)},
              {"eval_limit", optional_json(tr.eval_limit)},
              {"test_samples", tr.test_samples}}},
            {"provenance", t.provenance.is_null() ? Json::object() : t.provenance},
            {"entries", Json::array()},
            {"missing", Json::array()}};
  for (const auto& e : t.entries) {
    Json ej = key_to_json(e.key);
    ej["model"] = e.model;
    ej["n"] = e.runs.size();
    ej["test_intent_accuracy"] = spread_to_json(e.test_intent_accuracy);
    ej["test_slot_f1"] = spread_to_json(e.test_slot_f1);
    ej["dev_intent_accuracy"] = spread_to_json(e.dev_intent_accuracy);
    ej["runs"] = Json::array();
    for (const auto& r : e.runs) ej["runs"].push_back(accuracy_run_to_json(r));
    j["entries"].push_back(std::move(ej));
  }
  for (const auto& m : t.missing) {
    Json mj = key_to_json(m.key);
    mj["seeds"] = m.seeds;
    j["missing"].push_back(std::move(mj));
  }
  return j;
}

Json accuracy_table_summary(const AccuracyTable& t) {
  Json doc = accuracy_table_to_json(t);
  Json measured = Json::array();
  for (const auto& e : t.entries) {
    measured.push_back({e.key.encoders, e.key.per_layer() ? layer_ranks_json(e.key) : Json(e.key.tt_rank),
                        e.key.ttm_rank, e.runs.size()});
  }
  std::size_t missing = 0;
  for (const auto& m : t.missing) missing += m.seeds.size();
  return {{"file", t.file},           {"description", t.description}, {"fixed", doc["fixed"]},
          {"training", doc["training"]}, {"provenance", doc["provenance"]},
          {"measured", measured},      {"missing_runs", missing}};
}

}  // namespace ttsim::dse
