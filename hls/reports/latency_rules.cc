#include "hls/reports/latency_rules.h"

#include "hls/reports/report_checks.h"
#include "hls/reports/report_consistency.h"
#include "hls/reports/report_identity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

namespace ttsim::hls {

namespace {

using Callees = std::vector<std::pair<std::string, std::string>>;

std::optional<std::int64_t> exact(const std::optional<Count>& c) {
  if (!c || !c->is_exact()) return std::nullopt;
  return c->min;
}

const ModuleReport* find_module(const std::vector<ModuleReport>& modules, const std::string& name) {
  for (const auto& m : modules)
    if (m.name == name) return &m;
  return nullptr;
}

// Reported latency of the module an instance (or module name) refers to.
std::optional<std::int64_t> call_latency(const std::string& instance,
                                         const std::vector<ModuleReport>& modules,
                                         const Callees& callees) {
  std::string module = instance;
  for (const auto& [inst, mod] : callees)
    if (inst == instance) module = mod;
  const ModuleReport* m = find_module(modules, module);
  if (!m || !m->latency_worst.is_exact()) return std::nullopt;
  return m->latency_worst.max;
}

}  // namespace

std::int64_t pipeline_depth_term(std::int64_t depth, RuleSet rules) {
  return rules == RuleSet::kHlsStates ? std::max<std::int64_t>(depth - 1, 1) : depth;
}

std::int64_t pipelined_loop_latency(std::int64_t trip, std::int64_t ii, std::int64_t depth, RuleSet rules) {
  return (trip - 1) * ii + pipeline_depth_term(depth, rules);
}

std::optional<std::int64_t> rule_loop_latency(const LoopReport& loop, RuleSet rules,
                                              const std::vector<ModuleReport>& modules,
                                              const Callees& callees) {
  auto trip = exact(loop.trip_count);
  if (!trip) return std::nullopt;
  const bool hls = rules == RuleSet::kHlsStates;
  if (loop.pipelined()) {
    auto ii = exact(loop.pipeline_ii);
    auto depth = exact(loop.pipeline_depth);
    if (!ii || !depth) return std::nullopt;
    return pipelined_loop_latency(*trip, *ii, *depth, rules);
  }
  // Sequential loop: compose the body from nested loops and calls, or read a leaf body.
  // A leaf body (no nested loop) is straight-line code, possibly with calls: its length
  // is known only to the report, so its reported iteration latency is used.
  if (loop.loops.empty()) {
    if (auto it = exact(loop.iteration_latency)) return *trip * *it;
    if (loop.instances.empty()) return std::nullopt;
  }
  std::int64_t body = 0;
  for (const auto& c : loop.loops) {
    auto l = rule_loop_latency(c, rules, modules, callees);
    if (!l) return std::nullopt;
    body += *l;
  }
  for (const auto& inst : loop.instances) {
    auto l = call_latency(inst, modules, callees);
    if (!l) return std::nullopt;
    body += *l;
  }
  if (hls) body += static_cast<std::int64_t>(loop.loops.size() + loop.instances.size()) + 1;
  return *trip * body;
}

double RuleResult::error_pct() const {
  if (reported == 0) return predicted == 0 ? 0.0 : (predicted > 0 ? 100.0 : -100.0);
  return 100.0 * static_cast<double>(predicted - reported) / static_cast<double>(reported);
}

std::optional<double> RuleEvaluation::mape() const {
  if (results.empty()) return std::nullopt;
  double s = 0;
  for (const auto& r : results) s += std::fabs(r.error_pct());
  return s / static_cast<double>(results.size());
}

namespace {

void collect_callees(const InstanceNode& n, std::vector<std::pair<std::string, Callees>>& out) {
  Callees c;
  for (const auto& i : n.instances) c.emplace_back(i.instance_name, i.module_name);
  bool seen = false;
  for (const auto& [m, _] : out) seen = seen || m == n.module_name;
  if (!seen) out.emplace_back(n.module_name, c);
  for (const auto& i : n.instances) collect_callees(i, out);
}

void all_instances(const std::vector<LoopReport>& loops, std::set<std::string>& out) {
  for (const auto& l : loops) {
    out.insert(l.instances.begin(), l.instances.end());
    all_instances(l.loops, out);
  }
}

/// Why the composition rule cannot price a module of pipeline style `module_type` with
/// `loops`: a module or loop pipeline style it does not model (modelled: none, no, yes;
/// a dataflow module is skipped apart), "" when it can.
std::string unmodelled_style(const std::string& module_type, const std::vector<LoopReport>& loops) {
  if (!module_type.empty() && module_type != "no" && module_type != "none" && module_type != "yes" &&
      module_type != "dataflow") {
    return "pipeline style \"" + module_type + "\" " + kNotModelled;
  }
  for (const auto& l : loops) {
    if (!l.pipeline_type.empty() && l.pipeline_type != "no" && l.pipeline_type != "yes") {
      return "loop " + l.name + ": pipeline style \"" + l.pipeline_type + "\" " + kNotModelled;
    }
    const std::string inner = unmodelled_style("", l.loops);
    if (!inner.empty()) return inner;
  }
  return "";
}

bool version_before(const std::string& v, int year, int minor) {
  int y = 0, m = 0;
  if (std::sscanf(v.c_str(), "%d.%d", &y, &m) < 2) return false;
  return y < year || (y == year && m < minor);
}

void evaluate_module(const std::string& source, const std::string& version, const std::string& name,
                     Count reported, const std::string& pipeline_type,
                     const std::vector<LoopReport>& loops, const Callees& calls,
                     const std::vector<ModuleReport>& modules, RuleSet rules, RuleEvaluation& out,
                     const std::optional<CosimLatency>& cosim, const std::string& contradiction) {
  std::string cosim_note;
  if (!reported.known() && cosim) {
    reported = Count::exact(*cosim->latency.max);
    cosim_note = " (csynth latency undef; co-simulation latency " + std::to_string(*cosim->latency.max) +
                 " cycles from " + cosim->source + " is the ground truth)";
  }
  auto skip = [&](const std::string& why) { out.skipped.push_back({source, name, why + cosim_note}); };
  if (!contradiction.empty()) return skip(std::string(kContradicts) + contradiction);
  if (!reported.known()) return skip("reported latency undef");
  if (!reported.is_exact()) return skip("reported latency is a range " + reported.str());
  if (pipeline_type == "dataflow") return skip(std::string("dataflow region (tasks overlap): ") + kNotModelled);
  const std::string style = unmodelled_style(pipeline_type, loops);
  if (!style.empty()) return skip(style);
  if (loops.empty() && calls.empty()) {
    return skip(modules.empty() ? "no loops; calls unknown (the report prints no RTLDesignHierarchy / ModuleInformation)"
                                : "no loops and no calls (straight-line code)");
  }
  std::set<std::string> in_loops;
  all_instances(loops, in_loops);
  if (!loops.empty() && !calls.empty() && in_loops.empty() && version_before(version, 2022, 1)) {
    return skip("loops and calls, no InstanceList before 2022.1: calls cannot be placed");
  }
  RuleResult r;
  r.source = source;
  r.tool_version = version;
  r.module = name;
  r.reported = *reported.max;
  if (!cosim_note.empty()) {
    r.reported_source = "cosim";
    r.cosim_report = cosim->source;
  }
  std::int64_t total = 0;
  for (const auto& l : loops) {
    auto p = rule_loop_latency(l, rules, modules, calls);
    if (!p) return skip("incomplete loop data in " + l.name);
    total += *p;
    ++r.loops;
  }
  for (const auto& [inst, mod] : calls) {
    if (in_loops.count(inst)) continue;
    auto p = call_latency(inst, modules, calls);
    if (!p) return skip("call " + inst + " of unknown latency");
    total += *p;
    ++r.calls;
  }
  if (rules == RuleSet::kHlsStates) total += r.loops + r.calls + 1;
  r.predicted = total;
  out.results.push_back(r);
}

}  // namespace

RuleEvaluation evaluate_rules(const std::vector<CsynthReport>& reports, RuleSet rules,
                              const std::vector<CosimReport>& cosim) {
  RuleEvaluation out;
  std::set<std::pair<std::string, std::string>> done;  // (folder, module)
  // Reports with ModuleInformation first: they know each module's calls, which a
  // per-module file of an older version (no RTLDesignHierarchy) does not.
  std::vector<const CsynthReport*> order;
  for (const auto& r : reports)
    if (!r.modules.empty()) order.push_back(&r);
  for (const auto& r : reports)
    if (r.modules.empty()) order.push_back(&r);
  for (const CsynthReport* rp : order) {
    const CsynthReport& rep = *rp;
    const std::string folder = std::filesystem::path(rep.source).parent_path().string();
    std::vector<std::pair<std::string, Callees>> callees;
    if (rep.hierarchy) collect_callees(*rep.hierarchy, callees);
    std::map<std::string, std::string> contradicted;  // module → its first contradiction
    for (const Contradiction& c : contradictions(rep)) contradicted.emplace(c.module, c.what);
    auto contradiction_of = [&](const std::string& m) {
      const auto it = contradicted.find(m);
      return it == contradicted.end() ? std::string() : it->second;
    };
    auto calls_of = [&](const std::string& m) {
      for (const auto& [name, c] : callees)
        if (name == m) return c;
      return Callees{};
    };
    if (!rep.modules.empty()) {
      for (const auto& m : rep.modules) {
        if (!done.insert({folder, m.name}).second) continue;
        evaluate_module(rep.source, rep.tool_version, m.name, m.latency_worst, m.pipeline_type,
                        m.loops, calls_of(m.name), rep.modules, rules, out,
                        m.name == rep.top ? cosim_latency_for(rep, cosim) : std::nullopt, contradiction_of(m.name));
      }
    } else {
      if (!done.insert({folder, rep.top}).second) continue;
      if (per_module_file_without_hierarchy(rep)) {
        out.skipped.push_back({rep.source, rep.top, kCallsUnknown});
        continue;
      }
      evaluate_module(rep.source, rep.tool_version, rep.top, rep.latency_worst, rep.pipeline_type,
                      rep.loops, {}, rep.modules, rules, out, cosim_latency_for(rep, cosim), contradiction_of(rep.top));
    }
  }
  return out;
}

}  // namespace ttsim::hls
