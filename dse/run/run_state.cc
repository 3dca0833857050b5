#include "dse/run/run_state.h"

#include <algorithm>
#include <array>
#include <string_view>

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

PointSummary PointSummary::of(const SweepEvaluator& eval, const Evaluation& e) {
  const Verdict v = eval.judge(e);
  PointSummary f;
  f.feasible = v.feasible;
  f.failed = !e.error.empty();
  f.violation = v.violation;
  f.kept.reserve(eval.kept_metrics().size());
  for (Metric m : eval.kept_metrics()) f.kept.push_back(e.metrics[m]);
  return f;
}

double PointSummary::figure(const SweepEvaluator& eval, Metric m) const {
  const auto& metrics = eval.kept_metrics();
  for (std::size_t i = 0; i < metrics.size() && i < kept.size(); ++i) {
    if (metrics[i] == m) return kept[i];
  }
  return std::numeric_limits<double>::quiet_NaN();
}

Candidate PointSummary::candidate(const SweepEvaluator& eval, PointId id) const {
  // kept_metrics() starts with the objectives, in order.
  Candidate c;
  c.id = id;
  c.violation = feasible ? 0 : std::max(violation, 1e-12);
  const auto& objectives = eval.objectives();
  c.objectives.reserve(objectives.size());
  for (std::size_t i = 0; i < objectives.size(); ++i) c.objectives.push_back(objective_value(objectives[i], kept[i]));
  return c;
}

Json state_to_json(const RunState& s) {
  Json j{{"format", "ttsim-explore-state-3"}, {"sweep_file", s.sweep_file},
         {"sweep", s.sweep_doc}, {"axes", s.axes}, {"shard", s.shard}, {"evaluations", kEvaluationLog}};
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
  root.allow_keys({"format", "sweep_file", "sweep", "axes", "shard", "evaluations", "points", "calibration",
                   "systemc_rounds", "systemc_pending", "inputs"});
  // Format 1 (before the evaluation log) lists the points inline; formats 1 and 2 record no
  // axis order (theirs is legacy_axis_order, dse/space/axes.h).
  const std::string format =
      root.at("format").as_enum({"ttsim-explore-state-1", "ttsim-explore-state-2", "ttsim-explore-state-3"});
  const bool legacy = format == "ttsim-explore-state-1";
  RunState s;
  s.sweep_file = root.at("sweep_file").as_string();
  s.sweep_doc = root.at("sweep").raw();
  if (format == "ttsim-explore-state-3") {
    for (const auto& a : root.at("axes").as_array(1)) s.axes.push_back(a.as_string());
  } else if (auto a = root.find("axes")) {
    a->fail("no axes in " + format + " (its points are numbered in the order of that format)");
  }
  s.shard = root.at("shard").as_string();
  if (!s.shard.empty()) {
    // "i/N" with 1 <= i <= N, as --shard writes it.
    const auto slash = s.shard.find('/');
    const auto digits = [](const std::string& t) {
      return !t.empty() && t.size() <= 6 && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    const std::string i = slash == std::string::npos ? "" : s.shard.substr(0, slash);
    const std::string n = slash == std::string::npos ? "" : s.shard.substr(slash + 1);
    if (!digits(i) || !digits(n) || std::stoi(i) < 1 || std::stoi(i) > std::stoi(n)) {
      root.at("shard").fail("\"\" (no shard) or \"i/N\" with 1 <= i <= N, as --shard writes it",
                            "\"" + s.shard + "\"");
    }
  }
  if (auto c = root.find("calibration")) {
    if (!c->is_object() && !c->raw().is_null()) c->fail("the calibration object the run was started with, or null");
    s.calibration = c->raw();
  }
  if (auto in = root.find("inputs")) {
    if (!in->is_object()) in->fail("an object of input role -> {path, content_hash}");
    for (auto it = in->raw().begin(); it != in->raw().end(); ++it) {
      const JsonView entry = in->at(it.key());
      entry.allow_keys({"path", "content_hash"});
      entry.at("path").as_string();
      entry.at("content_hash").as_string();
    }
    s.inputs = in->raw();
  }
  if (legacy) {
    s.legacy_points = root.at("points").raw();
    root.at("points").as_array(0);
  } else {
    if (root.at("evaluations").as_string() != kEvaluationLog) root.at("evaluations").fail(std::string("\"") + kEvaluationLog + "\"");
    if (auto p = root.find("points")) p->fail("no inline points in format " + format + " (they are in " + std::string(kEvaluationLog) + ")");
  }
  if (auto r = root.find("systemc_rounds")) s.systemc_rounds = static_cast<int>(r->as_int(0, 1000));
  if (auto pending = root.find("systemc_pending")) {
    for (const auto& p : pending->as_array(1)) {
      s.systemc_pending.push_back(static_cast<PointId>(p.as_int(0, std::numeric_limits<std::int64_t>::max())));
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

}  // namespace ttsim::dse
