#include "hls/reports/csynth.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

#include <fmt/format.h>
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

/// The file being read and where its unknown values are listed.
struct Src {
  const std::string& file;
  xml::UnknownList* unknowns;
};

std::optional<TimeSpan> time_of(pugi::xml_node node, const Src& src) {
  if (!node) return std::nullopt;
  std::string t = xml::text(node);
  if (t.empty()) return std::nullopt;
  auto s = parse_time_text(t);
  if (!s) {
    throw InputError(src.file + ": " + xml::path(node) +
                     ": expected a time such as \"68.552 us\" or \"undef\", found \"" + t + "\"");
  }
  if (!s->min_ns || !s->max_ns) xml::note_unknown(src.unknowns, node, nullptr, t);
  return s;
}

LoopReport read_loop(pugi::xml_node el, const Src& src, int depth);

std::vector<LoopReport> read_loops(pugi::xml_node parent, const Src& src, int depth) {
  std::vector<LoopReport> out;
  for (pugi::xml_node c = parent.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element || is_loop_field(c.name())) continue;
    if (!c.first_child() || c.first_child().type() != pugi::node_element) continue;  // leaf field
    out.push_back(read_loop(c, src, depth + 1));
  }
  return out;
}

LoopReport read_loop(pugi::xml_node el, const Src& src, int depth) {
  const std::string& file = src.file;
  if (depth > 64) throw InputError(file + ": " + xml::path(el) + ": loops nested deeper than 64");
  LoopReport l;
  pugi::xml_node name = el.child("Name");
  l.name = name ? xml::text(name) : std::string(el.name());
  l.trip_count = xml::count(xml::require(el, "TripCount", file), file, src.unknowns);
  l.latency = xml::count(xml::require(el, "Latency", file), file, src.unknowns);
  l.iteration_latency = xml::optional_count(el, "IterationLatency", file, src.unknowns);
  l.pipeline_ii = xml::optional_count(el, "PipelineII", file, src.unknowns);
  l.pipeline_depth = xml::optional_count(el, "PipelineDepth", file, src.unknowns);
  l.pipeline_type = xml::text(el.child("PipelineType"));
  l.absolute_time = time_of(el.child("AbsoluteTimeLatency"), src);
  for (pugi::xml_node i = el.child("InstanceList").first_child(); i; i = i.next_sibling()) {
    if (i.type() != pugi::node_element) continue;
    std::string t = xml::text(i);
    if (!t.empty()) l.instances.push_back(t);
  }
  l.loops = read_loops(el, src, depth);
  return l;
}

// Used resources (the module form also carries AVAIL_X / UTIL_X siblings, ignored here).
Resources read_resources(pugi::xml_node el, const Src& src) {
  Resources r;
  if (!el) return r;
  auto get = [&](const char* n) -> std::optional<std::int64_t> {
    pugi::xml_node c = el.child(n);
    if (!c) return std::nullopt;
    return xml::integer(c, src.file, src.unknowns);
  };
  r.bram_18k = get("BRAM_18K");
  r.dsp = get("DSP");  // Vitis HLS 2020.1+
  if (!r.dsp) r.dsp = get("DSP48E");  // Vivado HLS <= 2019.2: the same resource
  r.ff = get("FF");
  r.lut = get("LUT");
  r.uram = get("URAM");
  return r;
}

Resources read_module_available(pugi::xml_node el, const Src& src) {
  Resources r;
  if (!el) return r;
  auto get = [&](const char* n) -> std::optional<std::int64_t> {
    pugi::xml_node c = el.child(n);
    if (!c) return std::nullopt;
    return xml::integer(c, src.file, src.unknowns);
  };
  r.bram_18k = get("AVAIL_BRAM");
  r.dsp = get("AVAIL_DSP");
  r.ff = get("AVAIL_FF");
  r.lut = get("AVAIL_LUT");
  r.uram = get("AVAIL_URAM");
  return r;
}

