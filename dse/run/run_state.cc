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

namespace {

// A JSON string as nlohmann's dump writes it: as is between quotes when no character needs
// escaping (printable ASCII but '"' and '\\'), else through the dump itself.
void append_json_string(std::string& out, const std::string& s) {
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (!plain) {
    out += Json(s).dump();
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

// A double as nlohmann's dump writes it (the serializer's own shortest round-trip
// conversion: "721.0", "1e-05"), null when not finite.
void append_json_double(std::string& out, double x) {
  if (!std::isfinite(x)) {
    out += "null";
    return;
  }
  std::array<char, 64> buf;
  char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), x);
  out.append(buf.data(), static_cast<std::size_t>(end - buf.data()));
}

}  // namespace

void append_evaluation_json(std::string& out, const Evaluation& e) {
  // Metric names in ascending byte order, the order of a JSON object's keys.
  static const std::array<int, kMetricCount> order = [] {
    std::array<int, kMetricCount> o{};
    for (int i = 0; i < kMetricCount; ++i) o[i] = i;
    std::sort(o.begin(), o.end(), [](int x, int y) {
      return std::string_view(metric_info(static_cast<Metric>(x)).name) <
             std::string_view(metric_info(static_cast<Metric>(y)).name);
    });
    return o;
  }();
  out += '{';
  if (!e.accuracy_source.empty()) {
    out += "\"accuracy_source\":";
    append_json_string(out, e.accuracy_source);
    out += ',';
  }
  if (!e.error.empty()) {
    out += "\"error\":";
    append_json_string(out, e.error);
    out += ',';
  }
  out += "\"fidelity\":";
  append_json_string(out, e.fidelity);
  out += ",\"metrics\":{";
  for (int k = 0; k < kMetricCount; ++k) {
    if (k) out += ',';
    out += '"';
    out += metric_info(static_cast<Metric>(order[k])).name;
    out += "\":";
    append_json_double(out, e.metrics.v[order[k]]);
  }
  out += '}';
  if (e.tt_rank) {
    out += ",\"tt_rank\":";
    out += fmt::format_int(e.tt_rank).c_str();
  }
  out += '}';
}

Evaluation evaluation_from_json(const JsonView& v) {
  v.allow_keys({"fidelity", "metrics", "error", "tt_rank", "accuracy_source"});
  Evaluation e;
  e.fidelity = v.at("fidelity").as_string();
  if (auto err = v.find("error")) e.error = err->as_string();
  if (auto r = v.find("tt_rank")) e.tt_rank = r->as_int(1, 4096);
  if (auto a = v.find("accuracy_source")) e.accuracy_source = a->as_enum({"table", "interpolated", "unknown"});
  const JsonView m = v.at("metrics");
  if (!m.is_object() || (e.error.empty() && m.raw().empty())) {
    m.fail("an object of the evaluation's metrics (empty only with an \"error\")");
  }
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
