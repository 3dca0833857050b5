#include "sim/memplan/plan_report.h"

#include <fmt/format.h>

namespace ttsim::memplan {

namespace {

Json class_bytes_json(const ClassBytes& c) {
  return Json{{"parameter", c.parameter},
              {"gradient", c.gradient},
              {"activation", c.activation},
              {"temporary", c.temporary},
              {"total", c.total()}};
}

}  // namespace

Json plan_summary_json(const MemoryPlan& plan) {
  Json j;
  j["strategy"] = to_string(plan.strategy);
  j["device"] = plan.device;
  j["realizable"] = plan.realizable;
  j["bram18_blocks"] = plan.bram18_blocks;
  j["bram36_blocks"] = plan.bram36_blocks;
  j["uram_blocks"] = plan.uram_blocks;
  j["lutram_bits"] = plan.lutram_bits;
  j["register_bits"] = plan.register_bits;
  j["used_bits"] = plan.used_bits;
  j["allocated_bits"] = plan.allocated_bits;
  j["efficiency"] = plan.efficiency;
  j["uram_min_depth"] = plan.uram_min_depth;
  j["memories"] = plan.memories.size();
  j["fits"] = plan.fit.fits;
  j["shortfall"] = Json{{"bram36", plan.fit.bram36_short},
                        {"uram288", plan.fit.uram_short},
                        {"bytes", plan.fit.bytes_short},
                        {"ideal_bytes", plan.fit.ideal_bytes_short}};
  j["explanation"] = plan.fit.explanation;
  j["occupancy"] = Json{{"peak_total_bytes", plan.occupancy.peak_total},
                        {"peak_task", plan.occupancy.peak_task},
                        {"at_peak_bytes", class_bytes_json(plan.occupancy.at_peak)},
                        {"peak_by_class_bytes", class_bytes_json(plan.occupancy.peak_by_class)},
                        {"no_reuse_bytes", class_bytes_json(plan.occupancy.no_reuse)}};
  Json classes = Json::array();
  for (const ClassUsage& u : plan.by_class) {
    classes.push_back(Json{{"class", to_string(u.cls)},
                           {"buffers", u.buffers},
                           {"words", u.words},
                           {"peak_live_bytes", u.peak_live_bytes},
                           {"bram36", u.bram36},
                           {"uram288", u.uram}});
  }
  j["by_class"] = classes;
  return j;
}

Json plan_detail_json(const MemoryPlan& plan, const TaskGraph& graph) {
  Json j = plan_summary_json(plan);
  Json mems = Json::array();
  for (const MemoryInstance& m : plan.memories) {
    Json names = Json::array();
    for (int b : m.buffers) names.push_back(graph.buffers.at(b).name);
    const bool blocks = m.kind == MemoryKind::kBram || m.kind == MemoryKind::kUram;
    mems.push_back(Json{{"id", m.id},
                        {"name", m.name},
                        {"kind", to_string(m.kind)},
                        {"impl", m.impl()},
                        {"mode", blocks ? m.layout.mode.describe() : ""},
                        {"columns", blocks ? m.layout.columns : 0},
                        {"rows", blocks ? m.layout.rows : 0},
                        {"partitions", m.partitions},
                        {"words_per_address", m.words_per_address},
                        {"ports", m.ports},
                        {"depth", m.depth},
                        {"bram18", m.bram18},
                        {"uram288", m.uram},
                        {"used_bits", m.used_bits},
                        {"allocated_bits", m.allocated_bits},
                        {"buffers", names}});
  }
  j["memory_instances"] = mems;
  Json pls = Json::array();
  for (const Placement& p : plan.placements) {
    if (p.buffer < 0) continue;
    pls.push_back(Json{{"buffer", graph.buffers.at(p.buffer).name},
                       {"memory", p.memory},
                       {"offset", p.offset},
                       {"addresses", p.addresses},
                       {"whole_step", p.whole_step},
                       {"first_task", p.first_task},
                       {"last_task", p.last_task}});
  }
  j["placements"] = pls;
  return j;
}

std::string format_plan_summary(const MemoryPlan& plan) {
  std::string s;
  s += fmt::format(
      "memory plan: strategy {}, device {}\n"
      "  BRAM36 {} ({} BRAM_18K)   URAM288 {}   LUTRAM {} bits   registers {} bits\n"
      "  efficiency {:.1f}% (used {} / allocated {} bits in BRAM + URAM){}\n"
      "  peak live {:.3f} MB at task {} (no reuse: {:.3f} MB)\n"
      "  {}\n\n",
      to_string(plan.strategy), plan.device, plan.bram36_blocks, plan.bram18_blocks,
      plan.uram_blocks, plan.lutram_bits, plan.register_bits, 100.0 * plan.efficiency,
      plan.used_bits, plan.allocated_bits,
      plan.realizable ? fmt::format(", {} memories", plan.memories.size()) : " (lower bound)",
      plan.occupancy.peak_total / 1e6, plan.occupancy.peak_task,
      plan.occupancy.no_reuse.total() / 1e6, plan.fit.explanation);
  s += fmt::format("  {:<11} {:>8} {:>11} {:>10} {:>13} {:>9} {:>9}\n", "class", "buffers",
                   "words", "MB", "peak live MB", "BRAM36", "URAM288");
  double b36 = 0, u = 0;
  std::int64_t nbuf = 0, words = 0;
  for (const ClassUsage& c : plan.by_class) {
    s += fmt::format("  {:<11} {:>8} {:>11} {:>10.3f} {:>13.3f} {:>9.1f} {:>9.1f}\n",
                     to_string(c.cls), c.buffers, c.words, c.words * 4 / 1e6,
                     c.peak_live_bytes / 1e6, c.bram36, c.uram);
    b36 += c.bram36;
    u += c.uram;
    nbuf += c.buffers;
    words += c.words;
  }
  s += fmt::format("  {:<11} {:>8} {:>11} {:>10.3f} {:>13.3f} {:>9.1f} {:>9.1f}\n", "total", nbuf,
                   words, words * 4 / 1e6, plan.occupancy.peak_total / 1e6, b36, u);
  return s;
}

std::string format_strategy_table(const std::vector<MemoryPlan>& plans) {
  std::string s = "strategy   BRAM36  URAM288  efficiency  fits  shortfall\n";
  for (const MemoryPlan& p : plans) {
    s += fmt::format("{:<9} {:>7} {:>8} {:>10.1f}%  {:<4}  {}\n", to_string(p.strategy), p.bram36_blocks,
                     p.uram_blocks, 100.0 * p.efficiency, p.fit.fits ? "yes" : "NO",
                     p.fit.fits ? std::string("-")
                                : fmt::format("{} BRAM36 + {} URAM288 = {:.2f} MiB", p.fit.bram36_short,
                                              p.fit.uram_short, p.fit.bytes_short / 1048576.0));
  }
  return s;
}

}  // namespace ttsim::memplan
