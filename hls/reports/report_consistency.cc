#include "hls/reports/report_consistency.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace ttsim::hls {
namespace {

using Out = std::vector<Contradiction>;

void add(Out& out, const std::string& module, std::string what) { out.push_back({module, std::move(what)}); }

/// Best ≤ average ≤ worst, where known.
void check_latency_order(const std::string& module, const Count& best, const Count& avg, const Count& worst,
                         Out& out) {
  if (best.min && worst.max && *best.min > *worst.max) {
    add(out, module, fmt::format("Best-caseLatency {} above Worst-caseLatency {} cycles", best.str(), worst.str()));
  }
  if (avg.known() && best.min && *avg.min < *best.min) {
    add(out, module, fmt::format("Average-caseLatency {} below Best-caseLatency {} cycles", avg.str(), best.str()));
  }
  if (avg.known() && worst.max && *avg.max > *worst.max) {
    add(out, module, fmt::format("Average-caseLatency {} above Worst-caseLatency {} cycles", avg.str(), worst.str()));
  }
}

/// A module that is not pipelined starts again only after it finishes (checked where the
/// interval is wholly known: 2024.x prints "1 ~ <sentinel>" for an unbounded module).
void check_interval(const std::string& module, const std::string& pipeline_type, const Count& interval,
                    const Count& best, Out& out) {
  if (pipeline_type != "no" && pipeline_type != "none") return;
  if (interval.known() && best.known() && *interval.min < *best.min) {
    add(out, module,
        fmt::format("PipelineType {} (not pipelined) but its interval {} is below its best-case latency {} cycles",
                    pipeline_type, interval.str(), best.str()));
  }
}

/// PipelineType against PipelineII; II and depth at least 1; the pipelined latency bounds.
void check_pipelined_loop(const std::string& module, const LoopReport& l, Out& out) {
  const std::string where = "loop " + l.name + ": ";
  if (l.pipeline_type == "no" && l.pipeline_ii && l.pipeline_ii->min) {
    add(out, module, where + "PipelineType no but PipelineII " + l.pipeline_ii->str());
  }
  if (l.pipeline_type == "yes" && !l.pipeline_ii) add(out, module, where + "PipelineType yes but no PipelineII");
  if (!l.pipelined()) return;
  const Count ii = *l.pipeline_ii;
  const Count depth = l.pipeline_depth.value_or(Count{});
  if (ii.min && *ii.min < 1) add(out, module, where + "PipelineII " + ii.str() + " below 1 cycle");
  if (depth.min && *depth.min < 1) add(out, module, where + "PipelineDepth " + depth.str() + " below 1 cycle");
  const Count& trip = l.trip_count;
  const Count& lat = l.latency;
  if (trip.min && *trip.min >= 1 && ii.min && lat.min) {
    const std::int64_t lo = (*trip.min - 1) * *ii.min + 1;
    if (*lat.min < lo) {
      add(out, module, fmt::format("{}Latency {} below (TripCount {} − 1) · PipelineII {} + 1 = {} cycles", where,
                                   lat.str(), trip.str(), ii.str(), lo));
    }
  }
  if (trip.max && *trip.max >= 1 && ii.max && depth.max && lat.max) {
    const std::int64_t hi = (*trip.max - 1) * *ii.max + *depth.max + 2;
    if (*lat.max > hi) {
      add(out, module,
          fmt::format("{}Latency {} above (TripCount {} − 1) · PipelineII {} + PipelineDepth {} + 2 = {} cycles", where,
                      lat.str(), trip.str(), ii.str(), depth.str(), hi));
    }
  }
}

/// trip × IterationLatency (one cycle per iteration of slack), and the nested loops' sum.
void check_sequential_loop(const std::string& module, const LoopReport& l, Out& out) {
  if (l.pipelined()) return;
  const std::string where = "loop " + l.name + ": ";
  const Count& trip = l.trip_count;
  const Count& lat = l.latency;
  if (l.iteration_latency && l.iteration_latency->known() && trip.known() && lat.known()) {
    const Count& it = *l.iteration_latency;
    const std::int64_t lo = *trip.min * *it.min - *trip.max, hi = *trip.max * *it.max + *trip.max;
    if (*lat.min < lo || *lat.max > hi) {
      add(out, module, fmt::format("{}Latency {} is not TripCount {} × IterationLatency {} (± one cycle per "
                                   "iteration: {} .. {} cycles)",
                                   where, lat.str(), trip.str(), it.str(), std::max<std::int64_t>(lo, 0), hi));
    }
  }
  std::int64_t nested = 0;
  for (const auto& c : l.loops) {
    if (!c.latency.min) return;
    nested += *c.latency.min;
  }
  if (!l.loops.empty() && trip.min && lat.max && *lat.max < *trip.min * nested) {
    add(out, module, fmt::format("{}Latency {} below TripCount {} × the {} cycles of its nested loops = {} cycles",
                                 where, lat.str(), trip.str(), nested, *trip.min * nested));
  }
}

void check_loops(const std::string& module, const std::vector<LoopReport>& loops, Out& out) {
  for (const auto& l : loops) {
    check_pipelined_loop(module, l, out);
    check_sequential_loop(module, l, out);
    check_loops(module, l.loops, out);
  }
}

/// A module lasts at least as long as each of its own loops.
void check_module_vs_loops(const std::string& module, const Count& worst, const std::vector<LoopReport>& loops,
                           Out& out) {
  if (!worst.max) return;
  for (const auto& l : loops) {
    if (l.latency.min && *l.latency.min > *worst.max) {
      add(out, module, fmt::format("Worst-caseLatency {} below the latency {} of its own loop {} (cycles)",
                                   worst.str(), l.latency.str(), l.name));
    }
  }
}

}  // namespace

