#pragma once
// SVG plots of a run, drawn by gnuplot (gnuplot-nox) from data files in the out folder:
//   pareto.svg                 epoch latency vs peak on-chip memory of the feasible
//                              points, coloured by TT rank, front and reference marked
//   breakdown.svg              the chosen design's cycles by stage and busy cycles by layer
//   rank_compression_latency.svg  TT rank vs compression, coloured by epoch latency
// Each plot's data (*.dat) and script (*.gp) stay next to it for re-plotting.

#include <string>
#include <vector>

#include "dse/finish.h"
#include "dse/run_state.h"
#include "dse/sweep_evaluation.h"

namespace ttsim::dse {

/// Writes the data, scripts and SVGs into `dir`. Returns the SVG file names written;
/// when gnuplot is not installed or fails, returns what worked and adds a note to `notes`.
std::vector<std::string> write_plots(const std::string& dir, const SweepEvaluation& eval,
                                     const RunState& state, const FinalResult& final,
                                     std::vector<std::string>& notes);

}  // namespace ttsim::dse
