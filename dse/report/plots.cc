#include "dse/report/plots.h"

namespace ttsim::dse {

std::vector<PlotFile> write_plots(const std::string& dir, const SweepEvaluator& eval,
                                  const RunState& state, const FinalResult& f,
                                  std::vector<std::string>& notes) {
  std::vector<PlotFile> plots;
  if (f.front.empty()) {
    notes.push_back("plots not drawn: no feasible point");
    return plots;
  }
  for (auto part : {write_front_plots(dir, eval, state, f, notes),
                    write_rank_plot(dir, eval, state, f, notes),
                    write_breakdown_plot(dir, f, notes)}) {
    plots.insert(plots.end(), part.begin(), part.end());
  }
  return plots;
}

}  // namespace ttsim::dse