namespace {

/// Σ over the BindNodes of `m` of one attribute, one instance per RTLNAME (operators
/// sharing an RTL unit list it once each; the largest value counts).
std::int64_t bind_total(const ModuleReport& m, std::optional<std::int64_t> BindNode::*field) {
  std::map<std::string, std::int64_t> per_rtl;
  for (const auto& b : m.bind_nodes) {
    if (const auto v = b.*field) per_rtl[b.rtl_name] = std::max(per_rtl[b.rtl_name], *v);
  }
  std::int64_t total = 0;
  for (const auto& [rtl, v] : per_rtl) total += v;
  return total;
}

/// The module's BindNodes against its resources, and its resources against the report's totals.
void check_module_resources(const ModuleReport& m, const Resources& totals, Out& out) {
  const struct {
    const char* name;
    std::optional<std::int64_t> BindNode::*bind;
    std::optional<std::int64_t> Resources::*res;
  } kinds[] = {{"DSP", &BindNode::dsp, &Resources::dsp},
               {"BRAM_18K", &BindNode::bram, &Resources::bram_18k},
               {"URAM", &BindNode::uram, &Resources::uram}};
  for (const auto& k : kinds) {
    const std::int64_t declared = bind_total(m, k.bind);
    const auto reported = m.resources.*k.res;
    if (reported && declared > *reported) {
      add(out, m.name, fmt::format("its BindNodes declare {} {} (one per RTL unit) but the module reports {}", declared,
                                   k.name, *reported));
    }
  }
  const std::pair<const char*, std::optional<std::int64_t> Resources::*> all[] = {
      {"BRAM_18K", &Resources::bram_18k}, {"DSP", &Resources::dsp}, {"FF", &Resources::ff},
      {"LUT", &Resources::lut}, {"URAM", &Resources::uram}};
  for (const auto& [name, field] : all) {
    const auto mine = m.resources.*field, total = totals.*field;
    if (mine && total && *mine > *total) {
      add(out, m.name, fmt::format("{} {} above the report's total {}", name, *mine, *total));
    }
  }
}

/// The module's BRAM_18K and URAM counts against the least its storage BindNodes' declared
/// sizes need: each binding the report puts in block RAM (IMPL bram, or a BRAM attribute
/// above 0) needs ceil(bits / 18 Kib) BRAM18 blocks, each in UltraRAM (IMPL uram, or a URAM
/// attribute above 0) ceil(bits / 288 Kib) URAM288 blocks (one per RTL unit, the largest).
void check_storage_sizes(const ModuleReport& m, Out& out) {
  const struct {
    const char* name;
    const char* impl;
    std::optional<std::int64_t> BindNode::*bind;
    std::optional<std::int64_t> Resources::*res;
    std::int64_t block_bits;
    const char* block;
  } kinds[] = {{"BRAM_18K", "bram", &BindNode::bram, &Resources::bram_18k, 18 * 1024, "BRAM18 (18 Kib)"},
               {"URAM", "uram", &BindNode::uram, &Resources::uram, 288 * 1024, "URAM288 (288 Kib)"}};
  for (const auto& k : kinds) {
    const auto reported = m.resources.*k.res;
    if (!reported) continue;
    std::map<std::string, std::pair<std::int64_t, std::string>> per_rtl;  // RTL unit → (blocks, what)
    for (const auto& b : m.bind_nodes) {
      const auto bits = b.storage_bits();
      const bool bound = b.impl == k.impl || (b.*k.bind && *(b.*k.bind) > 0);
      if (b.bind_type != "storage" || !bits || !bound) continue;
      const std::int64_t blocks = (*bits + k.block_bits - 1) / k.block_bits;
      auto& slot = per_rtl[b.rtl_name];
      if (blocks > slot.first) {
        slot = {blocks, fmt::format("{} {} x {} x {} = {} bits", b.variable.empty() ? b.rtl_name : b.variable,
                                    *b.storage_width, *b.storage_depth, *b.storage_banks, *bits)};
      }
    }
    std::int64_t need = 0;
    std::string what;
    for (const auto& [rtl, v] : per_rtl) {
      need += v.first;
      what += (what.empty() ? "" : ", ") + v.second;
    }
    if (need > *reported) {
      add(out, m.name, fmt::format("{} {} is below the {} {} blocks its declared storage needs (STORAGESIZE "
                                   "width x depth x banks: {})", k.name, *reported, need, k.block, what));
    }
  }
}

/// The top's summary latency against its own ModuleInformation entry.
void check_top_module(const CsynthReport& r, Out& out) {
  const ModuleReport* m = r.module(r.top);
  if (!m) return;
  const std::pair<const char*, std::pair<const Count*, const Count*>> pairs[] = {
      {"Best-caseLatency", {&r.latency_best, &m->latency_best}},
      {"Worst-caseLatency", {&r.latency_worst, &m->latency_worst}}};
  for (const auto& [name, counts] : pairs) {
    const Count& summary = *counts.first;
    const Count& module = *counts.second;
    if (summary.known() && module.known() && !(summary == module)) {
      add(out, r.top, fmt::format("{} {} in the summary but {} in its ModuleInformation entry (cycles)", name,
                                  summary.str(), module.str()));
    }
  }
}

}  // namespace

std::vector<Contradiction> contradictions(const CsynthReport& r) {
  Out out;
  check_latency_order(r.top, r.latency_best, r.latency_average, r.latency_worst, out);
  check_interval(r.top, r.pipeline_type, r.interval_min, r.latency_best, out);
  check_loops(r.top, r.loops, out);
  check_module_vs_loops(r.top, r.latency_worst, r.loops, out);
  check_top_module(r, out);
  for (const auto& m : r.modules) {
    check_latency_order(m.name, m.latency_best, m.latency_average, m.latency_worst, out);
    check_interval(m.name, m.pipeline_type, m.interval, m.latency_best, out);
    check_loops(m.name, m.loops, out);
    check_module_vs_loops(m.name, m.latency_worst, m.loops, out);
    check_module_resources(m, r.resources, out);
    check_storage_sizes(m, out);
  }
  return out;
}

}  // namespace ttsim::hls
