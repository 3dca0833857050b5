#pragma once
// Running gnuplot (gnuplot-nox) on a script next to its CSV data, for the plots of a run.

#include <string>
#include <vector>

namespace ttsim::dse {

/// Writes <dir>/<name>.gp and runs gnuplot in `dir` (the script's data paths are relative,
/// so the folder can be moved), without a shell, so any folder name works; the SVG is written to a temporary file and renamed to
/// <dir>/<name>.svg. gnuplot runs in its own process group, so a Ctrl-C at the terminal
/// does not kill it. Returns false, adding a note to `notes`, when gnuplot is not installed
/// or fails (its messages stay in <name>.gnuplot.log), or was killed by a signal (noted as
/// interrupted).
bool run_gnuplot(const std::string& dir, const std::string& name, const std::string& script,
                 std::vector<std::string>& notes);

/// The opening lines of every plot script: a fixed-size SVG of `width` × `height` pixels
/// on white, plain (not enhanced) text, the output file (the variable `outfile`, which
/// run_gnuplot sets; else <name>.svg, so `gnuplot <name>.gp` re-plots in the script's
/// folder), and CSV input whose first row names the columns.
std::string gnuplot_head(const std::string& name, int width, int height);

/// `s` as a single-quoted gnuplot string literal.
std::string gnuplot_quote(const std::string& s);

}  // namespace ttsim::dse
