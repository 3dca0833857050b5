#include "hls/reports/impl_reports.h"

#include <pugixml.hpp>

#include "core/errors.h"
#include "hls/reports/text_table.h"
#include "hls/reports/xml_util.h"

namespace ttsim::hls {

ExportImplReport parse_export_impl_xml(const std::string& text, const std::string& source) {
  pugi::xml_document doc;
  xml::load(doc, text, source);
  pugi::xml_node root = xml::root(doc, "profile", source);
  ExportImplReport r;
  r.source = source;
  pugi::xml_node run = root.child("RunData");
  r.vivado_version = xml::text(run.child("VIVADO_VERSION"));
  r.run_type = xml::text(run.child("RUN_TYPE"));
  pugi::xml_node timing = xml::require(root, "TimingReport", source);
  xml::UnknownList* u = &r.unknowns;
  r.target_clock_ns = xml::clock_period(timing.child("TargetClockPeriod"), source, u);
  r.achieved_clock_ns = xml::number(timing.child("AchievedClockPeriod"), source, u);
  if (pugi::xml_node met = timing.child("TIMING_MET")) {
    std::string t = xml::text(met);
    if (t == "TRUE") r.timing_met = true;
    else if (t == "FALSE") r.timing_met = false;
    else throw InputError(source + ": " + xml::path(met) + ": expected TRUE or FALSE, found \"" + t + "\"");
  }
  pugi::xml_node area = xml::require(root, "AreaReport", source);
  pugi::xml_node res = xml::require(area, "Resources", source);
  auto get = [&](pugi::xml_node p, const char* n) -> std::optional<std::int64_t> {
    pugi::xml_node c = p.child(n);
    if (!c) return std::nullopt;
    return xml::integer(c, source, u);
  };
  r.bram_18k = get(res, "BRAM");
  r.dsp = get(res, "DSP");
  r.ff = get(res, "FF");
  r.lut = get(res, "LUT");
  r.uram = get(res, "URAM");
  r.clb = get(res, "CLB");
  r.srl = get(res, "SRL");
  r.latch = get(res, "LATCH");
  pugi::xml_node av = area.child("AvailableResources");
  r.avail_bram_18k = get(av, "BRAM");
  r.avail_dsp = get(av, "DSP");
  r.avail_ff = get(av, "FF");
  r.avail_lut = get(av, "LUT");
  r.avail_uram = get(av, "URAM");
  return r;
}

ExportImplReport read_export_impl_xml(const std::string& path) {
  return parse_export_impl_xml(xml::read_file(path), path);
}

const CosimRun* CosimReport::passed() const {
  for (const auto& r : runs)
    if (r.status == "Pass") return &r;
  return nullptr;
}

CosimReport parse_cosim_rpt(const std::string& text, const std::string& source) {
  auto ls = rpt::lines(text);
  CosimReport r;
  r.source = source;
  auto strip_dot = [](std::string s) {
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  r.solution = strip_dot(rpt::header_value(ls, "Solution").value_or(""));
  r.simulation_tool = strip_dot(rpt::header_value(ls, "Simulation tool").value_or(""));
  for (std::size_t i = 0; i < ls.size(); ++i) {
    auto cells = rpt::row_cells(ls[i]);
    if (!cells || cells->empty()) continue;
    const std::string& rtl = (*cells)[0];
    if (rtl != "VHDL" && rtl != "Verilog") continue;
    std::string where = source + ": line " + std::to_string(i + 1) + " (" + rtl + ")";
    if (cells->size() < 9) {
      throw InputError(where + ": expected 9 cells (RTL, Status, latency min/avg/max, interval "
                       "min/avg/max, total), found " + std::to_string(cells->size()));
    }
    auto cnt = [&](std::size_t k) {
      const std::string& t = (*cells)[k];
      if (t == "NA") return Count::unknown();  // "?", "undef" and the sentinel family: parse_count_text
      auto c = parse_count_text(t);
      if (!c) throw InputError(where + ": cell " + std::to_string(k + 1) +
                               ": expected an integer, NA or ?, found \"" + t + "\"");
      return *c;
    };
    CosimRun run;
    run.rtl = rtl;
    run.status = (*cells)[1];
    run.latency_min = cnt(2);
    run.latency_avg = cnt(3);
    run.latency_max = cnt(4);
    run.interval_min = cnt(5);
    run.interval_avg = cnt(6);
    run.interval_max = cnt(7);
    run.total_execution = cnt(8);
    r.runs.push_back(run);
  }
  if (r.runs.empty()) throw InputError(source + ": no VHDL or Verilog result row (not a cosim report?)");
  return r;
}

CosimReport read_cosim_rpt(const std::string& path) {
  return parse_cosim_rpt(xml::read_file(path), path);
}

}  // namespace ttsim::hls
