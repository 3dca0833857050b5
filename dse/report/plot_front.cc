// The 2-D views of the Pareto front (dse/report/plots.h).
#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "dse/report/front_views.h"
#include "dse/report/gnuplot.h"
#include "dse/run/outputs.h"
#include "dse/run/result_rows.h"
#include "dse/report/plots.h"
#include "dse/evaluate/resolve.h"

namespace ttsim::dse {

namespace {

struct ViewPoint {
  PointId id;
  double x, y;  // plotted values
  bool pair_front, front, reference, chosen;
};

// "1 feasible design", "7 feasible designs".
std::string count_of(std::size_t n, const std::string& noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

// "the design", "the 7 designs".
std::string the_designs(std::size_t n) {
  return n == 1 ? std::string("the design") : fmt::format("the {} designs", n);
}

// One plotted axis: log or linear, its padded range, a value's place on it (0..1).
struct AxisScale {
  bool log = false;
  double lo = 0, hi = 1;
  double place(double v) const {
    return log ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (v - lo) / (hi - lo);
  }
};

AxisScale axis_scale(const std::vector<ViewPoint>& pts, bool use_x) {
  AxisScale a;
  std::vector<double> values;
  for (const auto& p : pts) values.push_back(use_x ? p.x : p.y);
  a.log = log_axis_wanted(values);
  std::tie(a.lo, a.hi) = padded_range(values, a.log, 1.3, 0.1);
  return a;
}

// "set logscale" (when wanted), the explicit range and, on a log axis, tics at 1, 2 and 5
// per decade (more when the range spans less than a decade or so).
std::string axis_commands(const AxisScale& a, const char* axis) {
  std::string s = fmt::format("set {}range [{:.17g}:{:.17g}]\n", axis, a.lo, a.hi);
  if (!a.log) return s;
  s += fmt::format("set logscale {}\n", axis);
  for (const std::vector<double>& steps : {std::vector<double>{1, 2, 5}, {1, 1.5, 2, 3, 5, 7}}) {
    std::string tics;
    int n = 0;
    for (int e = static_cast<int>(std::floor(std::log10(a.lo))); e <= std::ceil(std::log10(a.hi)); ++e) {
      for (double m : steps) {
        const double t = m * std::pow(10.0, e);
        if (t < a.lo || t > a.hi) continue;
        tics += fmt::format("{}'{:g}' {:.17g}", n++ ? ", " : "", t, t);
      }
    }
    if (n >= 4) return s + fmt::format("set {}tics ({})\n", axis, tics);
  }
  return s;
}

// Ring radii (fractions of the plot width) of the chosen design and of a reference design.
constexpr double kChosenRing = 0.019, kReferenceRing = 0.011;

constexpr double kGraphW = 790, kGraphH = 430;  // graph area of the 900 × 620 terminal, pixels

// Pixel distance from (x, y) to the segment a-b, all in graph coordinates.
double segment_distance(double x, double y, std::pair<double, double> a, std::pair<double, double> b) {
  const double ax = a.first * kGraphW, ay = a.second * kGraphH, bx = b.first * kGraphW, by = b.second * kGraphH;
  const double px = x * kGraphW, py = y * kGraphH, dx = bx - ax, dy = by - ay;
  const double len2 = dx * dx + dy * dy;
  const double t = len2 > 0 ? std::clamp(((px - ax) * dx + (py - ay) * dy) / len2, 0.0, 1.0) : 0.0;
  return std::hypot(px - ax - t * dx, py - ay - t * dy);
}

// Where the number of the ring around `p` goes, in graph coordinates: of eight places
// around the ring, the one farthest (in pixels, up to 40) from every design, the staircase
// `line` and every number placed before (`taken`), inside the graph.
std::pair<double, double> number_place(const ViewPoint& p, double ring_px,
                                       const std::vector<std::pair<double, double>>& dots,
                                       const std::vector<std::pair<double, double>>& line,
                                       const std::vector<std::pair<double, double>>& taken,
                                       const AxisScale& ax, const AxisScale& ay) {
  constexpr double kW = kGraphW, kH = kGraphH;
  const double gx = ax.place(p.x), gy = ay.place(p.y), r = ring_px + 9;
  std::pair<double, double> best{gx, gy};
  double best_score = -INFINITY;
  for (int d = 0; d < 8; ++d) {
    const double a = M_PI / 4 * d + M_PI / 4;  // NE first
    const double lx = gx + r * std::cos(a) / kW, ly = gy + r * std::sin(a) / kH;
    double score = (lx < 0.02 || lx > 0.98 || ly < 0.03 || ly > 0.97) ? -1000 : 0;
    double nearest = INFINITY;
    for (const auto& [x, y] : dots) nearest = std::min(nearest, std::hypot((lx - x) * kW, (ly - y) * kH));
    for (std::size_t i = 1; i < line.size(); ++i) {
      nearest = std::min(nearest, segment_distance(lx, ly, line[i - 1], line[i]));
    }
    for (const auto& [x, y] : taken) nearest = std::min(nearest, std::hypot((lx - x) * kW, (ly - y) * kH) / 2);
    score += std::min(nearest, 40.0);
    if (score > best_score + 1e-9) {
      best_score = score;
      best = {lx, ly};
    }
  }
  return best;
}

// The ringed designs, numbered from 1 in the same order in every view (the chosen design,
// then the references by id), each with its text: "chosen = reference (id 23)".
std::vector<std::pair<const ViewPoint*, std::string>> ringed(const std::vector<ViewPoint>& pts) {
  std::vector<const ViewPoint*> marked;
  for (const auto& p : pts) {
    if (p.reference || p.chosen) marked.push_back(&p);
  }
  std::sort(marked.begin(), marked.end(), [](const ViewPoint* a, const ViewPoint* b) {
    return a->chosen != b->chosen ? a->chosen : a->id < b->id;
  });
  std::vector<std::pair<const ViewPoint*, std::string>> out;
  for (const ViewPoint* p : marked) {
    out.push_back({p, p->chosen && p->reference ? fmt::format("chosen = reference (id {})", p->id)
                      : p->chosen               ? fmt::format("chosen (id {})", p->id)
                                                : fmt::format("reference (id {})", p->id)});
  }
  return out;
}

std::string view_script(const std::string& name, const std::string& title, const PlotAxis& ax,
                        const PlotAxis& ay, const std::vector<ViewPoint>& pts,
                        const std::vector<LineVertex>& staircase) {
  const std::string csv = name + ".csv", line_csv = name + "_line.csv";
  std::string s = gnuplot_head(name, 900, 620);
  s += "set title " + gnuplot_quote(title) + "\n";
  s += "set xlabel " + gnuplot_quote(ax.label) + "\nset ylabel " + gnuplot_quote(ay.label) + "\n";
  const AxisScale ax_scale = axis_scale(pts, true), ay_scale = axis_scale(pts, false);
  s += "set autoscale fix\n" + axis_commands(ax_scale, "x") + axis_commands(ay_scale, "y");
  s += "set key below\nset style circle radius screen 0.0055\n";
  // Reference and chosen designs: a ring each, its number beside it where no design or
  // other number is near; the key names each number.
  std::vector<std::pair<double, double>> dots, line, taken;
  for (const auto& p : pts) dots.push_back({ax_scale.place(p.x), ay_scale.place(p.y)});
  for (const auto& v : staircase) line.push_back({ax_scale.place(v.x), ay_scale.place(v.y)});
  const auto rings = ringed(pts);
  std::string keys;
  for (std::size_t k = 0; k < rings.size(); ++k) {
    const ViewPoint& p = *rings[k].first;
    // The chosen design's ring is wider and thicker than a reference's, so where the two
    // designs sit together both rings show.
    const char* colour = p.chosen ? "#228833" : "#cc3311";
    const double ring = p.chosen ? kChosenRing : kReferenceRing;
    const double lw = p.chosen ? 2.5 : 1.5;
    taken.push_back(number_place(p, ring * 900, dots, line, taken, ax_scale, ay_scale));
    s += fmt::format(
        "set object {0} circle at first {1:.17g}, first {2:.17g} size screen {3} front fillstyle "
        "empty border lc rgb '{4}' lw {7}\n"
        "set label {0} '{0}' at graph {5:.4f}, graph {6:.4f} center front tc rgb '{4}' font ',13'\n",
        k + 1, p.x, p.y, ring, colour, taken.back().first, taken.back().second, lw);
    keys += fmt::format(", \\\n     keyentry with circles lw {} lc rgb '{}' fs empty title {}", lw, colour,
                        gnuplot_quote(fmt::format("{}: {}", k + 1, rings[k].second)));
  }
  const std::string q = gnuplot_quote(csv);
  s += "plot " + q +
       " using 2:($5==0 ? $3 : NaN) with circles lc rgb '#aaaaaa' fs solid 1.0 noborder "
       "title 'other feasible designs', \\\n"
       "     '' using 2:($5==1 ? $3 : NaN) with circles lc rgb '#4477aa' fs solid 1.0 noborder "
       "title 'on the Pareto front of all objectives', \\\n"
       "     " + gnuplot_quote(line_csv) + " using 1:2 with lines lc rgb 'black' lw 1.5 " +
       (staircase.size() > 1 ? "title 'staircase through the pair''s non-dominated designs'"
                             : "notitle") +
       ", \\\n     " + q +
       " using 2:($4==1 ? $3 : NaN) with circles lw 1.5 lc rgb 'black' fs empty "
       "title 'black ring: non-dominated on this pair'" +
       keys + "\n";
  return s;
}

// The feasible points with both values of view `v` (scaled for plotting), flagged: on the
// Pareto front of all objectives, a reference, the chosen design, on the pair's front.
std::vector<ViewPoint> view_points(const SweepEvaluator& eval, const RunState& state, const FinalResult& f,
                                   const FrontView& v, const PlotAxis& ax, const PlotAxis& ay) {
  std::vector<ViewPoint> pts;
  // The figures every run keeps in memory (the objectives and the choice metric).
  for (const auto& [id, summary] : state.points) {
    if (!summary.feasible) continue;
    const double x = summary.figure(eval, v.x), y = summary.figure(eval, v.y);
    if (std::isnan(x) || std::isnan(y)) continue;
    pts.push_back({id, x * ax.scale, y * ay.scale, false, f.on_front(id), eval.sweep().space.is_reference(id),
                   f.chosen && *f.chosen == id});
  }
  std::vector<double> xs, ys;
  for (const auto& p : pts) {
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  const auto on = pair_front(xs, metric_info(v.x).maximize, ys, metric_info(v.y).maximize);
  for (std::size_t i = 0; i < pts.size(); ++i) pts[i].pair_front = on[i];
  return pts;
}

// How many of the other (not notable) designs there are and how many are shown.
struct Shown {
  std::size_t others = 0, others_shown = 0;
};

// A large run plots its notable designs (on either front, references, the chosen one) and an
// evenly spaced sample of the others: at most kShownPointsMax markers. Then the pair's
// non-dominated points first, by x (the line is drawn from its own file).
Shown thin_and_order(std::vector<ViewPoint>& pts) {
  auto notable = [](const ViewPoint& p) { return p.pair_front || p.front || p.reference || p.chosen; };
  std::size_t n_notable = 0;
  Shown shown;
  for (const auto& p : pts) (notable(p) ? n_notable : shown.others) += 1;
  shown.others_shown = shown.others;
  if (pts.size() > kShownPointsMax) {
    const std::size_t room = kShownPointsMax > n_notable ? kShownPointsMax - n_notable : 1;
    std::vector<ViewPoint> kept;
    std::size_t k = 0;
    for (const auto& p : pts) {
      if (notable(p) || in_sample(k++, shown.others, room)) kept.push_back(p);
    }
    pts = std::move(kept);
    shown.others_shown = pts.size() - n_notable;
  }
  std::stable_sort(pts.begin(), pts.end(), [](const ViewPoint& a, const ViewPoint& b) {
    if (a.pair_front != b.pair_front) return a.pair_front;
    return a.pair_front && (a.x != b.x ? a.x < b.x : a.y < b.y);
  });
  return shown;
}

// <name>.csv (the points) and <name>_line.csv (the staircase).
void write_view_data(const std::string& dir, const std::string& name, const SweepSpec& sweep, const PlotAxis& ax,
                     const PlotAxis& ay, const std::vector<ViewPoint>& pts, const std::vector<LineVertex>& staircase) {
  std::string csv = "id," + ax.column + "," + ay.column + ",pair_front,pareto_front,reference,chosen,name\n";
  for (const auto& p : pts) {
    csv += fmt::format("{},{},{},{:d},{:d},{:d},{:d},{}\n", p.id, number_text(p.x), number_text(p.y),
                       p.pair_front, p.front, p.reference, p.chosen, csv_cell(point_name(sweep, p.id)));
  }
  write_file_atomic(dir + "/" + name + ".csv", csv);
  std::string line = ax.column + "," + ay.column + "\n";
  for (const LineVertex& c : staircase) line += number_text(c.x) + "," + number_text(c.y) + "\n";
  write_file_atomic(dir + "/" + name + "_line.csv", line);
}

// The view's caption: what the markers, rings and line show.
std::string view_caption(const SweepEvaluator& eval, const std::string& name, const PlotAxis& ax, const PlotAxis& ay,
                         const std::vector<ViewPoint>& pts, std::size_t feasible, bool line, const Shown& shown) {
  std::size_t n_pair = 0, n_front = 0;
  for (const auto& p : pts) {
    n_pair += p.pair_front;
    n_front += p.front;
  }
  std::string objectives, rings;
  for (Metric m : eval.objectives()) objectives += (objectives.empty() ? "" : ", ") + std::string(metric_info(m).name);
  const auto ring_list = ringed(pts);
  for (std::size_t k = 0; k < ring_list.size(); ++k) {
    rings += fmt::format("{}{}: {}", k == 0 ? "" : "; ", k + 1, ring_list[k].second);
  }
  const std::string pair_text =
      line ? fmt::format("Line and black rings: {} no other design beats on both {} and {} (the "
                         "staircase of {}_line.csv)",
                         the_designs(n_pair), ax.label, ay.label, name)
           : fmt::format("Black ring: {} no other design beats on both {} and {} (single design, "
                         "no line)",
                         the_designs(n_pair), ax.label, ay.label);
  return fmt::format(
      "{}. {}; blue: {} on the Pareto front of all {} objectives ({}); a blue point without a "
      "black ring is beaten here by a design that is worse on another objective; grey: {}.{}",
      count_of(feasible, "feasible design"), pair_text, the_designs(n_front), eval.objectives().size(), objectives,
      shown.others_shown == shown.others
          ? std::string("the other feasible designs")
          : fmt::format("an evenly spaced sample (by id) of {} of the {} other feasible designs, which "
                        "results.csv lists all of",
                        shown.others_shown, shown.others),
      rings.empty() ? "" : " Numbered rings: " + rings + ".");
}

}  // namespace

std::vector<PlotFile> write_front_plots(const std::string& dir, const SweepEvaluator& eval,
                                        const RunState& state, const FinalResult& f,
                                        std::vector<std::string>& notes) {
  std::vector<PlotFile> plots;
  const std::size_t n_obj = eval.objectives().size();
  for (const FrontView& v : front_views(eval.objectives(), eval.sweep().choose_metric)) {
    const PlotAxis ax = plot_axis(v.x), ay = plot_axis(v.y);
    std::vector<ViewPoint> pts = view_points(eval, state, f, v, ax, ay);
    if (pts.empty()) continue;
    std::vector<double> xs, ys;
    for (const auto& p : pts) {
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
    const auto staircase = pair_staircase(xs, metric_info(v.x).maximize, ys, metric_info(v.y).maximize);
    const std::size_t feasible = pts.size();
    const Shown shown = thin_and_order(pts);
    const std::string name = "front_" + ax.column + "_vs_" + ay.column;
    write_view_data(dir, name, eval.sweep(), ax, ay, pts, staircase);
    const std::string title =
        n_obj == 2 ? fmt::format("Pareto front: {} vs {} ({})", ay.label, ax.label,
                                 count_of(feasible, "feasible design"))
                   : fmt::format("Projection of the {}-objective front: {} vs {}", n_obj, ay.label,
                                 ax.label);
    const std::string caption = view_caption(eval, name, ax, ay, pts, feasible, staircase.size() > 1, shown);
    if (run_gnuplot(dir, name, view_script(name, title, ax, ay, pts, staircase), notes)) {
      plots.push_back({name + ".svg", {name + ".csv", name + "_line.csv"}, title, caption});
    }
  }
  return plots;
}

}  // namespace ttsim::dse
