#include "dse/space/sweep_spec.h"

#include <atomic>

#include "hw/resource_fit.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "dse/space/axes.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"

namespace ttsim::dse {

namespace fs = std::filesystem;

const char* to_string(SystemcScope s) {
  switch (s) {
    case SystemcScope::kNone:
      return "analytic";
    case SystemcScope::kParetoFront:
      return "systemc_pareto";
    case SystemcScope::kAll:
      return "systemc_all";
  }
  return "?";
}

std::string find_config_path(const std::string& path, const std::string& relative_to_file) {
  if (fs::exists(path)) return path;
  if (fs::path(path).is_absolute()) return "";
  fs::path dir = fs::path(relative_to_file).parent_path();
  for (int up = 0; up < 8 && !dir.empty(); ++up) {
    const fs::path candidate = dir / path;
    if (fs::exists(candidate)) return candidate.lexically_normal().string();
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return "";
}

namespace {

/// The base model's encoder count when it holds an integer one, else 0 (the model loader
/// reports a malformed document when a point is evaluated).
int base_encoders(const Json& model) {
  if (!model.is_object()) return 0;
  const auto it = model.find("encoders");
  return it != model.end() && it->is_number_integer() ? it->get<int>() : 0;
}

std::string require_file(const JsonView& v, const std::string& sweep_file) {
  const std::string given = v.as_string();
  const std::string found = find_config_path(given, sweep_file);
  if (found.empty()) v.fail("a path to an existing file", "\"" + given + "\" (no such file)");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(found, ec)) {
    v.fail("a path to an existing file", "\"" + given + "\" (" + found + " is not a regular file)");
  }
  return found;
}

std::vector<Json> axis_values(const std::string& name, const JsonView& v) {
  std::vector<Json> out;
  if (v.is_array()) {
    for (const auto& e : v.as_array(1)) {
      validate_axis_value(name, e);
      out.push_back(e.raw());
    }
  } else if (v.is_object()) {
    v.allow_keys({"from", "to", "step"});
    const auto from = v.at("from").as_int(-(1LL << 40), 1LL << 40);
    const auto to = v.at("to").as_int(from, 1LL << 40);
    const auto step = v.get_int("step", 1, 1, 1LL << 40);
    if ((to - from) / step >= 100000) v.fail("a range of at most 100,000 values", "a larger range");
    for (auto x = from; x <= to; x += step) out.push_back(Json(x));
    // The first value is /from; a later one is from + i · step, bounded by /to.
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::string at = v.pointer() + (i == 0 ? "/from" : "/to");
      try {
        validate_axis_value(name, JsonView(out[i], v.file(), at));
      } catch (const ConfigError& e) {
        if (i == 0) throw;
        throw ConfigError(e.file(), at, e.expected(),
                          fmt::format("the range's value {} (from {} + {} × step {}, at most to {})", out[i].dump(),
                                      from, i, step, to));
      }
    }
  } else {
    v.fail("a list of values or a range {\"from\", \"to\", \"step\"}");
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (out[i] == out[j]) {
        v.fail("distinct values", "\"" + value_text(out[i]) + "\" twice");
      }
    }
  }
  return out;
}

Metric metric_at(const JsonView& v) {
  const std::string s = v.as_string();
  const auto m = parse_metric(s);
  if (!m) v.fail("a metric name (" + metric_names() + ")");
  return *m;
}

// The base documents ("base"), the accuracy table and the dataset lengths.
void parse_base(const JsonView& root, const std::string& file, SweepSpec& s) {
  JsonView base = root.at("base");
  base.allow_keys({"model", "arch", "device"});
  s.model_file = require_file(base.at("model"), file);
  s.arch_file = require_file(base.at("arch"), file);
  s.device_file = require_file(base.at("device"), file);
  s.model_doc = load_json_file(s.model_file);
  s.arch_doc = load_json_file(s.arch_file);
  s.device_doc = load_json_file(s.device_file);

  if (auto a = root.find("accuracy_table")) {
    // A table named but not found is an error, not a silently dropped constraint.
    s.accuracy_table_requested = a->as_string();
    s.accuracy_table = require_file(*a, file);
  }

  if (auto d = root.find("dataset")) {
    d->allow_keys({"lengths", "split"});
    s.lengths_file = require_file(d->at("lengths"), file);
    s.lengths_split = d->at("split").as_string();
  }
}

