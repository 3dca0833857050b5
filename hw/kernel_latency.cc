#include "hw/kernel_latency.h"

#include <array>
#include <cstdint>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/errors.h"

namespace ttsim {

int ops_latency(const ttsim_spec::ChainOp* ops, int n, const OperatorLatencies& lat, int lanes) {
  const int levels = ttsim_spec::tree_levels(lanes);
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += lat[ops[i].op] * (ops[i].rep == ttsim_spec::kTree ? levels : 1);
  return sum;
}

int recurrence_mii(const ttsim_spec::Recurrence& r, const OperatorLatencies& lat, int lanes) {
  if (r.distance < 1) {
    throw std::invalid_argument(std::string("recurrence through ") + r.variable + ": distance " +
                                std::to_string(r.distance) + " < 1");
  }
  return static_cast<int>(ceil_div(ops_latency(r.ops, r.n_ops, lat, lanes), r.distance));
}

namespace {

/// Access sites per iteration of each distinct array of `l` (lane and scalar sites).
int array_sites(const ttsim_spec::LoopSpec& l, LoopCost::Sites* out) {
  int n = 0;
  for (int a = 0; a < l.n_access; ++a) {
    bool seen = false;
    for (int b = 0; b < a && !seen; ++b) seen = ttsim_spec::str_eq(l.access[b].array, l.access[a].array);
    if (seen) continue;
    LoopCost::Sites s;
    for (int b = a; b < l.n_access; ++b) {
      if (!ttsim_spec::str_eq(l.access[b].array, l.access[a].array)) continue;
      (l.access[b].kind == ttsim_spec::kScalarAccess ? s.scalar : s.lane) += l.access[b].reads + l.access[b].writes;
    }
    out[n++] = s;
  }
  return n;
}

/// ResMII from per-array sites: an array's accesses per iteration to one bank are its
/// scalar sites plus its lane sites times lane_site_accesses(lanes, banks) (banked.h: each
/// site holds one port of every bank per window of `banks` lanes).
int sites_mii(const LoopCost::Sites* sites, int n, int lanes, int banks) {
  const int per_lane_site = ttsim_spec::lane_site_accesses(lanes, banks);
  int mii = 1;
  for (int i = 0; i < n; ++i) {
    const int accesses = sites[i].lane * per_lane_site + sites[i].scalar;
    mii = std::max(mii, static_cast<int>(ceil_div(accesses, ttsim_spec::kBankPorts)));
  }
  return mii;
}

}  // namespace

namespace {

/// Access sites per iteration of one loop to each distinct array it touches (lane and
/// scalar), with the array's argument slot in the kernel (ttsim_spec::kernel_array_slot).
struct ArrayAccesses {
  int slot = 0;
  int lane = 0, scalar = 0;
  /// Accesses per iteration to one bank of `banks` for a loop on `lanes` lanes.
  int per_bank(int lanes, int banks) const { return lane * ttsim_spec::lane_site_accesses(lanes, banks) + scalar; }
};

std::vector<ArrayAccesses> array_accesses(const ttsim_spec::LoopSpec& l, const ttsim_spec::KernelSpec& k) {
  std::vector<ArrayAccesses> out;
  for (int a = 0; a < l.n_access; ++a) {
    bool seen = false;
    for (int b = 0; b < a && !seen; ++b) seen = ttsim_spec::str_eq(l.access[b].array, l.access[a].array);
    if (seen) continue;
    ArrayAccesses acc;
    acc.slot = ttsim_spec::kernel_array_slot(k, l.access[a].array);
    for (int b = a; b < l.n_access; ++b) {
      if (!ttsim_spec::str_eq(l.access[b].array, l.access[a].array)) continue;
      (l.access[b].kind == ttsim_spec::kScalarAccess ? acc.scalar : acc.lane) += l.access[b].reads + l.access[b].writes;
    }
    out.push_back(acc);
  }
  return out;
}

/// array_accesses of loop `l` of kernel `k`, computed once for the loops of
/// ttsim_spec::kKernelSpecs (found by the kernel's task op and the loop's position in `k`);
/// null for a loop outside `k`'s loops.
const std::vector<ArrayAccesses>* spec_array_accesses(const ttsim_spec::LoopSpec& l, const ttsim_spec::KernelSpec& k) {
  static const std::vector<std::vector<std::vector<ArrayAccesses>>> table = [] {
    std::vector<std::vector<std::vector<ArrayAccesses>>> t(ttsim_spec::kKernelSpecCount);
    for (int i = 0; i < ttsim_spec::kKernelSpecCount; ++i) {
      const ttsim_spec::KernelSpec& ks = ttsim_spec::kKernelSpecs[i];
      for (int j = 0; j < ks.n_loops; ++j) t[i].push_back(array_accesses(ks.loops[j], ks));
    }
    return t;
  }();
  // kKernelSpecs is constexpr in a header: each translation unit has its own copy, so the
  // kernel is found by name, not by address.
  thread_local const ttsim_spec::KernelSpec* last = nullptr;
  thread_local int last_index = -1;
  if (&k != last) {
    last_index = ttsim_spec::kernel_index(k.task_op);
    last = &k;
  }
  const int ki = last_index;
  if (ki >= 0) {
    const std::ptrdiff_t li = &l - k.loops;
    if (li >= 0 && li < k.n_loops) return &table[ki][li];
  }
  return nullptr;
}

}  // namespace

int shared_resource_mii(const ttsim_spec::LoopSpec& l, const ttsim_spec::KernelSpec& k, int lanes, int banks,
                        std::uint64_t memories) {
  if (lanes < 1) throw std::invalid_argument("shared_resource_mii: lanes must be >= 1");
  if (banks < 1) banks = lanes;
  // Accesses per iteration, per distinct array, then pooled by memory.
  int pooled[ttsim_spec::kMemoryIds] = {};
  int mii = 1;
  std::vector<ArrayAccesses> own;
  const std::vector<ArrayAccesses>* accesses = spec_array_accesses(l, k);
  if (!accesses) accesses = &(own = array_accesses(l, k));
  for (const ArrayAccesses& a : *accesses) {
    const int m = ttsim_spec::memory_of(memories, a.slot);
    const int per_bank = a.per_bank(lanes, banks);
    if (m == ttsim_spec::kOwnMemory) {
      mii = std::max(mii, static_cast<int>(ceil_div(per_bank, ttsim_spec::kBankPorts)));
    } else {
      pooled[m] += per_bank;
    }
  }
  for (int m = 1; m < ttsim_spec::kMemoryIds; ++m) mii = std::max(mii, static_cast<int>(ceil_div(pooled[m], ttsim_spec::kBankPorts)));
  return mii;
}

int resource_mii(const ttsim_spec::LoopSpec& l, int lanes, int banks) {
  if (lanes < 1) throw std::invalid_argument("resource_mii: lanes must be >= 1");
  LoopCost::Sites sites[std::extent<decltype(ttsim_spec::LoopSpec::access)>::value];
  const int n = array_sites(l, sites);
  return sites_mii(sites, n, lanes, banks < 1 ? lanes : banks);
}

namespace {

/// Σ latency over ops[0..n): (kOnce part, kTree part).
std::pair<int, int> split_latency(const ttsim_spec::ChainOp* ops, int n, const OperatorLatencies& lat) {
  int once = 0, tree = 0;
  for (int i = 0; i < n; ++i) (ops[i].rep == ttsim_spec::kTree ? tree : once) += lat[ops[i].op];
  return {once, tree};
}

}  // namespace

LoopCost loop_cost(const ttsim_spec::LoopSpec& l, const OperatorLatencies& lat) {
  LoopCost c;
  std::tie(c.chain_once, c.chain_tree) = split_latency(l.chain, l.n_chain, lat);
  c.n_rec = l.n_rec;
  for (int r = 0; r < l.n_rec; ++r) {
    if (l.rec[r].distance < 1) {
      throw std::invalid_argument(std::string("recurrence through ") + l.rec[r].variable + ": distance " +
                                  std::to_string(l.rec[r].distance) + " < 1");
    }
    std::tie(c.rec[r].once, c.rec[r].tree) = split_latency(l.rec[r].ops, l.rec[r].n_ops, lat);
    c.rec[r].distance = l.rec[r].distance;
  }
  c.n_arrays = array_sites(l, c.sites.data());
  return c;
}

LoopTiming loop_timing(const LoopCost& c, int lanes, int banks) {
  if (lanes < 1) throw std::invalid_argument("loop_timing: lanes must be >= 1");
  if (banks < 1) banks = lanes;
  const int levels = ttsim_spec::tree_levels(lanes);
  LoopTiming t;
  for (int r = 0; r < c.n_rec; ++r) {
    const int latency = c.rec[r].once + levels * c.rec[r].tree;
    t.rec_mii = std::max(t.rec_mii, static_cast<int>(ceil_div(latency, c.rec[r].distance)));
  }
  t.res_mii = sites_mii(c.sites.data(), c.n_arrays, lanes, banks);
  t.ii = std::max(t.rec_mii, t.res_mii);
  t.depth = std::max(1, c.chain_once + levels * c.chain_tree);
  return t;
}

LoopTiming loop_timing(const ttsim_spec::LoopSpec& l, const OperatorLatencies& lat, int lanes, int banks) {
  if (lanes < 1) throw std::invalid_argument("loop_timing: lanes must be >= 1");
  return loop_timing(loop_cost(l, lat), lanes, banks);
}

namespace {

/// True when some kernel's chain or recurrence uses operator `op`.
bool operator_used(int op) {
  for (const ttsim_spec::KernelSpec& k : ttsim_spec::kKernelSpecs) {
    for (int i = 0; i < k.n_loops; ++i) {
      const ttsim_spec::LoopSpec& l = k.loops[i];
      for (int c = 0; c < l.n_chain; ++c) {
        if (l.chain[c].op == op) return true;
      }
      for (int r = 0; r < l.n_rec; ++r) {
        for (int c = 0; c < l.rec[r].n_ops; ++c) {
          if (l.rec[r].ops[c].op == op) return true;
        }
      }
    }
  }
  return false;
}

}  // namespace

std::map<std::string, int> priced_operator_latencies(const DeviceSpec& device, double clock_mhz,
                                                     const KernelCalibration* calibration) {
  std::map<std::string, int> out;
  for (const auto& [name, op] : device.float_ops) {
    const auto it = calibration ? calibration->op_latency.find(name) : std::map<std::string, int>::const_iterator();
    out[name] = calibration && it != calibration->op_latency.end() ? it->second : op.latency_at(clock_mhz);
  }
  return out;
}

KernelLatencyModel::KernelLatencyModel(const ArchSpec& arch, const DeviceSpec& device)
    : units_(arch.units), banks_(arena_banks(arch)), calibration_(arch.calibration) {
  // Operator latencies: memory accesses from the device's memory section, float
  // operators from float_ops at the clock; a calibration's BindNode latencies win.
  for (int op = 0; op < ttsim_spec::kOprCount; ++op) {
    const std::string name = ttsim_spec::kOprNames[op];
    int& l = lat_[op];
    l = -1;
    if (calibration_ && !calibration_->op_latency.empty()) {
      auto it = calibration_->op_latency.find(name);
      if (it != calibration_->op_latency.end()) l = it->second;
    }
    if (l >= 0) continue;
    if (op == ttsim_spec::kRead) {
      l = std::max(device.bram_read_latency, device.uram_read_latency);
    } else if (op == ttsim_spec::kWrite) {
      l = device.write_latency;
    } else if (auto it = device.float_ops.find(name); it != device.float_ops.end()) {
      l = it->second.latency_at(arch.clock_mhz);
    } else if (operator_used(op)) {
      device.op(name);  // InputError naming the device file and the operator
    }
  }
  // Every loop of every kernel: its latencies once, then its timing on every unit kind
  // (its lane count).
  for (int k = 0; k < kTaskOpCount; ++k) {
    const TaskOp op = static_cast<TaskOp>(k);
    const ttsim_spec::KernelSpec& ks = kernel_spec(op);
    const KernelParams* cal = params(op);
    std::array<LoopCost, kMaxLoops> cost;
    std::array<const double*, kMaxLoops> adjust{};
    for (int i = 0; i < ks.n_loops; ++i) {
      cost[i] = loop_cost(ks.loops[i], lat_);
      if (cal) {
        auto it = cal->depth_adjust.find(ks.loops[i].name);
        if (it != cal->depth_adjust.end()) adjust[i] = &it->second;
      }
    }
    for (int u = 0; u < kUnitKinds; ++u) {
      const int lanes = units_[u].lanes;
      PricedKernel& pk = priced_[u][k];
      pk.overhead = cal ? std::max<std::int64_t>(0, std::llround(cal->overhead)) : units_[u].overhead;
      if (lanes < 1) continue;  // task_cycles raises kernel_loops()' error
      pk.loop_count = ks.n_loops;
      for (int i = 0; i < ks.n_loops; ++i) {
        PricedLoop& pl = pk.loops[i];
        pl.spec = &ks.loops[i];
        pl.timing = loop_timing(cost[i], lanes, banks_);
        pl.depth = pl.timing.depth;
        if (adjust[i]) pl.depth = static_cast<int>(std::max<long long>(1, std::llround(pl.timing.depth + *adjust[i])));
      }
    }
  }
}

const KernelParams* KernelLatencyModel::params(TaskOp op) const {
  if (!calibration_) return nullptr;
  auto it = calibration_->kernels.find(op);
  return it == calibration_->kernels.end() ? nullptr : &it->second;
}

const KernelLatencyModel::PricedKernel& KernelLatencyModel::priced(UnitKind unit, TaskOp op) const {
  const int u = static_cast<int>(unit), k = static_cast<int>(op);
  if (u < 0 || u >= kUnitKinds || k < 0 || k >= kTaskOpCount) {
    throw std::invalid_argument("kernel latency: unit " + std::to_string(u) + " / op " + std::to_string(k) +
                                " out of range");
  }
  return priced_[u][k];
}

LoopLatency KernelLatencyModel::latency_of(const PricedLoop& l, std::int64_t trip) const {
  LoopLatency ll;
  ll.name = l.spec->name;
  ll.trip = trip;
  ll.ii = l.timing.ii;
  ll.rec_mii = l.timing.rec_mii;
  ll.res_mii = l.timing.res_mii;
  ll.depth = l.depth;
  ll.cycles = trip > 0 ? (trip - 1) * l.timing.ii + l.depth : 0;
  return ll;
}

std::pair<int, int> KernelLatencyModel::loop_ii(const PricedLoop& l, int i, TaskOp op, int lanes,
                                                std::uint64_t memories) const {
  int res = l.timing.res_mii, ii = l.timing.ii;
  if (memories != 0) {
    // shared_resource_mii is a function of the loop, its kernel, the memory sharing, the
    // lanes and the banks alone; a graph has few distinct (loop, sharing) pairs, so each
    // thread keeps the last result per slot of a direct-mapped table, keyed by all five
    // (one thread prices many designs in a sweep).
    struct Entry {  // all zero when empty (loop null): the table is zero-initialised thread storage
      const ttsim_spec::LoopSpec* loop = nullptr;
      int op = 0;
      int lanes = 0, banks = 0;
      std::uint64_t memories = 0;
      int mii = 0;
    };
    // The slot hashes the lanes and banks too: a sweep moves through a few lane settings in
    // turn, each with the same (loop, sharing) pairs.
    constexpr int kSlotBits = 13;
    thread_local std::array<Entry, std::size_t{1} << kSlotBits> recent;
    const std::uint64_t key = (reinterpret_cast<std::uintptr_t>(l.spec) / sizeof(void*)) ^
                              (memories * 0xC2B2AE3D27D4EB4FULL) ^ (static_cast<std::uint64_t>(lanes) << 32) ^
                              (static_cast<std::uint64_t>(banks_) << 48) ^ (static_cast<std::uint64_t>(op) << 56);
    Entry& e = recent[(key * 0x9E3779B97F4A7C15ULL) >> (64 - kSlotBits)];  // the product's high bits mix every input bit
    if (lanes < 1 || e.loop != l.spec || e.op != static_cast<int>(op) || e.memories != memories || e.lanes != lanes ||
        e.banks != banks_) {
      e = Entry{l.spec, static_cast<int>(op), lanes, banks_, memories,
                shared_resource_mii(*l.spec, kernel_spec(op), lanes, banks_, memories)};
    }
    res = e.mii;
    ii = std::max(l.timing.rec_mii, res);
  }
  if (bound_) {
    const int o = static_cast<int>(op);
    res = std::max(res, instance_res_mii_[o][i]);
    ii = std::max(ii, instance_ii_[o][i]);
  }
  return {ii, res};
}

void KernelLatencyModel::bind_instances(const TaskGraph& graph) {
  std::vector<int> all(graph.tasks.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  bind_instances(graph, all);
}

void KernelLatencyModel::bind_instances(const TaskGraph& graph, const std::vector<int>& tasks) {
  bind_over(graph, tasks, nullptr);
}

void KernelLatencyModel::bind_over(const TaskGraph& graph, const std::vector<int>& tasks,
                                   std::vector<std::array<OwnLoop, kMaxLoops>>* own) {
  bound_ = false;
  for (auto& a : instance_ii_) a.fill(0);
  for (auto& a : instance_res_mii_) a.fill(0);
  if (own) own->resize(tasks.size());
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const Task& t = graph.tasks.at(static_cast<std::size_t>(tasks[k]));
    const PricedKernel& pk = priced(t.unit, t.op);
    const int lanes = units_[static_cast<int>(t.unit)].lanes;
    const TaskShape& s = t.shape;
    const int o = static_cast<int>(t.op);
    for (int i = 0; i < pk.loop_count; ++i) {
      const PricedLoop& l = pk.loops[i];
      const std::int64_t trip =
          ttsim_spec::loop_trip(l.spec->trip, l.spec->variant, s.variant, s.batch, s.rows, s.inner, s.cols, lanes, banks_);
      if (own) (*own)[k][i] = OwnLoop{trip, 0};
      if (trip <= 0) continue;
      const auto [ii, res] = loop_ii(l, i, t.op, lanes, s.memories);
      if (own) (*own)[k][i].ii = ii;
      instance_ii_[o][i] = std::max(instance_ii_[o][i], ii);
      instance_res_mii_[o][i] = std::max(instance_res_mii_[o][i], res);
    }
  }
  bound_ = true;
}

void KernelLatencyModel::bind_instances(const TaskGraph& graph, const std::vector<int>& tasks,
                                        std::vector<std::int64_t>& cycles) {
  thread_local std::vector<std::array<OwnLoop, kMaxLoops>> own;
  bind_over(graph, tasks, &own);
  cycles.resize(tasks.size());
  for (std::size_t k = 0; k < tasks.size(); ++k) {
    const Task& t = graph.tasks[static_cast<std::size_t>(tasks[k])];
    const PricedKernel& pk = priced(t.unit, t.op);
    const TaskShape& s = t.shape;
    const int o = static_cast<int>(t.op);
    if (units_[static_cast<int>(t.unit)].lanes < 1 || s.batch < 1 || s.rows < 1 || s.inner < 1 || s.cols < 1 ||
        s.variant < 0) {
      cycles[k] = task_cycles(t);  // raises the error
      continue;
    }
    // As task_cycles: the unit's overhead and, per loop that runs, (trip − 1) × the larger
    // of the task's own II and the instance's, plus its depth.
    std::int64_t c = pk.overhead;
    bool ran = false;
    for (int i = 0; i < pk.loop_count; ++i) {
      const OwnLoop& x = own[k][i];
      if (x.trip <= 0) continue;
      ran = true;
      c += (x.trip - 1) * std::max(x.ii, instance_ii_[o][i]) + pk.loops[i].depth;
    }
    cycles[k] = ran ? c : task_cycles(t);  // no loop runs: task_cycles raises the error
  }
}

std::vector<LoopLatency> KernelLatencyModel::loops(UnitKind unit, TaskOp op, const TaskShape& shape) const {
  const PricedKernel& pk = priced(unit, op);
  std::vector<LoopLatency> out;
  const int lanes = units_[static_cast<int>(unit)].lanes;
  for (const LoopSpec& l : kernel_loops(op, shape, lanes, banks_)) {
    LoopLatency ll = latency_of(pk.loops[l.index], l.trip);
    const auto [ii, res] = loop_ii(pk.loops[l.index], l.index, op, lanes, shape.memories);
    ll.res_mii = res;
    ll.ii = ii;
    ll.cycles = l.trip > 0 ? (l.trip - 1) * ll.ii + ll.depth : 0;
    out.push_back(ll);
  }
  return out;
}

std::int64_t KernelLatencyModel::task_cycles(UnitKind unit, TaskOp op, const TaskShape& s) const {
  const PricedKernel& pk = priced(unit, op);
  const int lanes = units_[static_cast<int>(unit)].lanes;
  if (lanes < 1 || s.batch < 1 || s.rows < 1 || s.inner < 1 || s.cols < 1 || s.variant < 0) {
    kernel_loops(op, s, lanes, banks_);  // raises the error
  }
  std::int64_t c = pk.overhead;
  bool ran = false;
  for (int i = 0; i < pk.loop_count; ++i) {
    const PricedLoop& l = pk.loops[i];
    const std::int64_t trip =
        ttsim_spec::loop_trip(l.spec->trip, l.spec->variant, s.variant, s.batch, s.rows, s.inner, s.cols, lanes, banks_);
    if (trip <= 0) continue;
    ran = true;
    c += (trip - 1) * loop_ii(l, i, op, lanes, s.memories).first + l.depth;
  }
  if (!ran) kernel_loops(op, s, lanes, banks_);  // the variant selects no loop: raises the error
  return c;
}

std::int64_t KernelLatencyModel::cycles_for_trips(UnitKind unit, TaskOp op,
                                                  const std::vector<std::int64_t>& trips) const {
  const PricedKernel& pk = priced(unit, op);
  const int n = kernel_spec(op).n_loops;
  if (static_cast<int>(trips.size()) != n) {
    throw std::invalid_argument("cycles_for_trips: " + std::to_string(trips.size()) + " trip counts for a kernel of " +
                                std::to_string(n) + " loops");
  }
  if (units_[static_cast<int>(unit)].lanes < 1) throw std::invalid_argument("cycles_for_trips: lanes must be >= 1");
  std::int64_t c = pk.overhead;
  for (int i = 0; i < n; ++i) {
    if (trips[i] < 0) throw std::invalid_argument("cycles_for_trips: negative trip count");
    if (trips[i] == 0) continue;
    c += (trips[i] - 1) * loop_ii(pk.loops[i], i, op, units_[static_cast<int>(unit)].lanes, 0).first +
         pk.loops[i].depth;
  }
  return c;
}

std::vector<LoopLatency> KernelLatencyModel::loop_classes(UnitKind unit, TaskOp op) const {
  const PricedKernel& pk = priced(unit, op);
  if (units_[static_cast<int>(unit)].lanes < 1) throw std::invalid_argument("loop_classes: lanes must be >= 1");
  std::vector<LoopLatency> out;
  for (int i = 0; i < pk.loop_count; ++i) {
    LoopLatency ll = latency_of(pk.loops[i], 0);
    const auto [ii, res] = loop_ii(pk.loops[i], i, op, units_[static_cast<int>(unit)].lanes, 0);
    ll.ii = ii;
    ll.res_mii = res;
    out.push_back(ll);
  }
  return out;
}

int KernelLatencyModel::class_ii(UnitKind unit, TaskOp op, int loop) const {
  const PricedKernel& pk = priced(unit, op);
  const int lanes = units_[static_cast<int>(unit)].lanes;
  if (lanes < 1) throw std::invalid_argument("class_ii: lanes must be >= 1");
  if (loop < 0 || loop >= pk.loop_count) {
    throw std::invalid_argument("class_ii: loop " + std::to_string(loop) + " of a kernel of " +
                                std::to_string(pk.loop_count) + " loops");
  }
  return loop_ii(pk.loops[loop], loop, op, lanes, 0).first;
}

std::vector<int> KernelLatencyModel::base_depths(UnitKind unit, TaskOp op) const {
  const PricedKernel& pk = priced(unit, op);
  if (units_[static_cast<int>(unit)].lanes < 1) throw std::invalid_argument("base_depths: lanes must be >= 1");
  std::vector<int> d;
  for (int i = 0; i < pk.loop_count; ++i) d.push_back(pk.loops[i].timing.depth);
  return d;
}

bool KernelLatencyModel::calibrated(TaskOp op) const { return params(op) != nullptr; }

}  // namespace ttsim
