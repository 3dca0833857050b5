#include "sim/kernel_latency.h"

#include <algorithm>

#include "core/errors.h"

namespace ttsim {

KernelLatencyModel::KernelLatencyModel(const ArchSpec& arch, const DeviceSpec& device)
    : units_(arch.units), read_latency_(std::max(device.bram_read_latency, device.uram_read_latency)) {
  for (const auto& [name, spec] : device.float_ops) op_latency_[name] = spec.latency_at(arch.clock_mhz);
  // Every operator any kernel uses must be priced by the device file.
  for (int k = 0; k < kUnitKinds; ++k) {
    for (TaskOp op : ops_of_unit(static_cast<UnitKind>(k))) {
      for (const LoopSpec& l : kernel_loops(op, TaskShape{}, 1)) {
        for (const std::string& f : l.chain) device.op(f);
      }
    }
  }
}

int KernelLatencyModel::op_latency(const std::string& op) const {
  auto it = op_latency_.find(op);
  if (it == op_latency_.end()) throw InputError("device file defines no operator \"" + op + "\"");
  return it->second;
}

std::vector<LoopLatency> KernelLatencyModel::loops(UnitKind unit, TaskOp op,
                                                   const TaskShape& shape) const {
  const UnitSpec& u = units_[static_cast<int>(unit)];
  std::vector<LoopLatency> out;
  for (const LoopSpec& l : kernel_loops(op, shape, u.lanes)) {
    LoopLatency ll;
    ll.name = l.name;
    ll.trip = l.trip;
    int chain = 0;
    for (const std::string& f : l.chain) chain += op_latency(f);
    ll.depth = read_latency_ + chain + 1;
    ll.ii = u.ii;
    if (l.recurrence_distance > 0 && !l.chain.empty()) {
      const std::int64_t need = ceil_div(op_latency(l.chain.back()), l.recurrence_distance);
      ll.ii = static_cast<int>(std::max<std::int64_t>(ll.ii, need));
    }
    ll.cycles = (l.trip - 1) * ll.ii + ll.depth;
    out.push_back(ll);
  }
  return out;
}

std::int64_t KernelLatencyModel::task_cycles(UnitKind unit, TaskOp op, const TaskShape& shape) const {
  std::int64_t c = units_[static_cast<int>(unit)].overhead;
  for (const LoopLatency& l : loops(unit, op, shape)) c += l.cycles;
  return c;
}

}  // namespace ttsim
