// Compression by TT rank and encoder count (dse/report/plots.h).
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "dse/space/axes.h"
#include "dse/report/gnuplot.h"
#include "dse/run/outputs.h"
#include "dse/report/plots.h"
#include "dse/evaluate/resolve.h"
#include "models/model_spec.h"

namespace ttsim::dse {

namespace {

struct RankCell {
  double compression = NAN;
  int designs = 0;
  int feasible = 0;
  double best_epoch_seconds = NAN;  // over the feasible designs
};

/// True when a per-layer override gives some layer a TT rank other than its kind's (the
/// design has no single TT rank to plot against).
bool has_layer_ranks(const Json& model) {
  if (!model.contains("overrides") || !model.at("overrides").is_object()) return false;
  for (const auto& [layer, o] : model.at("overrides").items()) {
    if (!o.is_object()) continue;
    const Json kind_rank =
        model.value("layers", Json::object()).value(linear_kind_of(layer), Json::object()).value("rank", Json());
    if (o.contains("ranks") || (o.contains("rank") && o.at("rank") != kind_rank)) return true;
  }
  return false;
}

}  // namespace

std::vector<PlotFile> write_rank_plot(const std::string& dir, const SweepEvaluator& eval,
                                      const RunState& state, const FinalResult& f,
                                      std::vector<std::string>& notes) {
  const auto& sweep = eval.sweep();
  for (const auto& a : sweep.space.axes()) {
    if (a.name.rfind("tt_rank.", 0) == 0) {  // per-layer ranks: no one rank per design
      notes.push_back("rank_compression.svg not drawn: the sweep sets TT ranks per layer (axis " + a.name +
                      "), so its designs have no single TT rank");
      return {};
    }
  }
  std::map<std::pair<double, double>, RankCell> cells;  // (encoders, rank)
  state.for_each([&](PointId id, const PointRecord& r) {  // one point in memory at a time
    const PointConfig p = resolve_point(sweep, id);
    const Json rank = axis_current_value("tt_rank", p.model(), p.arch());
    const Json enc = axis_current_value("encoders", p.model(), p.arch());
    if (!rank.is_number() || !enc.is_number() || has_layer_ranks(p.model())) return;
    const auto& m = r.best().metrics;
    RankCell& c = cells[{enc.get<double>(), rank.get<double>()}];
    if (std::isnan(c.compression)) c.compression = m[Metric::kCompression];
    ++c.designs;
    if (state.points.at(id).feasible) {
      ++c.feasible;
      const double s = m[Metric::kEpochSeconds];
      if (std::isnan(c.best_epoch_seconds) || s < c.best_epoch_seconds) c.best_epoch_seconds = s;
    }
  });
  if (cells.empty()) {
    notes.push_back("rank_compression.svg not drawn: the points have no TT rank or encoder count");
    return {};
  }
  std::string csv = "encoders,tt_rank,compression,designs,feasible_designs,best_feasible_epoch_seconds\n";
  std::set<double> encoders;
  for (const auto& [key, c] : cells) {
    encoders.insert(key.first);
    csv += fmt::format("{},{},{},{},{},{}\n", number_text(key.first), number_text(key.second),
                       number_text(c.compression), c.designs, c.feasible,
                       number_text(c.best_epoch_seconds));
  }
  const std::string name = "rank_compression";
  write_file_atomic(dir + "/" + name + ".csv", csv);

  const std::string title = "Compression by TT rank, one line per encoder count";
  std::string s = gnuplot_head(name, 900, 560);
  s += "set title " + gnuplot_quote(title) + "\n"
       "set xlabel 'TT rank (r)'\nset ylabel 'compression (dense / stored parameters, x)'\n"
       "set offsets graph 0.04, graph 0.04, graph 0.08, graph 0.08\n"
       "set key below\nset style circle radius screen 0.007\n";
  const auto& minc = sweep.constraints.min_compression;
  if (minc) {
    s += fmt::format("set arrow 1 from graph 0, first {0} to graph 1, first {0} nohead dt 2 lc rgb '#cc3311'\n"
                     "set label 1 'constraint: compression >= {0}x' at graph 0.01, first {0} offset 0,0.7 "
                     "tc rgb '#cc3311'\n",
                     *minc);
  }
  const char* colours[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#555555"};
  std::string plot;
  int k = 0;
  for (double e : encoders) {
    const std::string c = colours[k++ % 7];
    const std::string sel = fmt::format("($1=={} ? $3 : NaN)", e);
    const std::string sel_f = fmt::format("($1=={} && $5>0 ? $3 : NaN)", e);
    plot += std::string(plot.empty() ? "plot " : ", \\\n     ") + gnuplot_quote(name + ".csv") +
            " using 2:" + sel + " with lines lw 1.5 lc rgb '" + c + "' title " +
            gnuplot_quote(fmt::format("{} encoders", e)) + ", \\\n     '' using 2:" + sel +
            " with circles lw 1.5 lc rgb '" + c + "' fs empty notitle, \\\n     '' using 2:" + sel_f +
            " with circles lc rgb '" + c + "' fs solid 1.0 noborder notitle";
  }
  s += plot + ", \\\n     keyentry with circles lc rgb 'black' fs solid 1.0 noborder title "
              "'filled: some design feasible', \\\n     keyentry with circles lw 1.5 lc rgb 'black' fs "
              "empty title 'open: none feasible'\n";
  if (!run_gnuplot(dir, name, s, notes)) return {};
  const std::string caption = fmt::format(
      "Every (TT rank, encoder count) pair of the {} evaluated designs, with the compression of its "
      "model; a filled marker means at least one design with that rank and encoder count meets every "
      "constraint (the CSV adds the number of designs, the feasible ones and their lowest epoch latency).",
      f.evaluated);
  return {{name + ".svg", {name + ".csv"}, title, caption}};
}

}  // namespace ttsim::dse
