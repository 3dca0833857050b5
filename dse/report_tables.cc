#include "dse/report_tables.h"

#include <cmath>

#include <fmt/format.h>

#include "dse/front_views.h"
#include "dse/html_text.h"
#include "dse/outputs.h"

namespace ttsim::dse {

namespace {

std::string grouped(long long v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

// Header cell: the metric's name, its unit below.
std::string metric_header(Metric m) {
  return fmt::format("<th data-type=\"num\" title=\"{}\">{}<small>{}</small></th>",
                     html_escape(plot_axis(m).label), html_escape(metric_info(m).name),
                     html_escape(metric_unit(m)));
}

std::string num_cell(const std::string& text, double exact) {
  return fmt::format("<td data-v=\"{}\">{}</td>", number_text(exact), html_escape(text));
}

}  // namespace

std::string metric_unit(Metric m) {
  const std::string label = plot_axis(m).label;
  const auto open = label.rfind('(');
  if (open == std::string::npos || label.back() != ')') return "";
  const std::string inside = label.substr(open + 1, label.size() - open - 2);
  const auto comma = inside.rfind(", ");  // "dense / stored parameters, x" -> "x"
  return comma == std::string::npos ? inside : inside.substr(comma + 2);
}

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
    case Metric::kOnchipBytes: return fmt::format("{:.3f}", v / (1024.0 * 1024.0));
    case Metric::kEpochSeconds:
    case Metric::kEpochEnergyJoules:
      return std::abs(v) >= 1000 ? grouped(std::llround(v)) : fmt::format("{:.4g}", v);
    case Metric::kPowerStaticWatts:
    case Metric::kPowerDynamicWatts:
    case Metric::kPowerTotalWatts: return fmt::format("{:.2f}", v);
    case Metric::kCompression: return fmt::format("{:.1f}", v);
    case Metric::kAccuracy:
    case Metric::kSlotF1: return fmt::format("{:.2f}", 100 * v);
    default: return grouped(std::llround(v));
  }
}

std::string points_table_html(const std::string& table_id, const SweepEvaluation& eval,
                              const std::vector<const ResultRow*>& rows,
                              std::optional<PointId> chosen, bool with_reason) {
  const auto& axes = eval.sweep().space.axes();
  std::string h = "<table class=\"sortable\" id=\"" + html_escape(table_id) + "\">\n<thead><tr>"
                  "<th data-type=\"num\">id</th><th class=\"t\">reference</th>";
  for (const auto& a : axes) {
    bool numeric = true;
    for (const auto& v : a.values) numeric = numeric && v.is_number();
    h += (numeric ? "<th data-type=\"num\">" : "<th class=\"t\">") + html_escape(a.name) + "</th>";
  }
  h += "<th class=\"t\">fidelity</th><th class=\"t\">feasible</th>";
  if (with_reason) h += "<th class=\"t\">reason (infeasible)</th>";
  h += "<th class=\"t\">Pareto front</th>";
  for (Metric m : report_metrics()) h += metric_header(m);
  h += "</tr></thead>\n<tbody>\n";
  for (const ResultRow* r : rows) {
    std::string cls;
    if (chosen && *chosen == r->id) cls += " chosen";
    if (!r->ref_label.empty()) cls += " ref";
    if (!r->verdict->feasible) cls += " infeasible";
    h += fmt::format("<tr data-feasible=\"{}\"{}>", r->verdict->feasible ? 1 : 0,
                     cls.empty() ? "" : " class=\"" + cls.substr(1) + "\"");
    h += fmt::format("<td data-v=\"{}\">{}{}</td>", r->id, r->id,
                     chosen && *chosen == r->id ? " (chosen)" : "");
    h += "<td class=\"t\" title=\"" + html_escape(r->ref_label) + "\">" +
         (r->ref_label.empty() ? "" : "reference") + "</td>";
    for (const auto& v : r->values) {
      const std::string text = v.is_null() ? "" : value_text(v);
      h += v.is_number() ? num_cell(text, v.get<double>()) : "<td class=\"t\">" + html_escape(text) + "</td>";
    }
    const Evaluation& e = r->rec->best();
    h += "<td class=\"t\">" + html_escape(e.fidelity) + "</td><td class=\"t\">" +
         (r->verdict->feasible ? "yes" : "no") + "</td>";
    if (with_reason) h += "<td class=\"reason\">" + html_escape(r->verdict->reason) + "</td>";
    h += std::string("<td class=\"t\">") + (r->on_front ? "yes" : "") + "</td>";
    for (Metric m : report_metrics()) h += num_cell(table_number(m, e.metrics[m]), e.metrics[m]);
    h += "</tr>\n";
  }
  return h + "</tbody></table>\n";
}

}  // namespace ttsim::dse
