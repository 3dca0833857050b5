#include "dse/report_html.h"

#include "core/atomic_file.h"

namespace ttsim::dse {

namespace {
std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      default: out += c;
    }
  }
  return out;
}
}  // namespace

void write_report_html(const std::string& dir, const std::string& title,
                       const std::string& summary_markdown, const std::vector<std::string>& svgs) {
  std::string h = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + escape(title) +
                  "</title>\n<style>body{font-family:sans-serif;max-width:1200px;margin:auto}"
                  "pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}"
                  "img{max-width:100%;border:1px solid #ddd;margin:1em 0}</style></head><body>\n";
  h += "<h1>" + escape(title) + "</h1>\n";
  h += "<p>Data: <a href=\"results.csv\">results.csv</a> · <a href=\"results.json\">results.json</a>"
       " · <a href=\"pareto.csv\">pareto.csv</a> · <a href=\"chosen.json\">chosen.json</a>"
       " · <a href=\"summary.md\">summary.md</a> · <a href=\"hls_build/\">hls_build/</a></p>\n";
  for (const auto& svg : svgs) h += "<img src=\"" + escape(svg) + "\" alt=\"" + escape(svg) + "\">\n";
  h += "<h2>Summary</h2>\n<pre>" + escape(summary_markdown) + "</pre>\n</body></html>\n";
  write_file_atomic(dir + "/report.html", h);
}

}  // namespace ttsim::dse
