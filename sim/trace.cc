#include "sim/trace.h"

#include "core/json_view.h"
#include "sim/step_report.h"

namespace ttsim {

std::string chrome_trace_json(const StepResult& r, const ArchSpec& arch) {
  const double us_per_cycle = 1.0 / arch.clock_mhz;
  Json ev = Json::array();
  auto meta = [&](int pid, int tid, const char* what, const std::string& name) {
    Json m = {{"ph", "M"}, {"pid", pid}, {"name", what}, {"args", {{"name", name}}}};
    if (tid >= 0) m["tid"] = tid;
    ev.push_back(m);
  };
  meta(1, -1, "process_name", "kernels");
  meta(2, -1, "process_name", "banks");
  meta(3, -1, "process_name", "on-chip occupancy");
  // Kernel tracks: tid = position in kernel_breakdown order.
  const auto kernels = kernel_breakdown(r, arch);
  std::vector<int> first_tid(kUnitKinds, 0);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].index == 0) first_tid[static_cast<int>(kernels[i].kind)] = static_cast<int>(i);
    meta(1, static_cast<int>(i), "thread_name", kernels[i].name);
  }
  const int contraction_lanes = arch.units[static_cast<int>(UnitKind::kContraction)].lanes;
  for (const Task& t : r.graph().tasks) {
    const TaskTime& tt = r.run.schedule.tasks[t.id];
    Json args = {{"id", t.id},
                 {"layer", t.layer},
                 {"role", t.role},
                 {"op", to_string(t.op)},
                 {"macs", t.macs},
                 {"start_cycle", tt.start},
                 {"end_cycle", tt.end},
                 {"deps", t.deps}};
    if (t.op == TaskOp::kContraction) {
      args["lane_efficiency"] = lane_efficiency(t.macs, tt.end - tt.start, contraction_lanes);
    }
    ev.push_back({{"ph", "X"},
                  {"pid", 1},
                  {"tid", first_tid[static_cast<int>(t.unit)] + tt.unit_index},
                  {"name", t.name},
                  {"cat", to_string(t.stage)},
                  {"ts", tt.start * us_per_cycle},
                  {"dur", (tt.end - tt.start) * us_per_cycle},
                  {"args", std::move(args)}});
  }
  for (std::size_t b = 0; b < r.banks.banks.size(); ++b) {
    const BankInstance& bank = r.banks.banks[b];
    meta(2, static_cast<int>(b), "thread_name",
         bank.name + " (" + to_string(bank.kind) + " x" + std::to_string(bank.blocks) + ")");
  }
  for (const BankSlice& s : r.run.bank_slices) {
    ev.push_back({{"ph", "X"},
                  {"pid", 2},
                  {"tid", s.bank},
                  {"name", r.graph().tasks[s.task].name},
                  {"ts", s.start * us_per_cycle},
                  {"dur", (s.end - s.start) * us_per_cycle},
                  {"args", {{"ports", s.ports}, {"task", s.task}}}});
  }
  for (const OccupancySample& o : r.occupancy.series) {
    Json args = Json::object();
    for (int c = 0; c < kBufferClasses; ++c) args[to_string(static_cast<BufferClass>(c))] = o.bytes[c];
    ev.push_back({{"ph", "C"}, {"pid", 3}, {"name", "onchip_bytes"}, {"ts", o.time * us_per_cycle},
                  {"args", args}});
  }
  Json doc = {{"traceEvents", ev}, {"displayTimeUnit", "ns"}};
  return doc.dump() + "\n";
}

}  // namespace ttsim
