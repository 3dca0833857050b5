#include "sim/kernel_latency.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/errors.h"

namespace ttsim {

KernelLatencyModel::KernelLatencyModel(const ArchSpec& arch, const DeviceSpec& device)
    : units_(arch.units),
      read_latency_(std::max(device.bram_read_latency, device.uram_read_latency)),
      calibration_(arch.calibration) {
  for (const auto& [name, spec] : device.float_ops) op_latency_[name] = spec.latency_at(arch.clock_mhz);
  if (calibration_) {
    for (const auto& [name, cycles] : calibration_->op_latency) op_latency_[name] = cycles;
  }
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

const KernelParams* KernelLatencyModel::params(TaskOp op) const {
  if (!calibration_) return nullptr;
  auto it = calibration_->kernels.find(op);
  return it == calibration_->kernels.end() ? nullptr : &it->second;
}

LoopLatency KernelLatencyModel::price(const UnitSpec& u, const KernelParams* cal, const LoopSpec& l) const {
  LoopLatency ll;
  ll.name = l.name;
  ll.trip = l.trip;
  int chain = 0;
  for (const std::string& f : l.chain) chain += op_latency(f);
  ll.depth = read_latency_ + chain + 1;
  std::int64_t need = 1;
  if (l.recurrence_distance > 0 && !l.chain.empty()) {
    need = ceil_div(op_latency(l.chain.back()), l.recurrence_distance);
  }
  if (!cal) {
    ll.ii = static_cast<int>(std::max<std::int64_t>(u.ii, need));
    ll.cycles = (l.trip - 1) * ll.ii + ll.depth;
    return ll;
  }
  // Calibrated: fitted II (still bounded by the recurrence) and depth adjustment.
  const double ii = std::max(cal->ii, static_cast<double>(need));
  const double depth = ll.depth + cal->depth_adjust;
  ll.ii = static_cast<int>(std::lround(ii));
  ll.depth = static_cast<int>(std::lround(depth));
  ll.cycles = std::max<std::int64_t>(1, std::llround(static_cast<double>(l.trip - 1) * ii + depth));
  return ll;
}

std::int64_t KernelLatencyModel::overhead(UnitKind unit, TaskOp op) const {
  if (const KernelParams* cal = params(op)) return std::max<std::int64_t>(0, std::llround(cal->overhead));
  return units_[static_cast<int>(unit)].overhead;
}

std::vector<LoopLatency> KernelLatencyModel::loops(UnitKind unit, TaskOp op,
                                                   const TaskShape& shape) const {
  const UnitSpec& u = units_[static_cast<int>(unit)];
  const KernelParams* cal = params(op);
  std::vector<LoopLatency> out;
  for (const LoopSpec& l : kernel_loops(op, shape, u.lanes)) out.push_back(price(u, cal, l));
  return out;
}

std::int64_t KernelLatencyModel::task_cycles(UnitKind unit, TaskOp op, const TaskShape& shape) const {
  std::int64_t c = overhead(unit, op);
  for (const LoopLatency& l : loops(unit, op, shape)) c += l.cycles;
  return c;
}

std::int64_t KernelLatencyModel::cycles_for_trips(UnitKind unit, TaskOp op,
                                                  const std::vector<std::int64_t>& trips) const {
  const UnitSpec& u = units_[static_cast<int>(unit)];
  std::vector<LoopSpec> specs = kernel_loops(op, TaskShape{}, 1);
  if (specs.size() != trips.size()) {
    throw std::invalid_argument("cycles_for_trips: " + std::to_string(trips.size()) + " trip counts for a kernel of " +
                                std::to_string(specs.size()) + " loops");
  }
  std::int64_t c = overhead(unit, op);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    specs[i].trip = trips[i];
    specs[i].recurrence_distance = 0;
    c += price(u, params(op), specs[i]).cycles;
  }
  return c;
}

std::vector<int> KernelLatencyModel::base_depths(TaskOp op) const {
  std::vector<int> d;
  for (const LoopSpec& l : kernel_loops(op, TaskShape{}, 1)) {
    int chain = 0;
    for (const std::string& f : l.chain) chain += op_latency(f);
    d.push_back(read_latency_ + chain + 1);
  }
  return d;
}

bool KernelLatencyModel::calibrated(TaskOp op) const { return params(op) != nullptr; }

}  // namespace ttsim
