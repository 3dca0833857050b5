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
  // Every operator any kernel uses must be priced by the device file (the chains of
  // kernel_form are those of kernel_loops, which do not depend on the shape); each
  // distinct operator is looked up once.
  const std::vector<std::string>& operators = kernel_operators();
  std::vector<char> checked(operators.size(), 0);
  for (int k = 0; k < kUnitKinds; ++k) {
    for (TaskOp op : ops_of_unit(static_cast<UnitKind>(k))) {
      for (const LoopForm& l : kernel_form(op).loops) {
        for (int id : l.chain_ids) {
          if (!checked[id]) device.op(operators[id]);
          checked[id] = 1;
        }
      }
    }
  }
  precompute();
}

void KernelLatencyModel::precompute() {
  // Latency of each kernel operator (-1: not priced; such kernels take the
  // kernel_loops() path, which raises the InputError when one of their tasks is priced).
  const std::vector<std::string>& operators = kernel_operators();
  std::vector<int> latency(operators.size(), -1);
  for (std::size_t id = 0; id < operators.size(); ++id) {
    auto it = op_latency_.find(operators[id]);
    if (it != op_latency_.end()) latency[id] = it->second;
  }
  for (int k = 0; k < kTaskOpCount; ++k) {
    const TaskOp op = static_cast<TaskOp>(k);
    const KernelForm& form = kernel_form(op);
    PricedKernel& pk = priced_[k];
    pk.cal = params(op);
    if (pk.cal) pk.cal_overhead = std::max<std::int64_t>(0, std::llround(pk.cal->overhead));
    if (!form.closed || form.loops.size() > static_cast<std::size_t>(kMaxPricedLoops)) continue;
    bool resolved = true;
    for (std::size_t i = 0; i < form.loops.size() && resolved; ++i) {
      const LoopForm& l = form.loops[i];
      PricedLoop& pl = pk.loops[i];
      pl.trip = l.trip;
      pl.recurrence = l.recurrence;
      int chain = 0;
      for (int id : l.chain_ids) {
        if (latency[id] < 0) resolved = false;
        chain += latency[id];
      }
      pl.base_depth = read_latency_ + chain + 1;
      pl.has_chain = !l.chain_ids.empty();
      if (pl.has_chain) pl.last_latency = latency[l.chain_ids.back()];
    }
    pk.loop_count = static_cast<int>(form.loops.size());
    pk.fast = resolved;
  }
}

namespace {

/// Cycles of one loop of `trip` iterations with model depth `base_depth` and recurrence
/// bound `need` on the II (the formula in the header; calibrated when `cal`).
inline std::int64_t loop_cycles(int unit_ii, const KernelParams* cal, std::int64_t trip, int base_depth,
                                std::int64_t need) {
  if (!cal) {
    const int ii = static_cast<int>(std::max<std::int64_t>(unit_ii, need));
    return (trip - 1) * ii + base_depth;
  }
  const double ii = std::max(cal->ii, static_cast<double>(need));
  const double depth = base_depth + cal->depth_adjust;
  return std::max<std::int64_t>(1, std::llround(static_cast<double>(trip - 1) * ii + depth));
}

}  // namespace

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
  ll.cycles = loop_cycles(u.ii, cal, l.trip, ll.depth, need);
  if (!cal) {
    ll.ii = static_cast<int>(std::max<std::int64_t>(u.ii, need));
    return ll;
  }
  // Calibrated: fitted II (still bounded by the recurrence) and depth adjustment.
  const double ii = std::max(cal->ii, static_cast<double>(need));
  ll.ii = static_cast<int>(std::lround(ii));
  ll.depth = static_cast<int>(std::lround(ll.depth + cal->depth_adjust));
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

std::int64_t KernelLatencyModel::task_cycles_from_loops(UnitKind unit, TaskOp op, const TaskShape& shape) const {
  std::int64_t c = overhead(unit, op);
  for (const LoopLatency& l : loops(unit, op, shape)) c += l.cycles;
  return c;
}

std::int64_t KernelLatencyModel::task_cycles(UnitKind unit, TaskOp op, const TaskShape& s) const {
  const int k = static_cast<int>(op);
  const UnitSpec& u = units_[static_cast<int>(unit)];
  if (k < 0 || k >= kTaskOpCount || !priced_[k].fast || u.lanes < 1 || s.batch < 1 || s.rows < 1 ||
      s.inner < 1 || s.cols < 1) {
    return task_cycles_from_loops(unit, op, s);  // also raises kernel_loops()' errors
  }
  const PricedKernel& pk = priced_[k];
  std::int64_t c = pk.cal ? pk.cal_overhead : u.overhead;
  const std::int64_t tiles = ceil_div(s.cols, u.lanes);
  for (int i = 0; i < pk.loop_count; ++i) {
    const PricedLoop& l = pk.loops[i];
    const std::int64_t rec = l.recurrence.eval(s, tiles);
    const std::int64_t need = rec > 0 && l.has_chain ? ceil_div(l.last_latency, rec) : 1;
    c += loop_cycles(u.ii, pk.cal, l.trip.eval(s, tiles), l.base_depth, need);
  }
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
