#include "dse/report/report_html.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "dse/report/html_text.h"
#include "dse/run/outputs.h"
#include "dse/report/report_assets.h"
#include "dse/report/report_tables.h"
#include "dse/evaluate/resolve.h"
#include "dse/run/result_rows.h"

namespace ttsim::dse {

namespace {

namespace fs = std::filesystem;

std::string kv(const std::string& key, const std::string& value_html) {
  return "<dt>" + html_escape(key) + "</dt><dd>" + value_html + "</dd>\n";
}

std::string code(const std::string& s) { return "<code>" + html_escape(s) + "</code>"; }

std::string link(const std::string& dir, const std::string& file, const std::string& text = "") {
  if (!fs::exists(dir + "/" + file)) return html_escape(text.empty() ? file : text);
  return "<a href=\"" + html_escape(file) + "\">" + html_escape(text.empty() ? file : text) + "</a>";
}

std::string objectives_text(const SweepEvaluator& eval) {
  std::string s;
  for (Metric m : eval.objectives()) {
    s += (s.empty() ? "" : ", ") + std::string(metric_info(m).maximize ? "max " : "min ") +
         metric_info(m).name;
  }
  return s;
}

std::string provenance(const std::string& dir, const SweepEvaluator& eval, const FinalResult& f) {
  const auto& sweep = eval.sweep();
  std::string h = "<section id=\"provenance\"><h2>Provenance</h2>\n";
  const std::string desc = sweep.doc.value("description", std::string());
  if (!desc.empty()) h += "<p>" + html_escape(desc) + "</p>\n";
  h += "<dl class=\"kv\">\n";
  h += kv("sweep", code(sweep.name) + " from " + code(sweep.file));
  h += kv("base files", "model " + code(sweep.model_file) + ", arch " + code(sweep.arch_file) +
                            ", device " + code(sweep.device_file));
  h += kv("token lengths", sweep.lengths_file.empty()
                               ? std::string("none (no epoch figures)")
                               : code(sweep.lengths_file) + ", split " + code(sweep.lengths_split));
  h += kv("accuracy table", sweep.accuracy_table.empty() ? std::string("none") : code(sweep.accuracy_table));
  const Json& cal = eval.calibration();
  h += kv("calibration", cal.is_null() ? std::string("none (kernel parameters and power coefficients from "
                                                     "the arch and device files)")
                                       : code(cal.value("file", std::string())) + " (part " +
                                             html_escape(cal.value("part", std::string())) + ")");
  std::string axes;
  for (const auto& a : sweep.space.axes()) {
    std::string vals;
    for (const auto& v : a.values) vals += (vals.empty() ? "" : ", ") + value_text(v);
    axes += "<li>" + code(a.name) + ": " + html_escape(vals) + "</li>";
  }
  h += kv("axes", "<ul style=\"margin:0;padding-left:18px\">" + axes + "</ul>");
  h += kv("design space", fmt::format("{} grid points, {} reference point(s); search {}",
                                      sweep.space.grid_size(), sweep.space.references().size(),
                                      code(to_string(sweep.search.strategy))));
  h += kv("objectives", html_escape(objectives_text(eval)));
  h += kv("constraints", html_escape(constraints_text(eval)));
  h += kv("fidelity", code(to_string(sweep.systemc)) +
                          fmt::format(": {} point(s) SystemC-evaluated in {} round(s), the others "
                                      "analytic (no port contention)",
                                      f.systemc_points, f.systemc_rounds));
  h += kv("evaluated", fmt::format("{} points, {} feasible, {} on the Pareto front{}", f.evaluated,
                                   f.feasible, f.front.size(), f.partial ? " (interrupted run)" : ""));
  std::string files;
  for (const char* file : {"results.csv", "results.jsonl", "pareto.csv", "results.json", "chosen.json", "summary.md"}) {
    if (!(f.partial && std::string(file) == "pareto.csv")) files += (files.empty() ? "" : " · ") + link(dir, file);
  }
  if (fs::exists(dir + "/hls_build/README.md")) files += " · " + link(dir, "hls_build/README.md", "hls_build/");
  h += kv("files", files);
  return h + "</dl></section>\n";
}

/// Which step the chosen design's step_cycles is (step_cycles_meaning of its resolved arch);
/// the general rule when the evaluation has no resolved configs.
std::string chosen_step_cycles_meaning(const Evaluation& e) {
  const Json& arch = e.resolved.is_object() && e.resolved.contains("arch") ? e.resolved["arch"] : Json();
  if (!arch.is_object()) return kStepCyclesMeaning;
  return step_cycles_meaning(arch.value("sequence_length", std::string()) == "effective",
                             e.metrics.has(Metric::kEpochSeconds));
}

std::string chosen_section(const std::string& dir, const SweepEvaluator& eval, const RunState& state,
                           const FinalResult& f) {
  std::string h = "<section id=\"chosen\"><h2>Chosen design</h2>\n";
  if (!f.chosen) return h + "<p>No feasible design.</p></section>\n";
  const ResultRow row = result_row(eval, state, f, *f.chosen);
  const ResultRow* r = &row;
  const auto& sweep = eval.sweep();
  h += "<p><b>" + code(point_name(sweep, r->id)) + fmt::format("</b> (id {})", r->id) +
       (r->ref_label.empty() ? "" : ", the " + html_escape(r->ref_label)) + "</p>\n";
  h += "<p class=\"why\">Why: " + html_escape(f.why) + ".</p>\n<dl class=\"kv\">\n";
  std::string values;
  for (std::size_t a = 0; a < r->values.size(); ++a) {
    values += (values.empty() ? "" : ", ") + sweep.space.axes()[a].name + " = " +
              (r->values[a].is_null() ? std::string("-") : value_text(r->values[a]));
  }
  h += kv("axis values", html_escape(values));
  const Evaluation& e = r->rec.best();
  h += kv("fidelity", html_escape(to_string(e.fidelity)));
  for (Metric m : report_metrics()) {
    h += kv(metric_info(m).name, e.metrics.has(m) ? html_escape(table_number(m, e.metrics[m]) + " " + metric_unit(m))
                                                  : std::string("n/a"));
  }
  const Json& b = f.chosen_detail.breakdown;
  if (b.is_object() && b.contains("stages")) {
    const long long step = b.value("step_cycles", 0LL);
    std::string st;
    for (const char* s : {"forward", "backward", "update"}) {
      const long long c = b["stages"].value(s, 0LL);
      st += fmt::format("{}{} {} cycles ({:.1f} %)", st.empty() ? "" : ", ", s,
                        table_number(Metric::kStepCycles, c), step > 0 ? 100.0 * c / step : 0.0);
    }
    h += kv("the padded training step", html_escape(fmt::format(
                                            "{} cycles: {}", table_number(Metric::kStepCycles, step), st)));
  }
  h += kv("its step_cycles", html_escape(chosen_step_cycles_meaning(f.chosen_detail)));
  h += kv("files", link(dir, "chosen.json") +
                       (fs::exists(dir + "/hls_build/README.md")
                            ? " · " + link(dir, "hls_build/README.md", "HLS build (hls_build/)")
                            : std::string()));
  return h + "</dl></section>\n";
}

std::string references_section(const SweepEvaluator& eval, const FinalResult& f,
                               const RunState& state) {
  std::string h = "<section id=\"references\"><h2>Reference designs</h2>\n";
  if (f.references.empty()) return h + "<p>The sweep lists no reference point.</p></section>\n";
  const auto& objs = eval.objectives();
  h += "<div class=\"scroll\"><table class=\"sortable\" id=\"references-table\"><thead><tr>"
       "<th class=\"t\">reference</th><th data-type=\"num\">id</th><th class=\"t\">fidelity</th>"
       "<th class=\"t\">standing</th>";
  for (Metric m : objs) h += metric_header_html(m);
  for (Metric m : objs) {
    h += "<th data-type=\"num\">gain on " + wrappable_name(metric_info(m).name) +
         "<small>factor, front id</small></th>";
  }
  h += "</tr></thead><tbody>\n";
  for (const auto& ref : f.references) {
    h += "<tr><td class=\"t\">" + html_escape(ref.label) + fmt::format("</td><td data-v=\"{0}\">{0}</td>", ref.id);
    if (!ref.evaluated) {
      h += "<td class=\"t\"></td><td class=\"t\">not evaluated in this run</td>";
      for (std::size_t o = 0; o < 2 * objs.size(); ++o) h += "<td data-v=\"\"></td>";
      h += "</tr>\n";
      continue;
    }
    // finish(): a feasible reference is compared with the front designs that dominate it, an
    // infeasible one with every front design.
    std::string standing = !ref.feasible ? "infeasible: " + ref.reason + "; gains over every front design"
                           : ref.on_front ? std::string("on the Pareto front")
                                          : fmt::format("dominated by {} front design(s); gains over those",
                                                        ref.dominated_by.size());
    if (f.chosen && *f.chosen == ref.id) standing += "; the chosen design";
    h += "<td class=\"t\">" + html_escape(to_string(ref.fidelity)) + "</td><td class=\"t reason\">" +
         html_escape(standing) + "</td>";
    const PointRecord rec = state.record(ref.id);
    for (Metric m : objs) h += metric_cell_html(m, rec.best().metrics[m]);
    for (std::size_t o = 0; o < objs.size(); ++o) {
      // A factor that rounds to 1.00x or below is no gain: the cell stays empty.
      const bool has = o < ref.best_gain.size() && ref.best_gain[o] >= 1.005;
      h += has ? fmt::format("<td data-v=\"{}\">{:.2f}x<br><small>id {}</small></td>", number_text(ref.best_gain[o]),
                             ref.best_gain[o], ref.best_gain_point[o])
               : std::string("<td data-v=\"\"></td>");
    }
    h += "</tr>\n";
  }
  return h + "</tbody></table></div>\n<p>Best gain: the largest factor by which a front design betters "
             "the reference on that objective (reference / front for minimised objectives, front / "
             "reference for maximised ones), with that design's id. A feasible reference is compared "
             "with the front designs that dominate it, an infeasible reference with every front "
             "design (the standing column says which); empty where the best factor rounds to 1.00x "
             "or less.</p></section>\n";
}

// Appends the base64 text of the file `path` to `out`, a chunk at a time (chunks of a
// multiple of 3 bytes encode to the pieces of the whole file's encoding).
void write_base64_of_file(const std::string& path, AtomicFileWriter& out) {
  std::ifstream in(path, std::ios::binary);
  std::string chunk(3 << 14, '\0');
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > 0) out.write(base64(chunk.substr(0, got)));
  }
}

