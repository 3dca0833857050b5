#include "sim/loop_report.h"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "core/number_text.h"
#include "hw/loop_nest.h"
#include "hw/kernel_latency.h"

namespace ttsim {
namespace {

// Index of loop `name` in the specification of `op` (0 when absent).
int spec_index(TaskOp op, const std::string& name) {
  int index = 0;
  const ttsim_spec::KernelSpec& ks = kernel_spec(op);
  for (int i = 0; i < ks.n_loops; ++i) {
    if (name == ks.loops[i].name) index = i;
  }
  return index;
}

}  // namespace

std::vector<LoopRow> step_loops(const TaskGraph& graph, const ArchSpec& arch, const DeviceSpec& device) {
  KernelLatencyModel lat(arch, device);
  lat.bind_instances(graph);  // the II each module instance is scheduled at
  std::map<std::pair<int, std::string>, LoopRow> rows;
  for (const Task& t : graph.tasks) {
    for (const LoopLatency& l : lat.loops(t.unit, t.op, t.shape)) {
      LoopRow& row = rows[{static_cast<int>(t.op) * 16 + spec_index(t.op, l.name), l.name}];
      row.kernel = to_string(t.op);
      row.loop = l.name;
      row.lanes = arch.unit(t.unit).lanes;
      ++row.tasks;
      row.trips += l.trip;
      row.cycles += l.cycles;
      row.ii = std::max(row.ii, l.ii);
      row.rec_mii = std::max(row.rec_mii, l.rec_mii);
      row.res_mii = std::max(row.res_mii, l.res_mii);
      row.depth = l.depth;
    }
  }
  std::vector<LoopRow> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  return out;
}

std::string loops_table(const std::vector<LoopRow>& rows) {
  std::string s =
      "kernel          loop                    lanes  tasks           trips   II  RecMII  ResMII  depth"
      "           cycles\n";
  for (const LoopRow& row : rows) {
    s += fmt::format("{:<15} {:<23} {:>5} {:>6} {:>15} {:>4} {:>7} {:>7} {:>6} {:>16}\n", row.kernel, row.loop,
                     row.lanes, row.tasks, grouped(row.trips), row.ii, row.rec_mii, row.res_mii, row.depth,
                     grouped(row.cycles));
  }
  return s +
         "(II, RecMII, ResMII: the module instance's, the largest over its calls (arguments sharing a memory pool "
         "its ports), as emitted in PIPELINE II; cycles: Σ over tasks of (trip − 1) · II + depth; task overheads "
         "not included)\n";
}

Json loops_json(const std::vector<LoopRow>& rows) {
  Json j = Json::array();
  for (const LoopRow& row : rows) {
    j.push_back({{"kernel", row.kernel}, {"loop", row.loop}, {"lanes", row.lanes}, {"tasks", row.tasks},
                 {"trips", row.trips}, {"ii", row.ii}, {"rec_mii", row.rec_mii}, {"res_mii", row.res_mii},
                 {"depth", row.depth}, {"cycles", row.cycles}});
  }
  return j;
}

}  // namespace ttsim
