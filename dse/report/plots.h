#pragma once
// The plots of a run, drawn by gnuplot (gnuplot-nox) into the out folder. Each plot's data
// is a CSV file beside its SVG (and its gnuplot script, <name>.gp, for re-plotting):
//   front_<x>_vs_<y>.svg/.csv  one 2-D view per objective pair (the design-choice metric
//                              against each other objective) of the feasible designs: the
//                              pair's non-dominated points as a staircase line, the
//                              N-objective front and the other feasible designs as points,
//                              the reference designs and the chosen design ringed
//   rank_compression.svg/.csv  compression by TT rank, one line per encoder count, marking
//                              the (rank, encoders) pairs with a feasible design
//   breakdown.svg              the chosen design's busiest layers as horizontal bars;
//                              breakdown_layers.csv (every layer) and breakdown_stages.csv
// Markers are drawn as paths (gnuplot `circles`), not SVG `use` references, so converters
// that drop `use` elements still show them.

#include <string>
#include <vector>

#include "dse/run/finish.h"
#include "dse/run/run_state.h"
#include "dse/evaluate/sweep_evaluator.h"

namespace ttsim::dse {

/// One drawn plot: its SVG, its CSV data (file names in the out folder), a title and a
/// caption saying what it shows.
struct PlotFile {
  std::string svg;
  std::vector<std::string> csvs;
  std::string title;
  std::string caption;
};

/// Writes every plot above into `dir`, in the order listed. Returns the plots drawn; a
/// plot gnuplot could not draw, or one without data, is left out with a note in `notes`.
std::vector<PlotFile> write_plots(const std::string& dir, const SweepEvaluator& eval,
                                  const RunState& state, const FinalResult& final,
                                  std::vector<std::string>& notes);

/// The front views (see the file comment); none for fewer than two objectives.
std::vector<PlotFile> write_front_plots(const std::string& dir, const SweepEvaluator& eval,
                                        const RunState& state, const FinalResult& final,
                                        std::vector<std::string>& notes);

/// The rank/compression plot; none when the points have no TT rank.
std::vector<PlotFile> write_rank_plot(const std::string& dir, const SweepEvaluator& eval,
                                      const RunState& state, const FinalResult& final,
                                      std::vector<std::string>& notes);

/// The chosen design's layer breakdown; none without a chosen design or breakdown.
std::vector<PlotFile> write_breakdown_plot(const std::string& dir, const FinalResult& final,
                                           std::vector<std::string>& notes);

}  // namespace ttsim::dse