// The plots, each SVG embedded as a data URI (streamed: a plot of every feasible design
// can take megabytes).
void write_plots_section(const std::string& dir, const std::vector<PlotFile>& plots, AtomicFileWriter& out) {
  out.write("<section id=\"plots\"><h2>Plots</h2>\n");
  if (plots.empty()) out.write("<p>No plot was drawn (see the notes).</p>\n");
  for (const auto& p : plots) {
    std::string csv_links;
    for (const auto& c : p.csvs) csv_links += (csv_links.empty() ? "" : ", ") + link(dir, c);
    out.write("<figure><img alt=\"" + html_escape(p.title) + "\" src=\"data:image/svg+xml;base64,");
    write_base64_of_file(dir + "/" + p.svg, out);
    out.write("\">\n<figcaption><b>" + html_escape(p.title) + ".</b> " + html_escape(p.caption) +
              " Data: " + csv_links + " · image: " + link(dir, p.svg) + "</figcaption></figure>\n");
  }
  out.write("</section>\n");
}

}  // namespace

void write_report_html(const std::string& dir, const SweepEvaluator& eval, const RunState& state,
                       const FinalResult& f, const std::vector<PlotFile>& plots,
                       const std::vector<std::string>& notes) {
  const auto& sweep = eval.sweep();
  const std::string title = "ttsim explore: " + sweep.name;
  // Written as it is made: the all-points table has a row per point of the run.
  AtomicFileWriter out(dir + "/report.html");
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                  "<title>" + html_escape(title) + "</title>\n<style>" + kReportCss + "</style></head>\n<body>\n";
  h += "<h1>" + html_escape(title) + "</h1>\n<nav><a href=\"#provenance\">provenance</a>"
       "<a href=\"#chosen\">chosen design</a><a href=\"#references\">reference designs</a>"
       "<a href=\"#plots\">plots</a><a href=\"#front\">Pareto designs</a><a href=\"#all\">all points</a>"
       "<a href=\"#notes\">notes</a></nav>\n";
  h += provenance(dir, eval, f);
  h += chosen_section(dir, eval, state, f);
  h += references_section(eval, f, state);
  out.write(h);
  write_plots_section(dir, plots, out);

  // The Pareto designs by the first objective (then id), as summary.md lists them.
  const std::vector<ResultRow> front = front_rows(eval, state, f);
  h = fmt::format("<section id=\"front\"><h2>Pareto designs ({})</h2>\n<p>Feasible designs no other "
                  "feasible design beats on every objective ({}); the rows of {}. Click a column "
                  "header to sort.</p>\n<div class=\"scroll\">",
                  front.size(), html_escape(objectives_text(eval)), link(dir, "pareto.csv"));
  h += points_table_html("pareto", eval, front, f.chosen, false) + "</div></section>\n";
  const bool sampled = f.evaluated > kShownPointsMax;
  const std::string which =
      sampled ? fmt::format("An evenly spaced sample (one row in {}, by id) of the rows of {}; that file has all {}",
                            sample_stride(f.evaluated, kShownPointsMax), link(dir, "results.csv"), f.evaluated)
              : fmt::format("The rows of {}", link(dir, "results.csv"));
  h += fmt::format("<section id=\"all\"><h2>All evaluated points ({})</h2>\n<p>{}, with the "
                   "reason of every infeasible point.</p>\n<div class=\"controls\"><input type=\"search\" "
                   "data-filter=\"points\" placeholder=\"filter: whole words every shown row contains\"> "
                   "<label><input type=\"checkbox\" data-feasible-only=\"points\"> feasible only</label> "
                   "<span data-count=\"points\"></span></div>\n<div class=\"scroll\">",
                   f.evaluated, which);
  out.write(h + points_table_head_html("points", eval, true));
  for_each_row(eval, state, f, [&](const ResultRow& r) { out.write(points_table_row_html(r, f.chosen, true)); },
               kShownPointsMax);
  h = points_table_tail_html() + "</div></section>\n";

  h += "<section id=\"notes\"><h2>Notes</h2>\n<ul>\n";
  for (const auto& n : f.notes) h += "<li class=\"note\">" + html_escape(n) + "</li>\n";
  for (const auto& n : notes) h += "<li class=\"note\">" + html_escape(n) + "</li>\n";
  if (f.notes.empty() && notes.empty()) h += "<li>none</li>\n";
  h += "</ul></section>\n<script>" + std::string(kReportScript) + "</script>\n</body></html>\n";
  out.write(h);
  out.commit();
}

}  // namespace ttsim::dse
