#pragma once
// report.html: one self-contained page showing summary.md's content and the SVG plots.

#include <string>
#include <vector>

namespace ttsim::dse {

/// Writes <dir>/report.html embedding `summary_markdown` (as preformatted text) and
/// linking the SVGs `svgs` (file names in `dir`) and the CSV/JSON outputs.
void write_report_html(const std::string& dir, const std::string& title,
                       const std::string& summary_markdown, const std::vector<std::string>& svgs);

}  // namespace ttsim::dse
