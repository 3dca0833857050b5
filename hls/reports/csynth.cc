#include "hls/reports/csynth.h"

#include <cstring>

#include <pugixml.hpp>

#include "core/errors.h"
#include "hls/reports/xml_util.h"

namespace ttsim::hls {

namespace {

// Fields of a loop element; every other child element with children is a nested loop.
const char* const kLoopFields[] = {"Name",          "Slack",      "TripCount",
                                   "Latency",       "AbsoluteTimeLatency",
                                   "IterationLatency", "PipelineII", "PipelineDepth",
                                   "PipelineType",  "InstanceList"};

bool is_loop_field(const char* name) {
  for (const char* f : kLoopFields)
    if (std::strcmp(f, name) == 0) return true;
  return false;
}

std::optional<TimeSpan> time_of(pugi::xml_node node, const std::string& file) {
  if (!node) return std::nullopt;
  std::string t = xml::text(node);
  if (t.empty()) return std::nullopt;
  auto s = parse_time_text(t);
  if (!s) {
    throw InputError(file + ": " + xml::path(node) +
                     ": expected a time such as \"68.552 us\" or \"undef\", found \"" + t + "\"");
  }
  return s;
}

LoopReport read_loop(pugi::xml_node el, const std::string& file, int depth);

std::vector<LoopReport> read_loops(pugi::xml_node parent, const std::string& file, int depth) {
  std::vector<LoopReport> out;
  for (pugi::xml_node c = parent.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element || is_loop_field(c.name())) continue;
    if (!c.first_child() || c.first_child().type() != pugi::node_element) continue;  // leaf field
    out.push_back(read_loop(c, file, depth + 1));
  }
  return out;
}

LoopReport read_loop(pugi::xml_node el, const std::string& file, int depth) {
  if (depth > 64) throw InputError(file + ": " + xml::path(el) + ": loops nested deeper than 64");
  LoopReport l;
  pugi::xml_node name = el.child("Name");
  l.name = name ? xml::text(name) : std::string(el.name());
  l.trip_count = xml::count(xml::require(el, "TripCount", file), file);
  l.latency = xml::count(xml::require(el, "Latency", file), file);
  l.iteration_latency = xml::optional_count(el, "IterationLatency", file);
  l.pipeline_ii = xml::optional_count(el, "PipelineII", file);
  l.pipeline_depth = xml::optional_count(el, "PipelineDepth", file);
  l.pipeline_type = xml::text(el.child("PipelineType"));
  l.absolute_time = time_of(el.child("AbsoluteTimeLatency"), file);
  for (pugi::xml_node i = el.child("InstanceList").first_child(); i; i = i.next_sibling()) {
    if (i.type() != pugi::node_element) continue;
    std::string t = xml::text(i);
    if (!t.empty()) l.instances.push_back(t);
  }
  l.loops = read_loops(el, file, depth);
  return l;
}

// Used resources (the module form also carries AVAIL_X / UTIL_X siblings, ignored here).
Resources read_resources(pugi::xml_node el, const std::string& file) {
  Resources r;
  if (!el) return r;
  auto get = [&](const char* n) -> std::optional<std::int64_t> {
    pugi::xml_node c = el.child(n);
    if (!c) return std::nullopt;
    return xml::integer(c, file);
  };
  r.bram_18k = get("BRAM_18K");
  r.dsp = get("DSP");  // Vitis HLS 2020.1+
  if (!r.dsp) r.dsp = get("DSP48E");  // Vivado HLS <= 2019.2: the same resource
  r.ff = get("FF");
  r.lut = get("LUT");
  r.uram = get("URAM");
  return r;
}

Resources read_module_available(pugi::xml_node el, const std::string& file) {
  Resources r;
  if (!el) return r;
  auto get = [&](const char* n) -> std::optional<std::int64_t> {
    pugi::xml_node c = el.child(n);
    if (!c) return std::nullopt;
    return xml::integer(c, file);
  };
  r.bram_18k = get("AVAIL_BRAM");
  r.dsp = get("AVAIL_DSP");
  r.ff = get("AVAIL_FF");
  r.lut = get("AVAIL_LUT");
  r.uram = get("AVAIL_URAM");
  return r;
}

BindNode read_bind_node(pugi::xml_node n, const std::string& file) {
  BindNode b;
  b.bind_type = n.attribute("BINDTYPE").value();
  b.op_type = n.attribute("OPTYPE").value();
  b.impl = n.attribute("IMPL").value();
  b.rtl_name = n.attribute("RTLNAME").value();
  b.variable = n.attribute("VARIABLE").value();
  b.source = n.attribute("SOURCE").value();
  b.loop = n.attribute("LOOP").value();
  b.latency = xml::int_attribute(n, "LATENCY", file);
  b.dsp = xml::int_attribute(n, "DSP", file);
  b.bram = xml::int_attribute(n, "BRAM", file);
  b.uram = xml::int_attribute(n, "URAM", file);
  return b;
}

ModuleReport read_module(pugi::xml_node m, const std::string& file) {
  ModuleReport r;
  r.name = xml::require_text(m, "Name", file);
  pugi::xml_node perf = m.child("PerformanceEstimates");
  pugi::xml_node timing = perf.child("SummaryOfTimingAnalysis");
  r.target_clock_ns = xml::clock_period(timing.child("TargetClockPeriod"), file);
  r.clock_uncertainty_ns = xml::number(timing.child("ClockUncertainty"), file);
  r.estimated_clock_ns = xml::number(timing.child("EstimatedClockPeriod"), file);
  if (perf) {
    pugi::xml_node lat = xml::require(perf, "SummaryOfOverallLatency", file);
    r.latency_best = xml::count(xml::require(lat, "Best-caseLatency", file), file);
    r.latency_worst = xml::count(xml::require(lat, "Worst-caseLatency", file), file);
    r.latency_average = xml::optional_count(lat, "Average-caseLatency", file).value_or(Count{});
    r.interval = xml::optional_count(lat, "PipelineInitiationInterval", file).value_or(Count{});
    r.pipeline_type = xml::text(lat.child("PipelineType"));
    r.loops = read_loops(perf.child("SummaryOfLoopLatency"), file, 0);
  }
  pugi::xml_node res = m.child("AreaEstimates").child("Resources");
  r.resources = read_resources(res, file);
  r.available = read_module_available(res, file);
  for (pugi::xml_node b : m.child("BindNodes").children("BindNode")) {
    r.bind_nodes.push_back(read_bind_node(b, file));
  }
  return r;
}

InstanceNode read_instance(pugi::xml_node el, const std::string& file, int depth) {
  if (depth > 64) throw InputError(file + ": " + xml::path(el) + ": instances nested deeper than 64");
  InstanceNode n;
  n.instance_name = xml::text(el.child("InstName"));
  n.module_name = xml::require_text(el, "ModuleName", file);
  for (pugi::xml_node i : el.child("InstancesList").children("Instance")) {
    n.instances.push_back(read_instance(i, file, depth + 1));
  }
  return n;
}

}  // namespace

