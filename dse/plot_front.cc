// The 2-D views of the Pareto front (dse/plots.h).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "dse/front_views.h"
#include "dse/gnuplot.h"
#include "dse/outputs.h"
#include "dse/plots.h"
#include "dse/resolve.h"

namespace ttsim::dse {

namespace {

struct ViewPoint {
  PointId id;
  double x, y;  // plotted values
  bool pair_front, front, reference, chosen;
};

// Log scale when the positive values span more than a factor 20.
bool wants_log(const std::vector<ViewPoint>& pts, bool use_x) {
  double lo = INFINITY, hi = 0;
  for (const auto& p : pts) {
    const double v = use_x ? p.x : p.y;
    if (v <= 0) return false;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return hi > 20 * lo;
}

std::string view_script(const std::string& csv, const std::string& title, const PlotAxis& ax,
                        const PlotAxis& ay, bool max_x, const std::vector<ViewPoint>& pts) {
  std::string s = gnuplot_head(900, 620);
  s += "set title " + gnuplot_quote(title) + "\n";
  s += "set xlabel " + gnuplot_quote(ax.label) + "\nset ylabel " + gnuplot_quote(ay.label) + "\n";
  if (wants_log(pts, true)) s += "set logscale x\n";
  if (wants_log(pts, false)) s += "set logscale y\n";
  s += "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n"
       "set key below\nset style circle radius screen 0.0055\n";
  // Reference and chosen designs: rings and labels at their coordinates.
  int obj = 1;
  for (const auto& p : pts) {
    if (!p.reference && !p.chosen) continue;
    const char* colour = p.chosen ? "#228833" : "#cc3311";
    const std::string label = p.chosen && p.reference ? fmt::format("chosen = reference (id {})", p.id)
                              : p.chosen              ? fmt::format("chosen (id {})", p.id)
                                                      : fmt::format("reference (id {})", p.id);
    s += fmt::format(
        "set object {0} circle at first {1:.17g}, first {2:.17g} size screen {3} front fillstyle "
        "empty border lc rgb '{4}' lw 2\n"
        "set label {0} {5} at first {1:.17g}, first {2:.17g} offset 1.3,{6} front tc rgb '{4}'\n",
        obj, p.x, p.y, p.chosen ? 0.016 : 0.011, colour, gnuplot_quote(label), p.chosen ? 1.3 : -1.0);
    ++obj;
  }
  const std::string q = gnuplot_quote(csv);
  s += "plot " + q +
       " using 2:($5==0 ? $3 : NaN) with circles lc rgb '#aaaaaa' fs solid 1.0 noborder "
       "title 'other feasible designs', \\\n"
       "     '' using 2:($5==1 ? $3 : NaN) with circles lc rgb '#4477aa' fs solid 1.0 noborder "
       "title 'on the Pareto front of all objectives', \\\n"
       "     '' using 2:($4==1 ? $3 : NaN) with " + std::string(max_x ? "fsteps" : "steps") +
       " lc rgb 'black' lw 1.5 title 'non-dominated on this pair (staircase)', \\\n"
       "     '' using 2:($4==1 ? $3 : NaN) with circles lw 1.5 lc rgb 'black' fs empty notitle, \\\n"
       "     keyentry with circles lw 2 lc rgb '#cc3311' fs empty title 'reference design', \\\n"
       "     keyentry with circles lw 2 lc rgb '#228833' fs empty title 'chosen design'\n";
  return s;
}

}  // namespace

std::vector<PlotFile> write_front_plots(const std::string& dir, const SweepEvaluation& eval,
                                        const RunState& state, const FinalResult& f,
                                        std::vector<std::string>& notes) {
  std::vector<PlotFile> plots;
  const auto& sweep = eval.sweep();
  const std::size_t n_obj = eval.objectives().size();
  for (const FrontView& v : front_views(eval.objectives(), sweep.choose_metric)) {
    const PlotAxis ax = plot_axis(v.x), ay = plot_axis(v.y);
    std::vector<ViewPoint> pts;
    for (std::size_t i = 0; i < f.ids.size(); ++i) {
      if (!f.verdicts[i].feasible) continue;
      const auto& m = state.points.at(f.ids[i]).best().metrics;
      if (!m.has(v.x) || !m.has(v.y)) continue;
      pts.push_back({f.ids[i], m[v.x] * ax.scale, m[v.y] * ay.scale, false, bool(f.on_front[i]),
                     sweep.space.is_reference(f.ids[i]), f.chosen && *f.chosen == f.ids[i]});
    }
    if (pts.empty()) continue;
    std::vector<double> xs, ys;
    for (const auto& p : pts) {
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
    const auto on = pair_front(xs, metric_info(v.x).maximize, ys, metric_info(v.y).maximize);
    for (std::size_t i = 0; i < pts.size(); ++i) pts[i].pair_front = on[i];
    // The pair's non-dominated points first, by x, so the staircase is one unbroken line.
    std::stable_sort(pts.begin(), pts.end(), [](const ViewPoint& a, const ViewPoint& b) {
      if (a.pair_front != b.pair_front) return a.pair_front;
      return a.pair_front && (a.x != b.x ? a.x < b.x : a.y < b.y);
    });
    const std::string name = "front_" + ax.column + "_vs_" + ay.column;
    std::string csv = "id," + ax.column + "," + ay.column +
                      ",pair_front,pareto_front,reference,chosen,name\n";
    for (const auto& p : pts) {
      csv += fmt::format("{},{},{},{:d},{:d},{:d},{:d},{}\n", p.id, number_text(p.x), number_text(p.y),
                         p.pair_front, p.front, p.reference, p.chosen,
                         csv_cell(point_name(sweep, p.id)));
    }
    write_file_atomic(dir + "/" + name + ".csv", csv);
    std::size_t n_pair = 0, n_front = 0;
    for (const auto& p : pts) {
      n_pair += p.pair_front;
      n_front += p.front;
    }
    const std::string title =
        n_obj == 2 ? fmt::format("Pareto front: {} vs {} ({} feasible designs)", ay.label, ax.label, pts.size())
                   : fmt::format("Projection of the {}-objective front onto ({}, {})", n_obj,
                                 metric_info(v.x).name, metric_info(v.y).name);
    const std::string caption = fmt::format(
        "{} feasible designs. Line: the {} designs no other design beats on both {} and {}; "
        "blue: the {} designs on the Pareto front of all {} objectives ({}); a blue point off "
        "the line is beaten here by a design that is worse on another objective; grey: the "
        "other feasible designs.",
        pts.size(), n_pair, metric_info(v.x).name, metric_info(v.y).name, n_front, n_obj,
        [&] {
          std::string o;
          for (Metric m : eval.objectives()) o += (o.empty() ? "" : ", ") + std::string(metric_info(m).name);
          return o;
        }());
    if (run_gnuplot(dir, name, view_script(name + ".csv", title, ax, ay, metric_info(v.x).maximize, pts),
                    notes)) {
      plots.push_back({name + ".svg", {name + ".csv"}, title, caption});
    }
  }
  return plots;
}

}  // namespace ttsim::dse
