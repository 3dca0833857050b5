#include "hls/reports/report_json.h"

#include "hls/reports/report_checks.h"
#include "hls/reports/report_consistency.h"
#include "hls/reports/report_identity.h"

namespace ttsim::hls {

using nlohmann::json;

namespace {

template <typename T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json site_json(const SiteUse& s) { return {{"used", s.used}, {"available", opt(s.available)}}; }

json opt_site(const std::optional<SiteUse>& s) { return s ? site_json(*s) : json(nullptr); }

json opt_count(const std::optional<Count>& c) { return c ? count_json(*c) : json(nullptr); }

json contradictions_json(const CsynthReport& r) {
  json out = json::array();
  for (const auto& c : contradictions(r)) out.push_back({{"module", c.module}, {"what", c.what}});
  return out;
}

json designs_json(const std::vector<CsynthReport>& csynth) {
  json out = json::array();
  for (const auto& g : group_designs(csynth)) {
    json same = json::array(), modules = json::array();
    for (std::size_t i : g.same_top) same.push_back(csynth[i].source);
    for (const auto& m : g.modules) {
      modules.push_back({{"report", csynth[m.report].source}, {"module", csynth[m.report].top},
                         {"parent", m.parent.empty() ? json(nullptr) : json(m.parent)}});
    }
    out.push_back({{"folder", g.folder}, {"top", g.top}, {"report", csynth[g.report].source},
                   {"same_top", same}, {"modules", modules}, {"mismatches", g.mismatches}});
  }
  return out;
}

}  // namespace

json count_json(const Count& c) {
  if (!c.min && !c.max) return nullptr;
  if (c.is_exact()) return *c.min;
  return {{"min", opt(c.min)}, {"max", opt(c.max)}};
}

json unknowns_json(const std::vector<UnknownValue>& unknowns) {
  json out = json::array();
  for (const auto& u : unknowns) {
    out.push_back({{"module", u.module}, {"field", u.field}, {"text", u.text}, {"kind", u.kind()}});
  }
  return out;
}

json resources_json(const Resources& r) {
  return {{"BRAM_18K", opt(r.bram_18k)}, {"DSP", opt(r.dsp)}, {"FF", opt(r.ff)},
          {"LUT", opt(r.lut)}, {"URAM", opt(r.uram)}};
}

json loop_json(const LoopReport& l) {
  json children = json::array();
  for (const auto& c : l.loops) children.push_back(loop_json(c));
  return {{"name", l.name},
          {"trip_count", count_json(l.trip_count)},
          {"latency", count_json(l.latency)},
          {"iteration_latency", opt_count(l.iteration_latency)},
          {"pipeline_ii", opt_count(l.pipeline_ii)},
          {"pipeline_depth", opt_count(l.pipeline_depth)},
          {"pipelined", l.pipelined()},
          {"instances", l.instances},
          {"loops", children}};
}

json csynth_json(const CsynthReport& r) {
  json loops = json::array();
  for (const auto& l : r.loops) loops.push_back(loop_json(l));
  json modules = json::array();
  for (const auto& m : r.modules) {
    json ml = json::array();
    for (const auto& l : m.loops) ml.push_back(loop_json(l));
    json binds = json::array();
    for (const auto& b : m.bind_nodes) {
      binds.push_back({{"bind_type", b.bind_type}, {"op_type", b.op_type}, {"impl", b.impl},
                       {"latency", opt(b.latency)}, {"dsp", opt(b.dsp)}, {"bram", opt(b.bram)},
                       {"uram", opt(b.uram)}, {"rtl_name", b.rtl_name}, {"variable", b.variable},
                       {"loop", b.loop}});
    }
    modules.push_back({{"name", m.name},
                       {"latency_best", m.latency_best.min ? json(*m.latency_best.min) : json(nullptr)},
                       {"latency_worst", m.latency_worst.max ? json(*m.latency_worst.max) : json(nullptr)},
                       {"interval", count_json(m.interval)},
                       {"pipeline_type", m.pipeline_type},
                       {"estimated_clock_ns", opt(m.estimated_clock_ns)},
                       {"resources", resources_json(m.resources)},
                       {"loops", ml},
                       {"bind_nodes", binds}});
  }
  return {{"source", r.source},
          {"top", r.top},
          {"part", r.part},
          {"tool_version", r.tool_version},
          {"product_family", r.product_family},
          {"flow_target", r.flow_target},
          {"target_clock_ns", opt(r.target_clock_ns)},
          {"clock_uncertainty_ns", opt(r.clock_uncertainty_ns)},
          {"estimated_clock_ns", opt(r.estimated_clock_ns)},
          {"pipeline_type", r.pipeline_type},
          {"latency_best", opt(r.latency_best.min)},
          {"latency_average", count_json(r.latency_average)},
          {"latency_worst", opt(r.latency_worst.max)},
          {"interval_min", opt(r.interval_min.min)},
          {"interval_max", opt(r.interval_max.max)},
          {"resources", resources_json(r.resources)},
          {"available", resources_json(r.available)},
          {"loops", loops},
          {"modules", modules},
          {"unknowns", unknowns_json(r.unknowns)},
          {"identity_problems", identity_problems(r)},
          {"contradictions", contradictions_json(r)}};
}

json report_set_json(const ReportSet& s) {
  json out = {{"csynth", json::array()}, {"designs", designs_json(s.csynth)}, {"export_impl", json::array()}, {"cosim", json::array()},
              {"utilization", json::array()}, {"power", json::array()}, {"not_read", s.not_read}, {"rejected", json::array()}};
  for (const auto& [path, why] : s.rejected) out["rejected"].push_back({{"source", path}, {"error", why}});
  for (const auto& r : s.csynth) {
    json j = csynth_json(r);
    const auto v = timing_violation(r);
    j["timing_met"] = r.estimated_clock_ns && r.target_clock_ns ? json(!v) : json(nullptr);
    if (v) j["warnings"] = json::array({v->message()});
    const auto c = r.latency_worst.known() ? std::nullopt : cosim_latency_for(r, s.cosim);
    j["cosim_latency"] = c ? json({{"source", c->source}, {"min", *c->latency.min}, {"max", *c->latency.max},
                                   {"note", "ground truth: csynth latency undef"}})
                           : json(nullptr);
    out["csynth"].push_back(j);
  }
  for (const auto& e : s.export_impl) {
    out["export_impl"].push_back(
        {{"source", e.source}, {"vivado_version", e.vivado_version}, {"run_type", e.run_type},
         {"target_clock_ns", opt(e.target_clock_ns)}, {"achieved_clock_ns", opt(e.achieved_clock_ns)},
         {"timing_met", opt(e.timing_met)},
         {"resources", {{"BRAM_18K", opt(e.bram_18k)}, {"DSP", opt(e.dsp)}, {"FF", opt(e.ff)},
                        {"LUT", opt(e.lut)}, {"URAM", opt(e.uram)}, {"CLB", opt(e.clb)},
                        {"SRL", opt(e.srl)}, {"LATCH", opt(e.latch)}}},
         {"available", {{"BRAM_18K", opt(e.avail_bram_18k)}, {"DSP", opt(e.avail_dsp)},
                        {"FF", opt(e.avail_ff)}, {"LUT", opt(e.avail_lut)}, {"URAM", opt(e.avail_uram)}}},
         {"unknowns", unknowns_json(e.unknowns)}});
  }
  for (const auto& c : s.cosim) {
    json runs = json::array();
    for (const auto& r : c.runs) {
      runs.push_back({{"rtl", r.rtl}, {"status", r.status},
                      {"latency_min", count_json(r.latency_min)}, {"latency_avg", count_json(r.latency_avg)},
                      {"latency_max", count_json(r.latency_max)}, {"interval_min", count_json(r.interval_min)},
                      {"interval_avg", count_json(r.interval_avg)}, {"interval_max", count_json(r.interval_max)},
                      {"total_execution", count_json(r.total_execution)}});
    }
    out["cosim"].push_back({{"source", c.source}, {"solution", c.solution},
                            {"simulation_tool", c.simulation_tool}, {"runs", runs}});
  }
  for (const auto& u : s.utilization) {
    out["utilization"].push_back(
        {{"source", u.source}, {"tool_version", u.tool_version}, {"device", u.device},
         {"design", u.design}, {"design_state", u.design_state},
         {"clb_luts", site_json(u.clb_luts)}, {"clb_registers", site_json(u.clb_registers)},
         {"block_ram_tile", site_json(u.block_ram_tile)}, {"bram_18k", u.bram_18k()},
         {"ramb36", opt_site(u.ramb36)}, {"ramb18", opt_site(u.ramb18)}, {"uram", opt_site(u.uram)},
         {"dsp", site_json(u.dsp)}, {"unknowns", unknowns_json(u.unknowns)}});
  }
  for (const auto& p : s.power) {
    json comps = json::array();
    for (const auto& [n, w] : p.components) comps.push_back({{"name", n}, {"power_w", w}});
    out["power"].push_back(
        {{"source", p.source}, {"tool_version", p.tool_version}, {"device", p.device},
         {"total_on_chip_w", p.total_on_chip_w}, {"dynamic_w", p.dynamic_w},
         {"device_static_w", p.device_static_w}, {"fpga_w", opt(p.fpga_w)}, {"hbm_w", opt(p.hbm_w)},
         {"junction_temperature_c", opt(p.junction_temperature_c)},
         {"confidence_level", p.confidence_level}, {"components", comps},
         {"unknowns", unknowns_json(p.unknowns)}});
  }
  return out;
}

}  // namespace ttsim::hls