// The axis names of `axes` (the sweep's "axes", `raw` its document), each known and a valid
// pointer for a pointer axis, in canonical order (dse/space/axes.h canonical_axis_order): the
// point ids number the grid with the last axis varying fastest.
std::vector<std::string> axis_order(const JsonView& axes, const Json& raw) {
  if (!axes.is_object()) axes.fail("an object of axis name -> values");
  for (auto it = raw.begin(); it != raw.end(); ++it) {
    if (!is_known_axis(it.key())) {
      axes.at(it.key()).fail("a known axis (" + [] {
        std::string all;
        for (const auto& n : named_axes()) all += n + ", ";
        return all + "tt_rank.enc<E>.<q|k|v|o|attention|ffn_in|ffn_out>, model:/<pointer>, arch:/<pointer>)";
      }(), "unknown axis \"" + it.key() + "\"");
    }
    const std::string& key = it.key();
    for (const std::string prefix : {"model:", "arch:"}) {
      if (key.rfind(prefix, 0) != 0) continue;
      try {
        (void)Json::json_pointer(key.substr(prefix.size()));
      } catch (const Json::exception&) {
        axes.at(key).fail("a valid JSON pointer after " + prefix +
                              " (RFC 6901: each token after '/', '~' only as ~0 or ~1)",
                          "\"" + key + "\"");
      }
    }
  }
  std::vector<std::string> order;
  for (auto it = raw.begin(); it != raw.end(); ++it) order.push_back(it.key());
  return canonical_axis_order(order);
}

// The rank axes: tt_rank or the per-kind ones, not both; per-layer rank axes each set one
// layer at most, on an encoder that some point of the sweep has (a point with fewer
// encoders is infeasible, saying so).
void check_rank_axes(const JsonView& axes, const std::vector<std::string>& order, const SweepSpec& s) {
  if (axes.has("tt_rank")) {
    for (const char* k : {"tt_rank.attention", "tt_rank.ffn_in", "tt_rank.ffn_out"}) {
      if (axes.has(k)) axes.at(k).fail("either tt_rank or per-kind tt_rank.<kind>, not both", "both");
    }
  }
  std::map<std::string, std::string> owner;  // layer -> axis
  // The base model's encoder count read as its loader does (ConfigError at the model file's
  // /encoders when it is not an integer in range).
  if (s.model_doc.is_object() && s.model_doc.contains("encoders")) {
    (void)JsonView(s.model_doc, s.model_file).at("encoders").as_int(0, 1024);
  }
  int most_encoders = base_encoders(s.model_doc);
  if (axes.has("encoders")) {
    for (const Json& v : axis_values("encoders", axes.at("encoders"))) {
      if (v.is_number_integer()) most_encoders = std::max(most_encoders, v.get<int>());
    }
  }
  for (const auto& n : order) {
    const int e = layer_rank_axis_encoder(n);
    if (e < 0) continue;
    if (e >= most_encoders) {
      axes.at(n).fail("an encoder index below the sweep's largest encoder count (" +
                          std::to_string(most_encoders) + ")",
                      "encoder " + std::to_string(e));
    }
    for (const auto& layer : layer_rank_axis_layers(n)) {
      const auto [it, fresh] = owner.emplace(layer, n);
      if (!fresh) axes.at(n).fail("one axis per layer (" + layer + " is also set by " + it->second + ")", "two");
    }
  }
}

// Axes that set the same thing at two granularities: engines / engines.contraction, flow /
// flow.<kind>.
void check_exclusive_axes(const JsonView& axes) {
  if (axes.has("engines") && axes.has("engines.contraction")) {
    axes.at("engines.contraction").fail("either engines or engines.contraction, not both", "both");
  }
  if (axes.has("flow")) {
    for (const char* k : {"flow.attention", "flow.ffn_in", "flow.ffn_out"}) {
      if (axes.has(k)) axes.at(k).fail("either flow or per-kind flow.<kind>, not both", "both");
    }
  }
}

// The design space of the axes in `order` and their editors. Two axes setting one member (or
// one a member inside the other's) are refused: the later axis would overwrite the earlier
// one's value, so points would not have the values their ids name.
void build_space(const JsonView& axes, const std::vector<std::string>& order, SweepSpec& s) {
  std::vector<Axis> list;
  for (const auto& n : order) list.push_back({n, axis_values(n, axes.at(n))});
  s.space = DesignSpace(std::move(list));
  for (const Axis& a : s.space.axes()) s.editors.emplace_back(a.name);
  for (const AxisEditor& e : s.editors) s.base_values.push_back(e.current(s.model_doc, s.arch_doc));
  static std::atomic<std::uint64_t> sweeps_built{0};
  s.identity = ++sweeps_built;
  std::map<std::string, std::string> setter;  // member -> axis
  auto within = [](const std::string& a, const std::string& b) {  // a is b or inside it
    return a.size() >= b.size() && a.compare(0, b.size(), b) == 0 && (a.size() == b.size() || a[b.size()] == '/');
  };
  for (const AxisEditor& e : s.editors) {
    for (const std::string& m : e.members_set()) {
      for (const auto& [other, axis] : setter) {
        if (axis != e.name() && (within(m, other) || within(other, m))) {
          axes.at(e.name()).fail("one axis per member (" + m + " is also set by axis \"" + axis + "\")", "two");
        }
      }
      setter.emplace(m, e.name());
    }
  }
}

