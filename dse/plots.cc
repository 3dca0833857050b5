#include "dse/plots.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "dse/axes.h"
#include "dse/resolve.h"

namespace ttsim::dse {

namespace {

bool run_gnuplot(const std::string& dir, const std::string& name, const std::string& script,
                 std::vector<std::string>& notes) {
  write_file_atomic(dir + "/" + name + ".gp", script);
  const std::string tmp = dir + "/" + name + ".svg.tmp";
  // Run in `dir` so the scripts' data paths are relative (the folder can be moved).
  const std::string cmd = "cd '" + dir + "' && gnuplot -e \"outfile='" + name + ".svg.tmp'\" '" +
                          name + ".gp' 2>'" + name + ".gnuplot.log'";
  if (std::system(cmd.c_str()) != 0 || !std::filesystem::exists(tmp)) {
    notes.push_back(name + ".svg not drawn: gnuplot failed or is not installed (see " + name +
                    ".gnuplot.log)");
    std::filesystem::remove(tmp);
    return false;
  }
  std::filesystem::rename(tmp, dir + "/" + name + ".svg");
  std::filesystem::remove(dir + "/" + name + ".gnuplot.log");
  return true;
}

const char* kHead =
    "set terminal svg size 900,600 dynamic enhanced font 'sans,12' background rgb 'white'\n"
    "set output outfile\nset grid\n";

}  // namespace

std::vector<std::string> write_plots(const std::string& dir, const SweepEvaluation& eval,
                                     const RunState& state, const FinalResult& f,
                                     std::vector<std::string>& notes) {
  std::vector<std::string> svgs;
  const auto& sweep = eval.sweep();
  std::string points = "# epoch_seconds onchip_mib tt_rank compression on_front reference id\n";
  for (std::size_t i = 0; i < f.ids.size(); ++i) {
    if (!f.verdicts[i].feasible) continue;
    const Evaluation& e = state.points.at(f.ids[i]).best();
    const PointConfig p = resolve_point(sweep, f.ids[i]);
    const Json rank = axis_current_value("tt_rank", p.model, p.arch);
    points += fmt::format("{} {} {} {} {} {} {}\n", e.metrics[Metric::kEpochSeconds],
                          e.metrics[Metric::kOnchipBytes] / (1024.0 * 1024.0),
                          rank.is_number() ? rank.get<double>() : NAN,
                          e.metrics[Metric::kCompression], f.on_front[i] ? 1 : 0,
                          sweep.space.is_reference(f.ids[i]) ? 1 : 0, f.ids[i]);
  }
  write_file_atomic(dir + "/points.dat", points);
  if (f.front.empty()) {
    notes.push_back("plots not drawn: no feasible point");
    return svgs;
  }
  const std::string pareto = std::string(kHead) +
      "set title 'Feasible designs: epoch latency vs peak on-chip memory'\n"
      "set xlabel 'epoch latency (s)'\nset ylabel 'peak on-chip memory (MiB)'\n"
      "set logscale x\nset cblabel 'TT rank'\nset palette rgbformulae 33,13,10\n"
      "set key top right\n"
      "plot 'points.dat' using 1:2:3 with points pt 7 ps 0.6 palette title 'feasible', \\\n"
      "     '< awk \"\\$5==1\" points.dat | sort -g' using 1:2 with linespoints lc rgb 'black' "
      "pt 6 ps 1.2 title 'Pareto front', \\\n"
      "     '< awk \"\\$6==1\" points.dat' using 1:2 with points lc rgb 'red' pt 5 ps 1.4 "
      "title 'reference design'\n";
  if (run_gnuplot(dir, "pareto", pareto, notes)) svgs.push_back("pareto.svg");

  const std::string rcl = std::string(kHead) +
      "set title 'TT rank vs compression, coloured by epoch latency'\n"
      "set xlabel 'TT rank'\nset ylabel 'compression (dense / stored parameters)'\n"
      "set logscale cb\nset cblabel 'epoch latency (s)'\nset palette rgbformulae 22,13,-31\n"
      "plot 'points.dat' using 3:4:1 with points pt 7 ps 0.8 palette notitle\n";
  if (run_gnuplot(dir, "rank_compression_latency", rcl, notes)) {
    svgs.push_back("rank_compression_latency.svg");
  }

  const Json& b = f.chosen_detail.breakdown;
  if (b.is_object() && b.contains("layers") && b.contains("stages")) {
    std::string stages = "# stage cycles\n";
    for (const char* s : {"forward", "backward", "update"}) {
      stages += fmt::format("{} {}\n", s, b["stages"].value(s, 0LL));
    }
    std::string layers = "# layer busy_cycles\n";
    for (const auto& l : b["layers"]) {
      layers += fmt::format("{} {}\n", l.value("name", std::string("?")), l.value("busy_cycles", 0LL));
    }
    write_file_atomic(dir + "/breakdown_stages.dat", stages);
    write_file_atomic(dir + "/breakdown_layers.dat", layers);
    const std::string bd =
        "set terminal svg size 1100,800 dynamic enhanced font 'sans,11' background rgb 'white'\n"
        "set output outfile\nset grid ytics\nset style fill solid 0.8\nset boxwidth 0.7\n"
        "set multiplot layout 2,1 title 'Chosen design (id " + std::to_string(f.chosen.value_or(0)) +
        "): latency breakdown of one training step'\n"
        "set ylabel 'cycles'\nset title 'by stage (critical path)'\n"
        "plot 'breakdown_stages.dat' using 0:2:xtic(1) with boxes lc rgb '#4477aa' notitle\n"
        "set title 'by layer (busy cycles of its tasks)'\nset xtics rotate by 60 right font ',8'\n"
        "plot 'breakdown_layers.dat' using 0:2:xtic(1) with boxes lc rgb '#cc6677' notitle\n"
        "unset multiplot\n";
    if (run_gnuplot(dir, "breakdown", bd, notes)) svgs.push_back("breakdown.svg");
  }
  return svgs;
}

}  // namespace ttsim::dse