/// Reads STORAGESIZE "<width> <depth> <banks>" into `b`; absent or empty leaves it empty.
/// A figure printed unknown ("?", "undef", the unbounded sentinel family) leaves it empty
/// and lists the attribute's text in `src.unknowns` (no figure is guessed); anything else
/// than three such figures throws InputError naming the file, the BindNode and the text.
void read_storage_size(pugi::xml_node n, BindNode& b, const Src& src) {
  const std::string text = n.attribute("STORAGESIZE").value();
  std::istringstream in(text);
  std::vector<std::string> parts;
  for (std::string p; in >> p;) parts.push_back(p);
  if (parts.empty()) return;
  std::vector<Count> figures;
  for (const auto& p : parts) {
    if (auto c = parse_count_text(p)) figures.push_back(*c);
  }
  if (parts.size() != 3 || figures.size() != 3) {
    throw InputError(fmt::format("{}: {}: attribute STORAGESIZE: expected \"<width> <depth> <banks>\" (three "
                                 "integers), found \"{}\"",
                                 src.file, xml::path(n), text));
  }
  if (!figures[0].is_exact() || !figures[1].is_exact() || !figures[2].is_exact()) {
    xml::note_unknown(src.unknowns, n, "STORAGESIZE", text);
    return;
  }
  b.storage_width = *figures[0].min;
  b.storage_depth = *figures[1].min;
  b.storage_banks = *figures[2].min;
}

BindNode read_bind_node(pugi::xml_node n, const Src& src) {
  const std::string& file = src.file;
  BindNode b;
  b.bind_type = n.attribute("BINDTYPE").value();
  b.op_type = n.attribute("OPTYPE").value();
  b.impl = n.attribute("IMPL").value();
  b.rtl_name = n.attribute("RTLNAME").value();
  b.variable = n.attribute("VARIABLE").value();
  b.source = n.attribute("SOURCE").value();
  b.loop = n.attribute("LOOP").value();
  b.latency = xml::int_attribute(n, "LATENCY", file, src.unknowns);
  b.dsp = xml::int_attribute(n, "DSP", file, src.unknowns);
  b.bram = xml::int_attribute(n, "BRAM", file, src.unknowns);
  b.uram = xml::int_attribute(n, "URAM", file, src.unknowns);
  read_storage_size(n, b, src);
  return b;
}

