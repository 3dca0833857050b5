#include "machine/machine_report.h"

#include "hw/fpga_power.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/number_text.h"
#include "hls/include/kernel_spec.h"

namespace ttsim::machine {
namespace {

// "<n> banks", or "1 (none)" for an array that is not partitioned.
std::string banks_text(const Memory& m) {
  return m.partition > 1 ? fmt::format("{} banks", m.partition) : std::string("1 (none)");
}

}  // namespace

std::string instances_table(const Machine& m) {
  std::string s =
      "kernel instances (one per module, shared by its call sites; calls run one at a time)\n"
      "module                  count  lanes  windows  starts   DSP/inst  calls  call sites\n";
  bool dual = false;
  for (const KernelInstance& k : m.instances) {
    if (k.calls == 0) continue;
    const int windows = ttsim_spec::lane_site_accesses(k.lanes, m.partition);
    dual = dual || windows > 1;
    s += fmt::format("{:<22} {:>6} {:>6} {:>8} {:>7} {:>10} {:>6} {:>11}\n", k.module, k.count, k.lanes, windows,
                     k.lane_aligned ? "aligned" : "any", grouped(k.dsp), k.calls, k.call_sites);
  }
  s += "(calls: the module's kernel calls per step; call sites: the places in the top that call it — a call in a "
       "loop of the glue, such as the encoder loop, is one site for every iteration — whose scalar arguments the "
       "top multiplexes onto the shared instance: docs/resources.md#argument-multiplexers)\n";
  s += "(starts: \"aligned\" — every lane access of the module starts at a multiple of its lanes, which divide the "
       "banks, so each lane selects among banks / lanes banks; \"any\" — an access may start at any word and the "
       "lanes rotate over every bank: docs/resources.md#aligned-lane-accesses)\n";
  if (dual) {
    s += fmt::format(
        "(windows 2: dual-port lanes, /contraction/lanes_per_bank 2 — more lanes than the arenas' {} banks; each lane "
        "access runs as two windows of at most {} words, one per port of every bank; the column form runs two output "
        "rows per iteration when a row has at most lanes − banks columns, the dot form two output columns when its "
        "reduction has at most {} steps and lanes = 2 × banks; the product table marks those calls \"pairs\"; "
        "docs/kernels.md)\n",
        m.partition, m.partition, m.partition);
  }
  return s;
}

std::string memories_table(const Machine& m, const TaskGraph& graph) {
  const std::vector<std::int64_t> peak = peak_live_words(m, graph);
  std::string s =
      "on-chip memories (top.cc arrays, the banks the simulator's ports model; banks: dim 2 of "
      "<array>[rows][banks], completely partitioned, 2 ports each; peak live: the most words of the step's "
      "buffers in it at once)\n"
      "array         holds                                  storage       words      banks  BRAM36  URAM288  "
      "buffers  peak live\n";
  for (std::size_t i = 0; i < m.memories.size(); ++i) {
    const Memory& mem = m.memories[i];
    s += fmt::format("{:<13} {:<38} {:<8} {:>12} {:>10} {:>7} {:>8} {:>8} {:>10}\n", mem.array, mem.holds,
                     to_string(mem.storage), grouped(mem.words), banks_text(mem), grouped(mem.bram36),
                     grouped(mem.uram288), mem.graph_buffers.size(), grouped(peak[i]));
  }
  return s;
}

std::string arrays_table(const Machine& m, const TaskGraph& graph) {
  const std::vector<std::int64_t> peak = peak_live_words(m, graph);
  std::string s =
      "on-chip arrays of the emitted top (banks: dim 2 of <array>[rows][banks], completely partitioned; "
      "peak live: the most words of the step's buffers in the array at once)\n"
      "array         storage       words      banks  BRAM36  URAM288  buffers   peak live  use\n";
  for (std::size_t i = 0; i < m.memories.size(); ++i) {
    const Memory& mem = m.memories[i];
    s += fmt::format("{:<13} {:<8} {:>11} {:>10} {:>7} {:>8} {:>8} {:>11} {:>4.0f}%\n", mem.array,
                     to_string(mem.storage), grouped(mem.words), banks_text(mem), grouped(mem.bram36),
                     grouped(mem.uram288), mem.graph_buffers.size(), grouped(peak[i]),
                     100.0 * static_cast<double>(peak[i]) / static_cast<double>(std::max<std::int64_t>(1, mem.words)));
  }
  return s;
}

std::string buffers_listing(const Machine& m, const TaskGraph& graph) {
  std::string s;
  for (const Memory& mem : m.memories) {
    s += "\n" + mem.array + " (" + mem.holds + ")\n";
    for (int id : mem.graph_buffers) {
      const Buffer& b = graph.buffers[id];
      s += fmt::format("  {:<36} {:<10} {:>10} words  tasks {}..{}\n", b.name, to_string(b.cls), grouped(b.words),
                       b.first_task, b.last_task);
    }
  }
  return s;
}

namespace {
/// "<sep>card power 35.5 <of> 75 W<sep>clock 100 <of> 139.65 MHz usable (147 MHz achievable: spans
/// 2 SLRs: ..., 5 % headroom)"
/// — the card and clock limits of the fit rule (hw/resource_fit.h); the card part only when
/// the device file states a card.
std::string card_and_clock(const Machine& m, double luts, double ffs, double clock_mhz, const DeviceSpec& device,
                           double headroom_pct, const char* sep, const char* of) {
  std::string s;
  if (device.card_max_watts > 0 && has_power_coefficients(device)) {
    s += fmt::format("{}card power {:.1f} {} {:g} W", sep, card_watts(m, luts, clock_mhz, device), of,
                     device.card_max_watts);
  }
  const ClockEstimate clock = achievable_clock(machine_use(m, luts, ffs, clock_mhz, device), device, headroom_pct);
  if (clock.mhz <= 0) return s + fmt::format("{}clock {:g} MHz (no achievable clock stated)", sep, clock_mhz);
  return s + fmt::format("{}clock {:g} {} {:g} MHz usable ({:g} MHz achievable{}, {:g} % headroom)", sep, clock_mhz, of,
                         clock.mhz * (100 - headroom_pct) / 100, clock.mhz,
                         clock.slr_resource ? ": " + clock.basis() : "", headroom_pct);
}
}  // namespace

std::string built_line(const Machine& m, double luts, double ffs, double clock_mhz, const DeviceSpec& device,
                       double headroom_pct) {
  const std::int64_t dsp = m.dsp();
  // The resource nearest its limit under the fit rule (hw/resource_fit.h tightest_resource).
  std::string tightest;
  if (const auto t = tightest_resource(machine_use(m, luts, ffs, clock_mhz, device), device, headroom_pct)) {
    const bool estimated = t->resource == "LUT" || t->resource == "FF";
    tightest = fmt::format("; nearest its limit: {} {}{} of {} usable, {:.1f} %", t->resource,
                           grouped(static_cast<std::int64_t>(t->used + 0.5)), estimated ? " estimated" : "",
                           grouped(static_cast<std::int64_t>(t->limit)), 100.0 * t->used / t->limit);
  }
  return fmt::format(
      "built: BRAM36 {} / {}, URAM288 {} / {}; DSP {} / {} ({:.1f} %); LUT {}k (estimate) / {}k; FF {}k (estimate) / "
      "{}k{}; on-chip arrays {}; "
      "fits: yes ({:g} % headroom{})\n",
      grouped(m.bram36()), grouped(device.bram36), grouped(m.uram288()), grouped(device.uram288), grouped(dsp),
      grouped(device.dsp), 100.0 * dsp / device.dsp, grouped(static_cast<std::int64_t>(luts / 1000 + 0.5)),
      grouped(device.lut / 1000), grouped(static_cast<std::int64_t>(ffs / 1000 + 0.5)), grouped(device.ff / 1000),
      card_and_clock(m, luts, ffs, clock_mhz, device, headroom_pct, "; ", "/"), mib(m.onchip_bytes()),
      headroom_pct, tightest);
}

std::string fit_summary(const Machine& m, double luts, double ffs, double clock_mhz, const DeviceSpec& device,
                        const std::vector<std::string>& over, double headroom_pct) {
  std::string s = fmt::format(
      "total: BRAM36 {} of {}, URAM288 {} of {}, LUT {}k (estimate) of {}k, FF {}k (estimate) of {}k{}, on-chip arrays "
      "{:.3f} MiB; fits: {} ({:g} % "
      "headroom)\n",
      grouped(m.bram36()), grouped(device.bram36), grouped(m.uram288()), grouped(device.uram288),
      grouped(static_cast<std::int64_t>(luts / 1000 + 0.5)), grouped(device.lut / 1000),
      grouped(static_cast<std::int64_t>(ffs / 1000 + 0.5)), grouped(device.ff / 1000),
      card_and_clock(m, luts, ffs, clock_mhz, device, headroom_pct, ", ", "of"), m.onchip_bytes() / 1048576.0, over.empty() ? "yes" : "NO",
      headroom_pct);
  for (const auto& o : over) s += "  over the device: " + o + "\n";
  return s;
}

Json machine_json(const Machine& m, const TaskGraph& graph) {
  const std::vector<std::int64_t> peak = peak_live_words(m, graph);
  Json instances = Json::array(), memories = Json::array();
  for (const KernelInstance& k : m.instances) {
    instances.push_back({{"module", k.module}, {"op", to_string(k.op)}, {"count", k.count}, {"lanes", k.lanes},
                         {"lane_aligned", k.lane_aligned}, {"dsp_per_instance", k.dsp}, {"calls", k.calls},
                         {"call_sites", k.call_sites}});
  }
  for (std::size_t i = 0; i < m.memories.size(); ++i) {
    const Memory& mem = m.memories[i];
    memories.push_back({{"array", mem.array}, {"holds", mem.holds}, {"storage", to_string(mem.storage)},
                        {"words", mem.words}, {"width_bits", mem.width_bits}, {"partition", mem.partition},
                        {"partition_type", to_string(mem.partition_type)}, {"bram36", mem.bram36},
                        {"uram288", mem.uram288}, {"slots", mem.buffers.size()},
                        {"graph_buffers", mem.graph_buffers.size()}, {"peak_live_words", peak[i]}});
  }
  return {{"instances", instances},
          {"memories", memories},
          {"schedule", {{"tasks", m.schedule.order.size()}, {"overlap_groups", Json::array()}}},
          {"onchip_bytes", m.onchip_bytes()}};
}

Json arrays_json(const Machine& m, const TaskGraph& graph, const std::vector<std::string>& over) {
  const std::vector<std::int64_t> peak = peak_live_words(m, graph);
  Json memories = Json::array();
  for (std::size_t i = 0; i < m.memories.size(); ++i) {
    const Memory& mem = m.memories[i];
    Json slots = Json::array(), bufs = Json::array();
    for (const auto& sl : mem.buffers) slots.push_back({{"slot", sl.name}, {"offset", sl.offset}, {"words", sl.words}});
    for (int id : mem.graph_buffers) {
      const Buffer& b = graph.buffers[id];
      bufs.push_back({{"name", b.name}, {"class", to_string(b.cls)}, {"words", b.words},
                      {"first_task", b.first_task}, {"last_task", b.last_task}});
    }
    memories.push_back({{"array", mem.array}, {"holds", mem.holds}, {"storage", to_string(mem.storage)},
                        {"words", mem.words}, {"width_bits", mem.width_bits}, {"partition", mem.partition},
                        {"partition_type", to_string(mem.partition_type)}, {"bram36", mem.bram36},
                        {"uram288", mem.uram288}, {"peak_live_words", peak[i]}, {"slots", slots},
                        {"buffers", bufs}});
  }
  return {{"memories", memories}, {"bram36", m.bram36()},      {"uram288", m.uram288()},
          {"onchip_bytes", m.onchip_bytes()}, {"fits", over.empty()}, {"over_device", over}};
}

std::string instances_markdown(const Machine& m, const DeviceSpec& device) {
  std::string r =
      "| module | instances | lanes | lane starts | DSP per instance | DSP | calls | call sites |\n"
      "|---|---:|---:|---|---:|---:|---:|---:|\n";
  for (const KernelInstance& k : m.instances) {
    r += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} |\n", k.module, k.count, k.lanes,
                     k.lane_aligned ? "aligned" : "any", k.dsp, k.count * k.dsp, k.calls, k.call_sites);
  }
  r += fmt::format("| total | | | | | {} of {} | {} tasks | |\n\n", m.dsp(), device.dsp, m.schedule.order.size());
  return r;
}

std::string memories_markdown(const Machine& m, const DeviceSpec& device) {
  std::string r =
      "| array | holds | storage | words | width | partition | words per bank | BRAM36 | URAM288 |\n"
      "|---|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const Memory& mem : m.memories) {
    r += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n", mem.array, mem.holds,
                     to_string(mem.storage), mem.words, mem.width_bits, mem.partition, mem.bank_words(), mem.bram36,
                     mem.uram288);
  }
  r += fmt::format("| total | | | | | | | {} of {} | {} of {} |\n\n", m.bram36(), device.bram36, m.uram288(),
                   device.uram288);
  return r;
}

}  // namespace ttsim::machine
