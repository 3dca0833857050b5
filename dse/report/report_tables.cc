#include "dse/report/report_tables.h"

#include <cmath>

#include <fmt/format.h>

#include "dse/report/front_views.h"
#include "dse/report/html_text.h"
#include "dse/run/outputs.h"

namespace ttsim::dse {

namespace {

// `v` with `decimals` fixed decimals and the integer part grouped by thousands: "11,181.0".
std::string grouped(double v, int decimals) {
  const std::string text = fmt::format("{:.{}f}", std::abs(v), decimals);
  const auto dot = text.find('.');
  const std::string digits = text.substr(0, dot);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  if (dot != std::string::npos) out += text.substr(dot);
  return (v < 0 && text.find_first_not_of("0.") != std::string::npos ? "-" : "") + out;
}

std::string num_cell(const std::string& text, double exact) {
  return fmt::format("<td data-v=\"{}\">{}</td>", number_text(exact), html_escape(text));
}

}  // namespace

std::string wrappable_name(const std::string& name) {
  std::string out;
  for (char c : html_escape(name)) {
    out += c;
    if (c == '_') out += "<wbr>";
  }
  return out;
}

std::string metric_unit(Metric m) {
  const std::string label = plot_axis(m).label;
  const auto open = label.rfind('(');
  if (open == std::string::npos || label.back() != ')') return "";
  const std::string inside = label.substr(open + 1, label.size() - open - 2);
  const auto comma = inside.rfind(", ");  // "dense / stored parameters, x" -> "x"
  return comma == std::string::npos ? inside : inside.substr(comma + 2);
}

std::string metric_header_html(Metric m) {
  return fmt::format("<th data-type=\"num\" title=\"{}\">{}<small>{}</small></th>",
                     html_escape(plot_axis(m).label), wrappable_name(metric_info(m).name),
                     html_escape(metric_unit(m)));
}

std::string metric_cell_html(Metric m, double v) { return num_cell(table_number(m, v), v); }

const std::vector<Metric>& report_metrics() {
  static const std::vector<Metric> m = {
      Metric::kEpochSeconds, Metric::kStepCycles, Metric::kEpochEnergyJoules, Metric::kPowerTotalWatts,
      Metric::kOnchipBytes,  Metric::kBram36,     Metric::kUram288,           Metric::kDsp,
      Metric::kLut,          Metric::kCompression, Metric::kAccuracy};
  return m;
}

std::string table_number(Metric m, double v) {
  if (std::isnan(v)) return "";
  switch (m) {
    case Metric::kOnchipBytes: return grouped(v / (1024.0 * 1024.0), 3);
    case Metric::kEpochSeconds: return grouped(v, 1);
    case Metric::kEpochEnergyJoules: return grouped(v, 0);
    case Metric::kPowerStaticWatts:
    case Metric::kPowerDynamicWatts:
    case Metric::kPowerTotalWatts: return grouped(v, 2);
    case Metric::kCompression: return grouped(v, 1);
    case Metric::kAccuracy:
    case Metric::kSlotF1: return grouped(100 * v, 2);
    default: return grouped(v, 0);
  }
}

const std::vector<Metric>& all_metrics() {
  static const std::vector<Metric> m = [] {
    std::vector<Metric> all;
    for (int i = 0; i < kMetricCount; ++i) all.push_back(static_cast<Metric>(i));
    return all;
  }();
  return m;
}

std::string points_table_head_html(const std::string& table_id, const SweepEvaluator& eval,
                                   bool all_columns) {
  const auto& metrics = all_columns ? all_metrics() : report_metrics();
  std::string h = "<table class=\"sortable\" id=\"" + html_escape(table_id) + "\">\n<thead><tr>"
                  "<th data-type=\"num\">id</th><th class=\"t\">reference</th>";
  for (const auto& a : eval.sweep().space.axes()) {
    bool numeric = true;
    for (const auto& v : a.values) numeric = numeric && v.is_number();
    h += (numeric ? "<th data-type=\"num\">" : "<th class=\"t\">") + html_escape(a.name) + "</th>";
  }
  h += "<th class=\"t\">fidelity</th><th class=\"t\">feasible</th>";
  if (all_columns) h += "<th class=\"t\">reason (infeasible)</th>";
  h += "<th class=\"t\">Pareto front</th>";
  for (Metric m : metrics) h += metric_header_html(m);
  if (all_columns) h += "<th class=\"t\" title=\"table: accuracy measured at this rank; interpolated: between two measured ranks\">accuracy_source</th>";
  return h + "</tr></thead>\n<tbody>\n";
}

std::string points_table_row_html(const ResultRow& r, std::optional<PointId> chosen, bool all_columns) {
  const auto& metrics = all_columns ? all_metrics() : report_metrics();
  std::string cls;
  if (chosen && *chosen == r.id) cls += " chosen";
  if (!r.ref_label.empty()) cls += " ref";
  if (!r.verdict.feasible) cls += " infeasible";
  std::string h = fmt::format("<tr data-feasible=\"{}\"{}>", r.verdict.feasible ? 1 : 0,
                              cls.empty() ? "" : " class=\"" + cls.substr(1) + "\"");
  h += fmt::format("<td data-v=\"{}\">{}{}</td>", r.id, r.id, chosen && *chosen == r.id ? " (chosen)" : "");
  h += "<td class=\"t\" title=\"" + html_escape(r.ref_label) + "\">" + (r.ref_label.empty() ? "" : "reference") +
       "</td>";
  for (const auto& v : r.values) {
    const std::string text = v.is_null() ? "" : value_text(v);
    h += v.is_number() ? num_cell(text, v.get<double>()) : "<td class=\"t\">" + html_escape(text) + "</td>";
  }
  const Evaluation& e = r.rec.best();
  h += "<td class=\"t\">" + html_escape(to_string(e.fidelity)) + "</td><td class=\"t\">" +
       (r.verdict.feasible ? "yes" : "no") + "</td>";
  if (all_columns) h += "<td class=\"reason\">" + html_escape(r.verdict.reason) + "</td>";
  h += std::string("<td class=\"t\">") + (r.on_front ? "yes" : "") + "</td>";
  for (Metric m : metrics) h += metric_cell_html(m, e.metrics[m]);
  if (all_columns) h += "<td class=\"t\">" + html_escape(e.accuracy_source) + "</td>";
  return h + "</tr>\n";
}

std::string points_table_tail_html() { return "</tbody></table>\n"; }

std::string points_table_html(const std::string& table_id, const SweepEvaluator& eval,
                              const std::vector<ResultRow>& rows, std::optional<PointId> chosen,
                              bool all_columns) {
  std::string h = points_table_head_html(table_id, eval, all_columns);
  for (const ResultRow& r : rows) h += points_table_row_html(r, chosen, all_columns);
  return h + points_table_tail_html();
}

}  // namespace ttsim::dse