const ModuleReport* CsynthReport::module(const std::string& name) const {
  for (const auto& m : modules)
    if (m.name == name) return &m;
  return nullptr;
}

CsynthReport parse_csynth_xml(const std::string& text, const std::string& source) {
  pugi::xml_document doc;
  xml::load(doc, text, source);
  pugi::xml_node root = xml::root(doc, "profile", source);
  CsynthReport r;
  r.source = source;
  r.tool_version = xml::require_text(xml::require(root, "ReportVersion", source), "Version", source);

  pugi::xml_node ua = xml::require(root, "UserAssignments", source);
  r.product_family = xml::text(ua.child("ProductFamily"));
  r.part = xml::require_text(ua, "Part", source);
  r.top = xml::require_text(ua, "TopModelName", source);
  r.flow_target = xml::text(ua.child("FlowTarget"));
  r.target_clock_ns = xml::clock_period(xml::require(ua, "TargetClockPeriod", source), source);
  r.clock_uncertainty_ns = xml::number(ua.child("ClockUncertainty"), source);

  pugi::xml_node perf = xml::require(root, "PerformanceEstimates", source);
  r.pipeline_type = xml::text(perf.child("PipelineType"));
  pugi::xml_node timing = xml::require(perf, "SummaryOfTimingAnalysis", source);
  r.estimated_clock_ns = xml::number(xml::require(timing, "EstimatedClockPeriod", source), source);
  pugi::xml_node lat = xml::require(perf, "SummaryOfOverallLatency", source);
  r.latency_best = xml::count(xml::require(lat, "Best-caseLatency", source), source);
  r.latency_worst = xml::count(xml::require(lat, "Worst-caseLatency", source), source);
  r.latency_average = xml::optional_count(lat, "Average-caseLatency", source).value_or(Count{});
  r.latency_best_time = time_of(lat.child("Best-caseRealTimeLatency"), source);
  r.latency_worst_time = time_of(lat.child("Worst-caseRealTimeLatency"), source);
  r.interval_min = xml::count(xml::require(lat, "Interval-min", source), source);
  r.interval_max = xml::count(xml::require(lat, "Interval-max", source), source);
  r.loops = read_loops(perf.child("SummaryOfLoopLatency"), source, 0);

  pugi::xml_node area = xml::require(root, "AreaEstimates", source);
  r.resources = read_resources(xml::require(area, "Resources", source), source);
  r.available = read_resources(area.child("AvailableResources"), source);

  for (pugi::xml_node m : root.child("ModuleInformation").children("Module")) {
    r.modules.push_back(read_module(m, source));
  }
  if (pugi::xml_node top = root.child("RTLDesignHierarchy").child("TopModule")) {
    r.hierarchy = read_instance(top, source, 0);
  }
  return r;
}

CsynthReport read_csynth_xml(const std::string& path) {
  return parse_csynth_xml(xml::read_file(path), path);
}

}  // namespace ttsim::hls