// A generic pointer axis must name a field of the base document: one the file sets or one
// its loader fills with a default. A typo ("arch:/contraction/lanez") is an input error here,
// before any evaluation, not a sweep of unevaluable points.
void check_pointer_axes(const JsonView& axes, const SweepSpec& s) {
  std::optional<Json> resolved_model, resolved_arch;
  for (const auto& a : s.space.axes()) {
    const bool is_model = a.name.rfind("model:", 0) == 0;
    if (!is_model && a.name.rfind("arch:", 0) != 0) continue;
    const Json& base = is_model ? s.model_doc : s.arch_doc;
    const Json::json_pointer p(a.name.substr(is_model ? 6 : 5));
    if (base.contains(p)) continue;
    std::optional<Json>& resolved = is_model ? resolved_model : resolved_arch;
    if (!resolved) {
      resolved = is_model ? parse_model_spec(s.model_doc, s.model_file).to_json()
                          : parse_arch_spec(s.arch_doc, s.arch_file).to_json();
    }
    if (resolved->contains(p)) continue;
    std::string known;
    if (resolved->contains(p.parent_pointer()) && resolved->at(p.parent_pointer()).is_object()) {
      for (const auto& [k, v] : resolved->at(p.parent_pointer()).items()) {
        (void)v;
        known += (known.empty() ? "" : ", ") + k;
      }
      known = "; " + (p.parent_pointer().empty() ? std::string("/") : p.parent_pointer().to_string()) +
              " has " + known;
    }
    axes.at(a.name).fail(std::string("a JSON pointer to a field of the base ") +
                             (is_model ? "model " + s.model_file : "arch " + s.arch_file) + known,
                         "\"" + p.to_string() + "\", which names no field");
  }
}