ModuleReport read_module(pugi::xml_node m, const Src& src) {
  const std::string& file = src.file;
  xml::UnknownList* u = src.unknowns;
  ModuleReport r;
  r.name = xml::require_text(m, "Name", file);
  pugi::xml_node perf = m.child("PerformanceEstimates");
  pugi::xml_node timing = perf.child("SummaryOfTimingAnalysis");
  r.target_clock_ns = xml::clock_period(timing.child("TargetClockPeriod"), file, u);
  r.clock_uncertainty_ns = xml::number(timing.child("ClockUncertainty"), file, u);
  r.estimated_clock_ns = xml::number(timing.child("EstimatedClockPeriod"), file, u);
  if (perf) {
    pugi::xml_node lat = xml::require(perf, "SummaryOfOverallLatency", file);
    r.latency_best = xml::count(xml::require(lat, "Best-caseLatency", file), file, u);
    r.latency_worst = xml::count(xml::require(lat, "Worst-caseLatency", file), file, u);
    r.latency_average = xml::optional_count(lat, "Average-caseLatency", file, u).value_or(Count{});
    r.interval = xml::optional_count(lat, "PipelineInitiationInterval", file, u).value_or(Count{});
    r.pipeline_type = xml::text(lat.child("PipelineType"));
    r.loops = read_loops(perf.child("SummaryOfLoopLatency"), src, 0);
  }
  pugi::xml_node res = m.child("AreaEstimates").child("Resources");
  r.resources = read_resources(res, src);
  r.available = read_module_available(res, src);
  for (pugi::xml_node b : m.child("BindNodes").children("BindNode")) {
    r.bind_nodes.push_back(read_bind_node(b, src));
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

std::optional<std::int64_t> BindNode::storage_bits() const {
  if (!storage_width || !storage_depth || !storage_banks) return std::nullopt;
  const long double bits = static_cast<long double>(*storage_width) * *storage_depth * *storage_banks;
  if (bits >= static_cast<long double>(kUnboundedFrom)) return std::nullopt;
  return *storage_width * *storage_depth * *storage_banks;
}

const ModuleReport* CsynthReport::module(const std::string& name) const {
  for (const auto& m : modules)
    if (m.name == name) return &m;
  return nullptr;
}

namespace {

/// UserAssignments and the report version into `r`.
void read_assignments(pugi::xml_node root, const Src& src, CsynthReport& r) {
  const std::string& source = src.file;
  r.tool_version = xml::require_text(xml::require(root, "ReportVersion", source), "Version", source);
  pugi::xml_node ua = xml::require(root, "UserAssignments", source);
  r.product_family = xml::text(ua.child("ProductFamily"));
  r.part = xml::require_text(ua, "Part", source);
  r.top = xml::require_text(ua, "TopModelName", source);
  r.flow_target = xml::text(ua.child("FlowTarget"));
  r.target_clock_ns = xml::clock_period(xml::require(ua, "TargetClockPeriod", source), source, src.unknowns);
  r.clock_uncertainty_ns = xml::number(ua.child("ClockUncertainty"), source, src.unknowns);
}

/// The top's PerformanceEstimates into `r`.
void read_performance(pugi::xml_node root, const Src& src, CsynthReport& r) {
  const std::string& source = src.file;
  xml::UnknownList* u = src.unknowns;
  pugi::xml_node perf = xml::require(root, "PerformanceEstimates", source);
  r.pipeline_type = xml::text(perf.child("PipelineType"));
  pugi::xml_node timing = xml::require(perf, "SummaryOfTimingAnalysis", source);
  r.estimated_clock_ns = xml::number(xml::require(timing, "EstimatedClockPeriod", source), source, u);
  pugi::xml_node lat = xml::require(perf, "SummaryOfOverallLatency", source);
  r.latency_best = xml::count(xml::require(lat, "Best-caseLatency", source), source, u);
  r.latency_worst = xml::count(xml::require(lat, "Worst-caseLatency", source), source, u);
  r.latency_average = xml::optional_count(lat, "Average-caseLatency", source, u).value_or(Count{});
  r.latency_best_time = time_of(lat.child("Best-caseRealTimeLatency"), src);
  r.latency_worst_time = time_of(lat.child("Worst-caseRealTimeLatency"), src);
  r.interval_min = xml::count(xml::require(lat, "Interval-min", source), source, u);
  r.interval_max = xml::count(xml::require(lat, "Interval-max", source), source, u);
  r.loops = read_loops(perf.child("SummaryOfLoopLatency"), src, 0);
}

}  // namespace

CsynthReport parse_csynth_xml(const std::string& text, const std::string& source) {
  pugi::xml_document doc;
  xml::load(doc, text, source);
  pugi::xml_node root = xml::root(doc, "profile", source);
  CsynthReport r;
  r.source = source;
  const Src src{source, &r.unknowns};
  read_assignments(root, src, r);
  read_performance(root, src, r);
  pugi::xml_node area = xml::require(root, "AreaEstimates", source);
  r.resources = read_resources(xml::require(area, "Resources", source), src);
  r.available = read_resources(area.child("AvailableResources"), src);
  for (pugi::xml_node m : root.child("ModuleInformation").children("Module")) {
    r.modules.push_back(read_module(m, src));
  }
  if (pugi::xml_node top = root.child("RTLDesignHierarchy").child("TopModule")) {
    r.hierarchy = read_instance(top, source, 0);
  }
  for (auto& u : r.unknowns) {
    if (u.module.empty()) u.module = r.top;
  }
  return r;
}

CsynthReport read_csynth_xml(const std::string& path) {
  return parse_csynth_xml(xml::read_file(path), path);
}

}  // namespace ttsim::hls
