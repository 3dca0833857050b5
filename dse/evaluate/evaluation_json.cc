#include "dse/evaluate/evaluation_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <string_view>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace ttsim::dse {

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

void append_json_number(std::string& out, double x, JsonNumbers style) {
  if (!std::isfinite(x)) {
    out += "null";
    return;
  }
  if (style == JsonNumbers::kShortest) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), x);
    return;
  }
  // The serializer's own shortest round-trip conversion ("721.0", "1e-05").
  std::array<char, 64> buf;
  char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), x);
  out.append(buf.data(), static_cast<std::size_t>(end - buf.data()));
}

void append_metrics_json(std::string& out, const MetricValues& m, JsonNumbers style) {
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
  for (int k = 0; k < kMetricCount; ++k) {
    if (k) out += ',';
    out += '"';
    out += metric_info(static_cast<Metric>(order[k])).name;
    out += "\":";
    append_json_number(out, m.v[order[k]], style);
  }
  out += '}';
}

void append_evaluation_json(std::string& out, const Evaluation& e) {
  out += '{';
  if (!e.accuracy_source.empty()) {
    out += "\"accuracy_source\":";
    append_json_string(out, e.accuracy_source);
    out += ',';
  }
  if (!e.accuracy_unknown.empty()) {
    out += "\"accuracy_unknown\":";
    append_json_string(out, e.accuracy_unknown);
    out += ',';
  }
  if (!e.error.empty()) {
    out += "\"error\":";
    append_json_string(out, e.error);
    out += ',';
  }
  out += "\"fidelity\":\"";
  out += to_string(e.fidelity);
  out += "\",\"metrics\":";
  append_metrics_json(out, e.metrics, JsonNumbers::kDump);
  if (e.tt_rank) {
    out += ",\"tt_rank\":";
    out += fmt::format_int(e.tt_rank).c_str();
  }
  out += '}';
}

Evaluation evaluation_from_json(const JsonView& v, Fidelity slot) {
  v.allow_keys({"fidelity", "metrics", "error", "tt_rank", "accuracy_source", "accuracy_unknown"});
  Evaluation e;
  // The fidelity the line files the evaluation under, and no other.
  e.fidelity = *parse_fidelity(v.at("fidelity").as_enum({to_string(slot)}));
  if (auto err = v.find("error")) e.error = err->as_string();
  if (auto r = v.find("tt_rank")) e.tt_rank = r->as_int(1, 4096);
  if (auto a = v.find("accuracy_source")) e.accuracy_source = a->as_enum({"table", "interpolated", "per_layer_model", "unknown"});
  if (auto a = v.find("accuracy_unknown")) e.accuracy_unknown = a->as_string();
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

}  // namespace ttsim::dse