// True when `parse` returns rather than throwing InputError.
template <class Parse>
bool loads(Parse parse) {
  try {
    parse();
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// Applying every value of every axis to the base documents checks that they have the members
// the axes edit, and parsing the edited documents that each value is one the model / arch
// loaders accept (exit 2 at /axes/<key>/<i> now rather than points "not evaluated" later). A
// base document its loader refuses is reported by the run setup; its values are then only
// applied.
void check_axis_values(const JsonView& axes, const SweepSpec& s) {
  const bool model_loads = loads([&] { (void)parse_model_spec(s.model_doc, s.model_file); });
  const bool arch_loads = loads([&] { (void)parse_arch_spec(s.arch_doc, s.arch_file); });
  for (const auto& a : s.space.axes()) {
    const JsonView axis = axes.at(a.name);
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      auto at_value = [&] { return axis.is_array() && i < axis.raw().size() ? axis.at(i) : axis; };
      Json model = s.model_doc, arch = s.arch_doc;
      // A per-layer axis on an encoder the base model lacks is checked on a base with enough
      // encoders (the sweep's encoders axis provides them; checked above).
      const int layer_encoder = layer_rank_axis_encoder(a.name);
      if (model.is_object() && layer_encoder >= base_encoders(model)) model["encoders"] = layer_encoder + 1;
      try {
        apply_axis(a.name, a.values[i], model, arch);
      } catch (const InputError& e) {
        axis.fail("an axis the base files support", e.what());
      } catch (const Json::exception& e) {  // a base member of another type than the axis edits
        axis.fail("an axis the base files support",
                  "base documents whose members it edits have another type (" + std::string(e.what()) + ")");
      }
      const char* doc = "model:";
      try {
        if (model_loads && model != s.model_doc) (void)parse_model_spec(model, s.model_file);
        doc = "arch:";
        if (arch_loads && arch != s.arch_doc) (void)parse_arch_spec(arch, s.arch_file);
      } catch (const ConfigError& e) {
        // A refusal at a member this axis does not set depends on the other axes' values too
        // (e.g. lanes_per_bank 2 of the base with a narrower contraction): each such point is
        // then reported not evaluated, saying why, rather than the whole sweep refused.
        bool own = false;
        for (const std::string& m : AxisEditor(a.name).members_set()) {
          const std::string at = doc + e.pointer();
          own = own || at == m || at.rfind(m + "/", 0) == 0 || m.rfind(at + "/", 0) == 0;
        }
        if (!own) continue;
        at_value().fail(fmt::format("a value the base model {} and arch {} accept (value #{} of axis {})",
                                    s.model_file, s.arch_file, i, a.name),
                        fmt::format("{}, refused: {}", a.values[i].dump(), e.what()));
      } catch (const InputError& e) {
        at_value().fail(fmt::format("a value the base model {} and arch {} accept (value #{} of axis {})",
                                    s.model_file, s.arch_file, i, a.name),
                        fmt::format("{}, refused: {}", a.values[i].dump(), e.what()));
      }
    }
  }
}

// The axis value indices of reference `r`: its listed values, and for each unlisted axis the
// base files' value when it is one of the axis' values (kBaseValue otherwise), so a reference
// is the grid point with those values when it can be.
std::vector<int> reference_indices(const JsonView& r, const SweepSpec& s) {
  std::vector<int> idx(s.space.axes().size(), kBaseValue);
  if (auto vals = r.find("values")) {
    if (!vals->is_object()) vals->fail("an object of axis name -> value");
    for (auto it = vals->raw().begin(); it != vals->raw().end(); ++it) {
      const JsonView v = vals->at(it.key());
      std::size_t a = 0;
      while (a < s.space.axes().size() && s.space.axes()[a].name != it.key()) ++a;
      if (a == s.space.axes().size()) v.fail("the name of a swept axis", "\"" + it.key() + "\"");
      const auto& values = s.space.axes()[a].values;
      const auto pos = std::find(values.begin(), values.end(), it.value());
      if (pos == values.end()) v.fail("one of the axis' values");
      idx[a] = static_cast<int>(pos - values.begin());
    }
  }
  for (std::size_t a = 0; a < idx.size(); ++a) {
    if (idx[a] != kBaseValue) continue;
    const Json base = axis_current_value(s.space.axes()[a].name, s.model_doc, s.arch_doc);
    const auto& values = s.space.axes()[a].values;
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (values[k] == base) idx[a] = static_cast<int>(k);
    }
  }
  return idx;
}

void parse_references(const JsonView& root, SweepSpec& s) {
  const auto refs = root.find("reference");
  if (!refs) return;
  for (const auto& r : refs->as_array(1)) {
    r.allow_keys({"label", "values"});
    const std::string label = r.at("label").as_string();
    s.space.add_reference(reference_indices(r, s), label);
  }
}

// An empty design space: no axis and no reference design (the base design alone would be
// evaluated as an unlabelled point). Refused at /axes before any work.
void refuse_empty_space(const JsonView& axes, const std::vector<std::string>& order, const SweepSpec& s) {
  if (!order.empty() || !s.space.references().empty()) return;
  axes.fail("at least one axis with values (an empty \"axes\" sweeps nothing; to evaluate the base design alone, "
            "list it under \"reference\")",
            "{} and no \"reference\"");
}

void parse_constraints(const JsonView& root, ConstraintSpec& c) {
  const auto v = root.find("constraints");
  if (!v) return;
  v->allow_keys({"resource_headroom_pct", "max_epoch_seconds", "min_compression", "max_compression",
                 "min_accuracy"});
  c.resource_headroom_pct = v->get_double("resource_headroom_pct", kDefaultResourceHeadroomPct, 0, 99);
  if (auto x = v->find("max_epoch_seconds")) c.max_epoch_seconds = x->as_double(0, 1e12);
  if (auto x = v->find("min_compression")) c.min_compression = x->as_double(0, 1e12);
  if (auto x = v->find("max_compression")) c.max_compression = x->as_double(c.min_compression.value_or(0), 1e12);
  if (auto x = v->find("min_accuracy")) c.min_accuracy = x->as_double(0, 1);
}

std::vector<Metric> parse_objectives(const JsonView& root) {
  std::vector<Metric> objectives;
  for (const auto& o : root.at("objectives").as_array(1)) {
    const Metric m = metric_at(o);
    if (std::find(objectives.begin(), objectives.end(), m) != objectives.end()) {
      o.fail("distinct objectives", "\"" + std::string(metric_info(m).name) + "\" twice");
    }
    objectives.push_back(m);
  }
  return objectives;
}

