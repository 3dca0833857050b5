// The chosen design's layer breakdown as horizontal bars (dse/report/plots.h).
#include <algorithm>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "dse/report/gnuplot.h"
#include "dse/run/outputs.h"
#include "dse/report/plots.h"
#include "dse/report/report_tables.h"

namespace ttsim::dse {

namespace {
constexpr std::size_t kTopLayers = 15;

struct Layer {
  std::string name;
  long long busy = 0;
};
}  // namespace

std::vector<PlotFile> write_breakdown_plot(const std::string& dir, const FinalResult& f,
                                           std::vector<std::string>& notes) {
  const Json& b = f.chosen_detail.breakdown;
  if (!f.chosen || !b.is_object() || !b.contains("layers") || !b.contains("stages")) {
    notes.push_back("breakdown.svg not drawn: no chosen design with a latency breakdown");
    return {};
  }
  const long long step = b.value("step_cycles", 0LL);
  std::string stages = "stage,cycles,share_of_step_pct\n";
  for (const char* s : {"forward", "backward", "update"}) {
    const long long c = b["stages"].value(s, 0LL);
    stages += fmt::format("{},{},{}\n", s, c, number_text(step > 0 ? 100.0 * c / step : NAN));
  }
  write_file_atomic(dir + "/breakdown_stages.csv", stages);

  std::vector<Layer> layers;
  long long total = 0;
  for (const auto& l : b["layers"]) {
    layers.push_back({l.value("name", std::string("?")), l.value("busy_cycles", 0LL)});
    total += layers.back().busy;
  }
  std::stable_sort(layers.begin(), layers.end(),
                   [](const Layer& a, const Layer& c) { return a.busy > c.busy; });
  std::string csv = "rank,layer,busy_cycles,share_of_busy_pct\n";
  long long top_busy = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    csv += fmt::format("{},{},{},{}\n", i + 1, csv_cell(layers[i].name), layers[i].busy,
                       number_text(total > 0 ? 100.0 * layers[i].busy / total : NAN));
    if (i < kTopLayers) top_busy += layers[i].busy;
  }
  write_file_atomic(dir + "/breakdown_layers.csv", csv);
  if (layers.empty()) {
    notes.push_back("breakdown.svg not drawn: the chosen design's breakdown lists no layer");
    return {};
  }
  const std::size_t shown = std::min(kTopLayers, layers.size());
  const std::string title = fmt::format(
      "Chosen design (id {}): the {} busiest of {} layers, {:.0f} % of the busy cycles of one training step",
      *f.chosen, shown, layers.size(), total > 0 ? 100.0 * top_busy / total : 0.0);
  // Bars from 0 to busy cycles (boxxyerror: x, y, x half-width, y half-height); the first
  // CSV row (the busiest layer) at the top.
  std::string s = gnuplot_head("breakdown", 900, 140 + 28 * static_cast<int>(shown));
  s += "set title " + gnuplot_quote(title) + "\n"
       "set xlabel 'busy cycles of the layer''s tasks in one step (cycles)'\n"
       "set grid xtics noytics\nset yrange [" + fmt::format("{}", shown - 0.4) + ":-0.6]\n"
       "set xrange [0:*]\nset offsets 0, graph 0.08, 0, 0\nset format x '%.0s%c'\nset ytics scale 0\nset style fill solid 0.85 noborder\n"
       "set lmargin 14\nunset key\n"
       "plot 'breakdown_layers.csv' every ::0::" + std::to_string(shown - 1) +
       " using ($3/2):0:($3/2):(0.36):ytic(2) with boxxyerror lc rgb '#4477aa', \\\n"
       "     '' every ::0::" + std::to_string(shown - 1) +
       " using 3:0:(sprintf(' %.1f %%', $4)) with labels left offset 0.4,0 font ',10'\n";
  if (!run_gnuplot(dir, "breakdown", s, notes)) return {};
  const std::string caption = fmt::format(
      "Busy cycles of each layer's tasks in one training step of the chosen design; the label is "
      "the layer's share of the {} busy cycles of all layers (the step takes {} cycles). "
      "breakdown_layers.csv lists all {} layers, breakdown_stages.csv the forward, backward and "
      "update stages.",
      table_number(Metric::kStepCycles, static_cast<double>(total)),
      table_number(Metric::kStepCycles, static_cast<double>(step)), layers.size());
  return {{"breakdown.svg", {"breakdown_layers.csv", "breakdown_stages.csv"}, title, caption}};
}

}  // namespace ttsim::dse
