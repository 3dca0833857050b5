#include "dse/run_state.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/errors.h"

namespace ttsim::dse {

Json evaluation_to_json(const Evaluation& e) {
  Json m = Json::object();
  for (int i = 0; i < kMetricCount; ++i) {
    const double x = e.metrics.v[i];
    m[metric_info(static_cast<Metric>(i)).name] = std::isnan(x) ? Json(nullptr) : Json(x);
  }
  Json j{{"fidelity", e.fidelity}, {"metrics", m}};
  if (!e.error.empty()) j["error"] = e.error;
  if (e.tt_rank) j["tt_rank"] = e.tt_rank;
  if (!e.accuracy_source.empty()) j["accuracy_source"] = e.accuracy_source;
  return j;
}

Evaluation evaluation_from_json(const JsonView& v) {
  v.allow_keys({"fidelity", "metrics", "error", "tt_rank", "accuracy_source"});
  Evaluation e;
  e.fidelity = v.at("fidelity").as_string();
  if (auto err = v.find("error")) e.error = err->as_string();
  if (auto r = v.find("tt_rank")) e.tt_rank = r->as_int(1, 4096);
  if (auto a = v.find("accuracy_source")) e.accuracy_source = a->as_enum({"table", "interpolated", "unknown"});
  const JsonView m = v.at("metrics");
  for (int i = 0; i < kMetricCount; ++i) {
    const char* name = metric_info(static_cast<Metric>(i)).name;
    if (auto x = m.find(name)) {
      e.metrics.v[i] = x->raw().is_null() ? std::numeric_limits<double>::quiet_NaN()
                                          : x->as_double(-1e300, 1e300);
    }
  }
  return e;
}

Json state_to_json(const RunState& s) {
  Json points = Json::array();
  for (const auto& [id, r] : s.points) {
    Json p{{"id", id}, {"analytic", evaluation_to_json(r.analytic)}};
    if (r.has_systemc) p["systemc"] = evaluation_to_json(r.systemc);
    points.push_back(std::move(p));
  }
  Json j{{"format", "ttsim-explore-state-1"}, {"sweep_file", s.sweep_file},
         {"sweep", s.sweep_doc}, {"shard", s.shard}, {"points", points}};
  if (!s.calibration.is_null()) j["calibration"] = s.calibration;
  if (s.systemc_rounds > 0) j["systemc_rounds"] = s.systemc_rounds;
  if (!s.systemc_pending.empty()) j["systemc_pending"] = s.systemc_pending;
  if (!s.inputs.is_null()) j["inputs"] = s.inputs;
  return j;
}

Json input_fingerprint(const SweepSpec& sweep) {
  Json out = Json::object();
  auto add = [&](const char* role, const std::string& path) {
    if (path.empty()) return;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read (a file the sweep " + sweep.file + " uses)");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    out[role] = {{"path", path}, {"content_hash", fmt::format("{:016x}", std::hash<std::string>{}(bytes))}};
  };
  add("model", sweep.model_file);
  add("arch", sweep.arch_file);
  add("device", sweep.device_file);
  add("accuracy_table", sweep.accuracy_table);
  add("lengths", sweep.lengths_file);
  return out;
}

void check_inputs_unchanged(const Json& recorded, const Json& now, const std::string& state_file) {
  if (recorded.is_null()) return;
  for (auto it = now.begin(); it != now.end(); ++it) {
    const std::string was = recorded.contains(it.key()) ? recorded.at(it.key()).value("content_hash", "") : "";
    if (was != it.value().at("content_hash").get<std::string>()) {
      throw InputError(fmt::format("{}: /inputs/{}: {} changed since the run started (content hash {}, now {}); "
                                   "restore it or start a new run in another --out folder",
                                   state_file, it.key(), it.value().at("path").get<std::string>(),
                                   was.empty() ? "none recorded" : was,
                                   it.value().at("content_hash").get<std::string>()));
    }
  }
}

RunState state_from_json(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  root.allow_keys({"format", "sweep_file", "sweep", "shard", "points", "calibration",
                   "systemc_rounds", "systemc_pending", "inputs"});
  if (root.at("format").as_string() != "ttsim-explore-state-1") {
    root.at("format").fail("\"ttsim-explore-state-1\"");
  }
  RunState s;
  s.sweep_file = root.at("sweep_file").as_string();
  s.sweep_doc = root.at("sweep").raw();
  s.shard = root.at("shard").as_string();
  if (auto c = root.find("calibration")) s.calibration = c->raw();
  if (auto i = root.find("inputs")) s.inputs = i->raw();
  for (const auto& p : root.at("points").as_array(0)) {
    p.allow_keys({"id", "analytic", "systemc"});
    const auto id = static_cast<PointId>(p.at("id").as_int(0, std::numeric_limits<std::int64_t>::max()));
    PointRecord r;
    r.analytic = evaluation_from_json(p.at("analytic"));
    if (auto sc = p.find("systemc")) {
      r.has_systemc = true;
      r.systemc = evaluation_from_json(*sc);
    }
    s.points[id] = std::move(r);
  }
  if (auto r = root.find("systemc_rounds")) s.systemc_rounds = static_cast<int>(r->as_int(0, 1000));
  if (auto pending = root.find("systemc_pending")) {
    for (const auto& p : pending->as_array(1)) {
      const auto id = static_cast<PointId>(p.as_int(0, std::numeric_limits<std::int64_t>::max()));
      if (!s.points.count(id)) p.fail("the id of a point listed in /points", std::to_string(id));
      s.systemc_pending.push_back(id);
    }
  }
  return s;
}

void save_state(const std::string& dir, const RunState& s) {
  write_file_atomic(dir + "/state.json", state_to_json(s).dump(1) + "\n");
}

std::optional<RunState> load_state(const std::string& dir) {
  const std::string path = dir + "/state.json";
  if (!std::filesystem::exists(path)) return std::nullopt;
  return state_from_json(load_json_file(path), path);
}

void check_point_ids(const RunState& s, std::uint64_t point_count, const std::string& dir) {
  if (s.points.empty() || s.points.rbegin()->first < point_count) return;
  // Error path only: read the file again for the pointer of the offending entry.
  const std::string path = dir + "/state.json";
  const Json doc = load_json_file(path);
  const Json& points = doc.at("points");
  for (std::size_t k = 0; k < points.size(); ++k) {
    const auto id = points[k].at("id").get<std::uint64_t>();
    if (id >= point_count) {
      throw ConfigError(path, "/points/" + std::to_string(k) + "/id",
                        "a point id in 0.." + std::to_string(point_count - 1) +
                            " (the sweep's design space has " + std::to_string(point_count) +
                            " points)",
                        std::to_string(id));
    }
  }
}

}  // namespace ttsim::dse