// The "search" key: the strategy, parsed once here, and the settings it takes.
SearchSpec parse_search(const JsonView& root) {
  SearchSpec search;
  const auto se = root.find("search");
  if (!se) return search;
  const std::string strategy = se->at("strategy").as_enum({"grid", "random", "nsga2"});
  if (strategy == "grid") {
    search.strategy = Strategy::kGrid;
    se->allow_keys({"strategy"});
  } else if (strategy == "random") {
    search.strategy = Strategy::kRandom;
    se->allow_keys({"strategy", "count", "seed"});
    search.count = static_cast<std::uint64_t>(se->at("count").as_int(1, 1LL << 40));
    search.seed = static_cast<std::uint64_t>(se->get_int("seed", 1, 0, 1LL << 62));
  } else {
    search.strategy = Strategy::kNsga2;
    se->allow_keys({"strategy", "population", "generations", "seed"});
    search.population = static_cast<int>(se->get_int("population", 32, 4, 100000));
    search.generations = static_cast<int>(se->get_int("generations", 20, 1, 100000));
    search.seed = static_cast<std::uint64_t>(se->get_int("seed", 1, 0, 1LL << 62));
  }
  return search;
}

// "budget", "fidelity" and "choose".
void parse_run_settings(const JsonView& root, SweepSpec& s) {
  if (auto b = root.find("budget")) {
    b->allow_keys({"points", "seconds"});
    s.budget.points = static_cast<std::uint64_t>(b->get_int("points", 0, 0, 1LL << 50));
    s.budget.seconds = b->get_double("seconds", 0, 0, 1e9);
  }
  if (auto f = root.find("fidelity")) {
    const auto v = f->as_enum({"analytic", "systemc_pareto", "systemc_all"});
    s.systemc = v == "analytic"         ? SystemcScope::kNone
                : v == "systemc_pareto" ? SystemcScope::kParetoFront
                                        : SystemcScope::kAll;
  }
  s.choose_metric = s.objectives.front();
  if (auto ch = root.find("choose")) {
    ch->allow_keys({"minimize", "maximize"});
    if (ch->has("minimize") == ch->has("maximize")) ch->fail("exactly one of minimize / maximize");
    const JsonView v = ch->has("minimize") ? ch->at("minimize") : ch->at("maximize");
    s.choose_metric = metric_at(v);
    if (metric_info(s.choose_metric).maximize != ch->has("maximize")) {
      v.fail(std::string("a metric to ") + (ch->has("maximize") ? "maximize" : "minimize"),
             "\"" + std::string(metric_info(s.choose_metric).name) + "\"");
    }
  }
}

}  // namespace

SweepSpec load_sweep_spec(const std::string& path) {
  return parse_sweep_spec(load_json_file(path), path);
}

SweepSpec parse_sweep_spec(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  root.allow_keys({"name", "description", "base", "accuracy_table", "dataset", "axes", "reference",
                   "constraints", "objectives", "search", "budget", "fidelity", "choose"});
  SweepSpec s;
  s.file = file;
  s.doc = doc;
  s.name = root.at("name").as_string();
  if (auto d = root.find("description")) d->as_string();
  parse_base(root, file, s);
  const JsonView axes = root.at("axes");
  const std::vector<std::string> order = axis_order(axes, doc.at("axes"));
  check_rank_axes(axes, order, s);
  check_exclusive_axes(axes);
  build_space(axes, order, s);
  check_pointer_axes(axes, s);
  check_axis_values(axes, s);
  parse_references(root, s);
  refuse_empty_space(axes, order, s);
  parse_constraints(root, s.constraints);
  s.objectives = parse_objectives(root);
  s.search = parse_search(root);
  parse_run_settings(root, s);
  // A grid or random run holds its planned point ids in memory (8 bytes each): beyond
  // kMaxGridPoints without a budget it would exhaust the machine.
  if (s.search.strategy == Strategy::kGrid && s.space.grid_size() > kMaxGridPoints &&
      (s.budget.points == 0 || s.budget.points > kMaxGridPoints)) {
    axes.fail(fmt::format("a grid of at most {} points, or /budget/points up to that, or a \"random\" or "
                          "\"nsga2\" /search",
                          kMaxGridPoints),
              fmt::format("{} points", s.space.grid_size()));
  }
  if (s.search.strategy == Strategy::kRandom && s.search.count > kMaxGridPoints) {
    root.at("search").at("count").fail(fmt::format("at most {} random points", kMaxGridPoints),
                                       std::to_string(s.search.count));
  }
  return s;
}

}  // namespace ttsim::dse
