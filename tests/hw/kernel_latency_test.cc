// The kernel latency model (hw/kernel_latency.h) on the kernel specification
// (hls/include/kernel_spec.h through hw/loop_nest.h):
//  - II derived from recurrences (RecMII) and from array accesses (ResMII) by the same
//    function the model prices with (loop_timing), on synthetic loops;
//  - variants selecting the loops of a kernel;
//  - the allocation-free task_cycles against the header's formula evaluated here
//    independently on kernel_loops() (operator names, recurrence and access lists), over
//    random shapes, variants, lane counts, overheads, operator latencies, clocks and
//    calibrations; loops() and cycles_for_trips() agree with it;
//  - a hand-computed point and the errors.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "core/errors.h"
#include "hls/include/kernel_spec.h"
#include "hw/loop_nest.h"
#include "models/task_graph.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "hw/kernel_latency.h"
#include "hw/kernel_params.h"

namespace ttsim {
namespace {

using namespace ttsim_spec;

const char* const kFloatOps[] = {"fadd", "fmul", "fcmp", "fexp", "fdiv", "fsqrt", "flog"};

/// Operator latencies with every operator at `cycles`, fadd at `fadd`.
OperatorLatencies latencies(int cycles, int fadd) {
  OperatorLatencies l;
  l.fill(cycles);
  l[kFadd] = fadd;
  return l;
}

/// A synthetic loop: a read, one fadd and a write on the chain, the given recurrences
/// and accesses.
ttsim_spec::LoopSpec synthetic_loop(std::initializer_list<Recurrence> recs, std::initializer_list<ArrayAccess> acc) {
  ttsim_spec::LoopSpec l{"synthetic", kTripElementwise, -1, {{kRead, kOnce}, {kFadd, kOnce}, {kWrite, kOnce}}, 3, {}, 0, {}, 0};
  for (const Recurrence& r : recs) l.rec[l.n_rec++] = r;
  for (const ArrayAccess& a : acc) l.access[l.n_access++] = a;
  return l;
}

TEST(DerivedII, DistanceOneFaddRecurrenceGivesTheFaddLatency) {
  // s += x[i] in FP32: a cycle through one fadd at distance 1 (hls-scheduling.md).
  for (int fadd : {3, 4, 6, 11}) {
    const ttsim_spec::LoopSpec l = synthetic_loop({{"s", {{kFadd, kOnce}}, 1, 1}}, {{"x", kLaneAccess, 1, 0}});
    const LoopTiming t = loop_timing(l, latencies(1, fadd), 1);
    EXPECT_EQ(t.rec_mii, fadd);
    EXPECT_EQ(t.res_mii, 1);
    EXPECT_EQ(t.ii, fadd);
    EXPECT_EQ(t.depth, 1 + fadd + 1);  // read + fadd + write
  }
}

TEST(DerivedII, InterleavedAccumulatorsCoverTheLatency) {
  // kAccSlots interleaved partial sums: distance kAccSlots; ceil(latency / distance).
  const OperatorLatencies lat = latencies(1, 6);
  EXPECT_EQ(loop_timing(synthetic_loop({{"acc", {{kFadd, kOnce}}, 1, kAccSlots}}, {}), lat, 1).ii, 1);
  EXPECT_EQ(loop_timing(synthetic_loop({{"acc", {{kFadd, kOnce}}, 1, 4}}, {}), lat, 1).ii, 2);
  EXPECT_EQ(loop_timing(synthetic_loop({{"acc", {{kFadd, kOnce}}, 1, 5}}, {}), lat, 1).ii, 2);
  // A read-modify-write through memory: read + fadd + write on the cycle (3 + 6 + 2 = 11).
  OperatorLatencies rmw = lat;
  rmw[kRead] = 3;
  rmw[kWrite] = 2;
  const ttsim_spec::LoopSpec c = synthetic_loop({{"C", {{kRead, kOnce}, {kFadd, kOnce}, {kWrite, kOnce}}, 3, 2}}, {});
  EXPECT_EQ(recurrence_mii(c.rec[0], rmw, 1), 6);  // ceil(11 / 2)
  EXPECT_EQ(loop_timing(c, rmw, 1).ii, 6);
  // The largest recurrence wins; a recurrence without operators has latency 0 (II 1).
  const ttsim_spec::LoopSpec two = synthetic_loop({{"a", {{kFadd, kOnce}}, 1, 3}, {"b", {}, 0, 1}}, {});
  EXPECT_EQ(recurrence_mii(two.rec[1], lat, 1), 0);
  EXPECT_EQ(loop_timing(two, lat, 1).rec_mii, 2);
  EXPECT_EQ(loop_timing(synthetic_loop({{"b", {}, 0, 1}}, {}), lat, 1).ii, 1);
  // A tree operator on a recurrence counts tree_levels(lanes) times.
  const ttsim_spec::LoopSpec tree = synthetic_loop({{"t", {{kFadd, kTree}}, 1, 1}}, {});
  EXPECT_EQ(loop_timing(tree, lat, 16).rec_mii, 4 * 6);
  EXPECT_EQ(loop_timing(tree, lat, 1).rec_mii, 1);
  EXPECT_THROW(recurrence_mii({"z", {{kFadd, kOnce}}, 1, 0}, lat, 1), std::invalid_argument);
}

TEST(DerivedII, ResMiiFromAccessesPerBank) {
  // Per array: scalar sites + lane sites, each one access per bank whatever the lanes
  // (hls/include/banked.h: lane accesses address every bank at its compile-time index);
  // kBankPorts (2) ports.
  EXPECT_EQ(kBankPorts, 2);
  EXPECT_EQ(resource_mii(synthetic_loop({}, {{"x", kLaneAccess, 1, 1}}), 1), 1);
  EXPECT_EQ(resource_mii(synthetic_loop({}, {{"x", kLaneAccess, 1, 1}}), 8), 1);
  EXPECT_EQ(resource_mii(synthetic_loop({}, {{"x", kLaneAccess, 1, 1}}), 64), 1);
  EXPECT_EQ(resource_mii(synthetic_loop({}, {{"x", kLaneAccess, 2, 1}}), 1), 2);
  EXPECT_EQ(resource_mii(synthetic_loop({}, {{"x", kScalarAccess, 5, 0}}), 64), 3);
  // Sites of one array listed twice are summed; other arrays have their own ports.
  EXPECT_EQ(resource_mii(synthetic_loop({}, {{"x", kLaneAccess, 1, 0}, {"y", kLaneAccess, 2, 0}, {"x", kScalarAccess, 1, 1}}), 4),
            2);
  EXPECT_EQ(resource_mii(synthetic_loop({}, {{"x", kLaneAccess, 1, 0}, {"x", kScalarAccess, 1, 1}, {"x", kLaneAccess, 1, 1}}), 4),
            3);
  EXPECT_EQ(resource_mii(synthetic_loop({}, {}), 16), 1);
  EXPECT_THROW(resource_mii(synthetic_loop({}, {}), 0), std::invalid_argument);
  // II = max(RecMII, ResMII).
  const LoopTiming t = loop_timing(synthetic_loop({{"acc", {{kFadd, kOnce}}, 1, 1}}, {{"x", kLaneAccess, 4, 2}}),
                                   latencies(1, 2), 8);
  EXPECT_EQ(t.rec_mii, 2);
  EXPECT_EQ(t.res_mii, 3);  // (4 + 2) sites / 2 ports
  EXPECT_EQ(t.ii, 3);
}

TEST(DerivedII, ArgumentsInOneMemoryPoolItsPorts) {
  // layernorm_normalize: x, gamma, beta, y, xhat (lane) and stat, rstd (scalar), one site
  // each; alone every array needs one of its two ports. With x, y, xhat and rstd in
  // act_mem (as the top passes them) act_mem serves 4 accesses per iteration: ResMII 2.
  const KernelSpec& k = kKernelSpecs[kernel_index("layernorm")];
  const ttsim_spec::LoopSpec* l = find_loop("layernorm", "layernorm_normalize");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(shared_resource_mii(*l, k, 8, 8, 0), resource_mii(*l, 8));
  EXPECT_EQ(resource_mii(*l, 8), 1);
  unsigned long long m = 0;
  for (const char* a : {"x", "y", "xhat", "rstd"}) m = with_memory(m, kernel_array_slot(k, a), kActMem);
  EXPECT_EQ(shared_resource_mii(*l, k, 8, 8, m), 2);
  m = with_memory(m, kernel_array_slot(k, "stat"), kActMem);
  EXPECT_EQ(shared_resource_mii(*l, k, 8, 8, m), 3);  // five sites on two ports
  // Different memories do not pool.
  m = with_memory(m, kernel_array_slot(k, "y"), kOutMem);
  EXPECT_EQ(shared_resource_mii(*l, k, 8, 8, m), 2);  // x, xhat, rstd, stat: 4 → 2; y alone: 1
}

TEST(DerivedII, EveryShippedRecurrenceIsCoveredAndOneLaneReachesIiOne) {
  // kAccSlots (kAccMinSlots for the contraction) covers every accumulation cycle at the supported latencies (RecMII 1 at any
  // lane count), and no array alone is asked for more than its two ports at any lane count
  // (banked arrays: a lane site is one access per bank).
  // u50 at 300-500 MHz: fadd 6, fmul 3, fcmp 1, fexp 16, fdiv 9, fsqrt 12, flog 19; a
  // read of 2 cycles (URAM), a write of 1.
  OperatorLatencies lat = latencies(16, 6);
  lat[kRead] = 2;
  lat[kWrite] = 1;
  lat[kFmul] = 3;
  lat[kFcmp] = 1;
  lat[kFdiv] = 9;
  lat[kFsqrt] = 12;
  lat[kFlog] = 19;
  for (const KernelSpec& k : kKernelSpecs) {
    for (int i = 0; i < k.n_loops; ++i) {
      for (int lanes : {1, 16, 64}) {
        const LoopTiming t = loop_timing(k.loops[i], lat, lanes);
        EXPECT_EQ(t.rec_mii, 1) << k.loops[i].name << " lanes " << lanes;
        EXPECT_EQ(t.res_mii, resource_mii(k.loops[i], lanes)) << k.loops[i].name;
        EXPECT_EQ(t.ii, 1) << k.loops[i].name << " lanes " << lanes;
      }
    }
  }
}

// The transpose's steps walked one by one (step u reads the rows of tile u, writes the
// columns of tile u − D, lasts the longer of the two and at least transpose_min_step): the
// iterations sum to transpose_trip, and every buffer is read kTransposeLag or more iterations
// after its last write — the pragma's premise at steps shorter than the lanes.
TEST(DerivedII, TransposeStepsSumToItsTripAndKeepTheLag) {
  for (int lanes : {1, 2, 3, 4, 8, 64}) {
    const long long D = transpose_buffers(lanes) - 1, m = transpose_min_step(lanes);
    for (long long R : {1, 3, 12, 64, 96, 130, 768}) {
      for (long long C : {1, 2, 12, 30, 64, 65, 768}) {
        const long long nr = (R + lanes - 1) / lanes, nc = (C + lanes - 1) / lanes, T = nr * nc;
        std::vector<long long> last_write(T, -1);
        long long n = 0;
        for (long long u = 0; u < T + D; ++u) {
          const long long rho = u < T ? std::min<long long>(lanes, R - (u / nc) * lanes) : 0;
          const long long w = u - D;
          const long long gamma = w >= 0 && w < T ? std::min<long long>(lanes, C - (w % nc) * lanes) : 0;
          if (gamma > 0) EXPECT_GE(n - last_write[w], kTransposeLag) << lanes << " " << R << "x" << C << " tile " << w;
          if (rho > 0) last_write[u] = n + rho - 1;
          n += std::max({rho, gamma, m});
        }
        EXPECT_EQ(n, transpose_trip<long long>(R, C, lanes)) << lanes << " " << R << "x" << C;
      }
    }
  }
}

// The transpose keeps each tile buffer kTransposeLag iterations or more past its last write
// (its pragma declares the tile free of inter-iteration dependence): its depth, read + write
// at the slowest supported memory latencies (URAM read 2, write 1), must stay below that.
TEST(DerivedII, TransposeTilesOutliveTheLoopDepth) {
  OperatorLatencies lat = latencies(16, 6);
  lat[kRead] = 2;
  lat[kWrite] = 1;
  const int k = kernel_index("add");
  for (int i = 0; i < kKernelSpecs[k].n_loops; ++i) {
    const ttsim_spec::LoopSpec& l = kKernelSpecs[k].loops[i];
    if (std::string(l.name) != "transpose") continue;
    for (int lanes : {1, 2, 3, 4, 8, 64}) {
      EXPECT_LT(loop_timing(l, lat, lanes).depth, kTransposeLag) << lanes;
      EXPECT_GE((transpose_buffers(lanes) - 2) * transpose_min_step(lanes) + 1, kTransposeLag) << lanes;
      EXPECT_LE(transpose_min_step(lanes), lanes) << lanes;
    }
    return;
  }
  FAIL() << "no transpose loop in the add kernel's specification";
}

TEST(Variants, SelectTheLoopsOfAKernel) {
  const TaskShape base{2, 3, 40, 10};
  auto names = [](TaskOp op, TaskShape s, int lanes) {
    std::string n;
    for (const auto& l : kernel_loops(op, s, lanes)) n += (n.empty() ? "" : ",") + l.name;
    return n;
  };
  TaskShape s = base;
  s.variant = kContractColumn;
  EXPECT_EQ(names(TaskOp::kContraction, s, 4), "contract_column");
  s.variant = kContractDot;
  EXPECT_EQ(names(TaskOp::kContraction, s, 4), "contract_dot");
  s.variant = kContractScalar | kContractReduceBatch;
  EXPECT_EQ(names(TaskOp::kContraction, s, 4), "contract_scalar");
  s.variant = kAddTranspose;
  EXPECT_EQ(names(TaskOp::kAdd, s, 4), "transpose");
  s.variant = kAddAccumulate;
  EXPECT_EQ(names(TaskOp::kAdd, s, 4), "add_accumulate");
  s.variant = kAddColumnSum;
  EXPECT_EQ(names(TaskOp::kAdd, s, 4), "column_sum");
  s.variant = 0;
  EXPECT_EQ(names(TaskOp::kSoftmax, s, 4), "softmax_max,softmax_exp_sum,softmax_normalize");
  // Trip counts are the specification's formulas (R = 6, tiles = 3, S = 16; a contraction
  // of fewer than 16 output slots runs one chunk of max(slots, kAccMinSlots = 12)).
  s.variant = kContractColumn;
  EXPECT_EQ(kernel_loops(TaskOp::kContraction, s, 4)[0].trip, 2 * 12 * 40);  // nb · 1 chunk of max(3·3, 12) · inner
  s.variant = kContractColumn | kContractReduceBatch;
  EXPECT_EQ(kernel_loops(TaskOp::kContraction, s, 4)[0].trip, 1 * 12 * 40 * 2);
  s.variant = kContractDot;
  EXPECT_EQ(kernel_loops(TaskOp::kContraction, s, 4)[0].trip, 2 * 32 * 10);  // ceil(30/16)·16 · ceil(40/4)
  s.variant = kAddColumnSum;
  EXPECT_EQ(kernel_loops(TaskOp::kAdd, s, 4)[0].trip, 16 * 6);  // ceil(3/16)·16 · R
  s.variant = 0;
  EXPECT_EQ(kernel_loops(TaskOp::kSoftmax, s, 4)[0].trip, 16 * 3);  // ceil(6/16)·16 · tiles
  EXPECT_EQ(kernel_loops(TaskOp::kSoftmax, s, 4)[2].trip, 6 * 3);
  // Dual-port lanes: 8 lanes on 4 banks pair the column form's rows when cols <= 8 − 4
  // (30 rows: 15 pairs); 5 columns stay one tile a row.
  {
    TaskShape p{4, 30, 40, 4};
    p.variant = kContractColumn;
    EXPECT_EQ(kernel_loops(TaskOp::kContraction, p, 8, 4)[0].trip, 4 * 15 * 40);  // 15 pairs: one chunk of 15
    EXPECT_EQ(kernel_loops(TaskOp::kContraction, p, 8, 8)[0].trip, 4 * 32 * 40);  // single-port: 30 rows
    p.cols = 5;
    EXPECT_EQ(kernel_loops(TaskOp::kContraction, p, 8, 4)[0].trip, 4 * 32 * 40);
    // The dot form pairs output columns when C's are adjacent (kContractUnitCj) and the
    // reduction fits a window: 40 steps do not; 4 do (30 rows × 2 column pairs = 60 slots).
    p.cols = 4;
    p.variant = kContractDot | kContractUnitCj;
    EXPECT_EQ(kernel_loops(TaskOp::kContraction, p, 8, 4)[0].trip, 4 * 128 * 5);
    p.inner = 4;
    EXPECT_EQ(kernel_loops(TaskOp::kContraction, p, 8, 4)[0].trip, 4 * 64 * 1);
    p.variant = kContractDot;  // outputs not adjacent: one per iteration
    EXPECT_EQ(kernel_loops(TaskOp::kContraction, p, 8, 4)[0].trip, 4 * 128 * 1);
  }
  // Chains: a tree operator repeated tree_levels(lanes) times.
  s.variant = kContractDot;
  const auto dot = kernel_loops(TaskOp::kContraction, s, 64)[0];
  EXPECT_EQ(std::count(dot.chain.begin(), dot.chain.end(), "fadd"), 6 + 1);
  EXPECT_EQ(dot.recurrences.size(), 2u);
  EXPECT_EQ(dot.recurrences[0].distance, kAccMinSlots);
  EXPECT_EQ(dot.accesses.size(), 4u);  // A, B, C and the index tables
  // The column form of an accumulating call runs its own loop, with a C read site.
  s.variant = kContractColumnAcc;
  const auto acc = kernel_loops(TaskOp::kContraction, s, 4);
  ASSERT_EQ(acc.size(), 1u);
  EXPECT_EQ(acc[0].name, "contract_column_acc");
  s.variant = kContractColumn;
  EXPECT_EQ(kernel_loops(TaskOp::kContraction, s, 4)[0].name, "contract_column");
  // A variant that selects nothing, and bad shapes.
  s.variant = -1;
  EXPECT_THROW(kernel_loops(TaskOp::kContraction, s, 4), std::invalid_argument);
  s.variant = 4;
  EXPECT_THROW(kernel_loops(TaskOp::kAdd, s, 4), std::invalid_argument);
  s.variant = -1;
  EXPECT_THROW(kernel_loops(TaskOp::kGelu, s, 4), std::invalid_argument);
  EXPECT_THROW(kernel_loops(TaskOp::kGelu, TaskShape{1, 1, 1, 0}, 4), std::invalid_argument);
  EXPECT_THROW(kernel_loops(TaskOp::kGelu, TaskShape{}, 0), std::invalid_argument);
  // Every loop regardless of variant, for report mapping.
  EXPECT_EQ(all_kernel_loops(TaskOp::kContraction, 1).size(), 4u);
  EXPECT_EQ(all_kernel_loops(TaskOp::kAdd, 1).size(), 3u);  // add_accumulate, column_sum, transpose
  for (int k = 0; k < kTaskOpCount; ++k) EXPECT_NO_THROW(kernel_spec(static_cast<TaskOp>(k)));
}

/// A device whose operators have random latencies in two clock bands.
DeviceSpec random_device() {
  DeviceSpec d;
  d.source_file = "random_device.json";
  d.bram_read_latency = *rc::gen::inRange(1, 4);
  d.uram_read_latency = *rc::gen::inRange(1, 4);
  d.write_latency = *rc::gen::inRange(1, 4);
  for (const char* name : kFloatOps) {
    FloatOpSpec f;
    f.latency_by_clock = {{150.0, *rc::gen::inRange(1, 20)}, {500.0, *rc::gen::inRange(1, 40)}};
    d.float_ops[name] = f;
  }
  return d;
}

/// An arch with random lanes and overhead per unit, random clock and, half the time, a
/// calibration covering a random subset of the ops (random depth adjustments of some
/// loops) and some operators.
ArchSpec random_arch() {
  ArchSpec a;
  a.clock_mhz = *rc::gen::element(100.0, 150.0, 200.0, 300.0);
  for (UnitSpec& u : a.units) {
    u.lanes = *rc::gen::element(1, 2, 3, 4, 7, 8, 16, 32, 64, 128, 256);
    u.overhead = *rc::gen::inRange(0, 200);
  }
  if (*rc::gen::arbitrary<bool>()) {
    auto cal = std::make_shared<KernelCalibration>();
    cal->name = "random_calibration.json";
    for (int k = 0; k < kTaskOpCount; ++k) {
      if (!*rc::gen::arbitrary<bool>()) continue;
      KernelParams p;
      for (const auto& l : all_kernel_loops(static_cast<TaskOp>(k), 1)) {
        if (*rc::gen::arbitrary<bool>()) p.depth_adjust[l.name] = *rc::gen::inRange(-4000, 2000) / 100.0;
      }
      p.overhead = *rc::gen::inRange(-5000, 30000) / 100.0;
      cal->kernels[static_cast<TaskOp>(k)] = p;
    }
    for (const char* name : kFloatOps) {
      if (*rc::gen::arbitrary<bool>()) cal->op_latency[name] = *rc::gen::inRange(1, 30);
    }
    a.calibration = cal;
  }
  return a;
}

TaskShape random_shape(TaskOp op) {
  auto extent = [] {
    return *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(1, 9), rc::gen::inRange<std::int64_t>(1, 5000));
  };
  TaskShape s{extent(), extent(), extent(), extent()};
  if (op == TaskOp::kContraction) {
    s.variant = *rc::gen::element(kContractColumn, kContractDot, kContractScalar) |
                (*rc::gen::arbitrary<bool>() ? kContractReduceBatch : 0);
  } else if (op == TaskOp::kAdd) {
    s.variant = *rc::gen::element(kAddAccumulate, kAddColumnSum, kAddTranspose);
  }
  return s;
}

/// The header's formula (hw/kernel_latency.h, hw/kernel_params.h) evaluated on
/// kernel_loops() directly, by operator name.
std::int64_t formula_cycles(const ArchSpec& a, const DeviceSpec& d, UnitKind unit, TaskOp op, const TaskShape& s) {
  const UnitSpec& u = a.unit(unit);
  const KernelParams* cal = nullptr;
  if (a.calibration) {
    auto it = a.calibration->kernels.find(op);
    if (it != a.calibration->kernels.end()) cal = &it->second;
  }
  auto latency = [&](const std::string& f) {
    if (a.calibration) {
      auto it = a.calibration->op_latency.find(f);
      if (it != a.calibration->op_latency.end()) return it->second;
    }
    if (f == "read") return std::max(d.bram_read_latency, d.uram_read_latency);
    if (f == "write") return d.write_latency;
    return d.op(f).latency_at(a.clock_mhz);
  };
  std::int64_t c = cal ? std::max<std::int64_t>(0, std::llround(cal->overhead)) : u.overhead;
  for (const LoopSpec& l : kernel_loops(op, s, u.lanes)) {
    std::int64_t ii = 1;
    for (const LoopRecurrence& r : l.recurrences) {
      std::int64_t sum = 0;
      for (const std::string& f : r.ops) sum += latency(f);
      ii = std::max(ii, ceil_div(sum, r.distance));
    }
    std::map<std::string, int> per_bank;
    for (const LoopAccess& x : l.accesses) per_bank[x.array] += x.bank_accesses(u.lanes);
    for (const auto& [array, n] : per_bank) ii = std::max<std::int64_t>(ii, ceil_div(n, kBankPorts));
    std::int64_t depth = 0;
    for (const std::string& f : l.chain) depth += latency(f);
    depth = std::max<std::int64_t>(1, depth);
    if (cal) {
      auto it = cal->depth_adjust.find(l.name);
      if (it != cal->depth_adjust.end()) depth = std::max<std::int64_t>(1, std::llround(depth + it->second));
    }
    c += (l.trip - 1) * ii + depth;
  }
  return c;
}

RC_GTEST_PROP(KernelLatency, TaskCyclesEqualsTheFormulaOnKernelLoopsForEveryOpAndUnit, ()) {
  const DeviceSpec d = random_device();
  const ArchSpec a = random_arch();
  const KernelLatencyModel m(a, d);
  for (int shape_case = 0; shape_case < 4; ++shape_case) {
    for (int k = 0; k < kTaskOpCount; ++k) {
      const TaskOp op = static_cast<TaskOp>(k);
      const TaskShape s = random_shape(op);
      for (int u = 0; u < kUnitKinds; ++u) {
        const UnitKind unit = static_cast<UnitKind>(u);
        const std::int64_t fast = m.task_cycles(unit, op, s);
        RC_ASSERT(fast == formula_cycles(a, d, unit, op, s));
        // The per-loop breakdown plus the per-invocation overhead, and the trip-count path.
        std::int64_t from_loops = 0;
        std::vector<std::int64_t> trips(kernel_spec(op).n_loops, 0);
        const std::vector<LoopLatency> ll = m.loops(unit, op, s);
        const std::vector<LoopSpec> specs = kernel_loops(op, s, a.unit(unit).lanes);
        for (std::size_t i = 0; i < ll.size(); ++i) {
          from_loops += ll[i].cycles;
          RC_ASSERT(ll[i].ii == std::max(ll[i].rec_mii, ll[i].res_mii));
          RC_ASSERT(ll[i].cycles == (ll[i].trip - 1) * ll[i].ii + ll[i].depth);
          trips[specs[i].index] = specs[i].trip;
        }
        std::int64_t overhead = a.unit(unit).overhead;
        if (a.calibration && a.calibration->kernels.count(op)) {
          overhead = std::max<std::int64_t>(0, std::llround(a.calibration->kernels.at(op).overhead));
        }
        RC_ASSERT(fast == from_loops + overhead);
        RC_ASSERT(fast == m.cycles_for_trips(unit, op, trips));
      }
    }
  }
}

DeviceSpec flat_device(int cycles) {
  DeviceSpec d;
  d.source_file = "flat.json";
  for (const char* name : kFloatOps) d.float_ops[name].latency_by_clock = {{500.0, cycles}};
  return d;
}

TEST(KernelLatency, ContractionAtAKnownPoint) {
  // fmul 3, fadd 7, read 2, write 1, 4 lanes, overhead 5.
  DeviceSpec d = flat_device(1);
  d.bram_read_latency = 2;
  d.uram_read_latency = 1;
  d.write_latency = 1;
  d.float_ops["fmul"].latency_by_clock = {{500.0, 3}};
  d.float_ops["fadd"].latency_by_clock = {{500.0, 7}};
  ArchSpec a;
  a.unit(UnitKind::kContraction) = UnitSpec{1, 4, 5};
  const KernelLatencyModel m(a, d);
  // Column form, shape 2×3×5×10: tiles 3, 9 slots: one chunk of 12 (kAccMinSlots), trip
  // 2 · 12 · 5 = 120; RecMII: acc ceil(7/12) = 1, C ceil((2+7+1)/12) = 1; ResMII: C (1 read
  // + 1 write site, one access per bank each) / 2 ports = 1. depth = read 2 + fmul 3 + fmul
  // 3 + fadd 7 + write 1 = 16; 119 · 1 + 16 + 5 = 140.
  TaskShape s{2, 3, 5, 10, kContractColumn};
  EXPECT_EQ(m.task_cycles(UnitKind::kContraction, TaskOp::kContraction, s), 140);
  // Dot form: trip 2 · ceil(30/16)·16 · ceil(5/4) = 128; ResMII: A, B one site each = 1;
  // depth 2 + 3 + 2·7 (tree over 4 lanes) + 3 + 7 + 1 = 30; 127 · 1 + 30 + 5 = 162.
  s.variant = kContractDot;
  EXPECT_EQ(m.task_cycles(UnitKind::kContraction, TaskOp::kContraction, s), 162);
  const auto loops = m.loops(UnitKind::kContraction, TaskOp::kContraction, s);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].name, "contract_dot");
  EXPECT_EQ(loops[0].depth, 30);
  EXPECT_EQ(loops[0].ii, 1);
  // An fadd slower than the interleave: RecMII = ceil(40 / 12) = 4 (acc), C: ceil(43/12) = 4.
  d.float_ops["fadd"].latency_by_clock = {{500.0, 40}};
  const KernelLatencyModel slow(a, d);
  const auto sl = slow.loops(UnitKind::kContraction, TaskOp::kContraction, s);
  EXPECT_EQ(sl[0].rec_mii, 4);
  EXPECT_EQ(sl[0].ii, 4);
  EXPECT_EQ(sl[0].cycles, 127 * 4 + (2 + 3 + 2 * 40 + 40 + 3 + 1));
}

TEST(KernelLatency, EveryCallRunsAtItsInstancesWorstII) {
  // Two layernorm calls on one instance: one with x, y, xhat and rstd in act_mem (their
  // accesses pool on its two ports: layernorm_normalize ResMII 2), one with its arguments
  // in distinct memories (ResMII 1). Unbound, each is priced at its own II; bound to the
  // step, both run layernorm_normalize at the instance's II 2, the loops the instance
  // runs report it, and cycles_for_trips (csynth samples) prices the same II.
  DeviceSpec d = flat_device(1);
  ArchSpec a;
  a.unit(UnitKind::kLayerNorm) = UnitSpec{1, 8, 0};
  const KernelSpec& k = kKernelSpecs[kernel_index("layernorm")];
  unsigned long long shared = 0;
  for (const char* arr : {"x", "y", "xhat", "rstd"}) shared = with_memory(shared, kernel_array_slot(k, arr), kActMem);
  TaskGraph g;
  for (int i = 0; i < 2; ++i) {
    Task t;
    t.id = i;
    t.name = i == 0 ? "ln_shared" : "ln_distinct";
    t.op = TaskOp::kLayerNorm;
    t.unit = UnitKind::kLayerNorm;
    t.shape = TaskShape{1, 32, 1, 128};
    t.shape.memories = i == 0 ? shared : 0;
    g.tasks.push_back(t);
  }
  KernelLatencyModel m(a, d);
  auto normalize_ii = [&](const Task& t) {
    for (const LoopLatency& l : m.loops(t.unit, t.op, t.shape)) {
      if (l.name == "layernorm_normalize") return l.ii;
    }
    return -1;
  };
  EXPECT_EQ(normalize_ii(g.tasks[0]), 2);
  EXPECT_EQ(normalize_ii(g.tasks[1]), 1);
  const std::int64_t distinct_alone = m.task_cycles(g.tasks[1]);
  EXPECT_FALSE(m.bound());
  m.bind_instances(g);
  EXPECT_TRUE(m.bound());
  EXPECT_EQ(normalize_ii(g.tasks[0]), 2);
  EXPECT_EQ(normalize_ii(g.tasks[1]), 2);
  EXPECT_EQ(m.task_cycles(g.tasks[1]), m.task_cycles(g.tasks[0]));
  EXPECT_GT(m.task_cycles(g.tasks[1]), distinct_alone);
  for (const LoopLatency& l : m.loop_classes(UnitKind::kLayerNorm, TaskOp::kLayerNorm)) {
    if (l.name == "layernorm_normalize") {
      EXPECT_EQ(l.ii, 2);
      EXPECT_EQ(l.res_mii, 2);
    }
  }
  // Rebinding to a step without the shared call returns the instance to II 1.
  g.tasks.erase(g.tasks.begin());
  g.tasks[0].id = 0;
  m.bind_instances(g);
  EXPECT_EQ(normalize_ii(g.tasks[0]), 1);
  EXPECT_EQ(m.task_cycles(g.tasks[0]), distinct_alone);
}

TEST(KernelLatency, CalibrationAdjustsDepthsPerLoopClassNotTheII) {
  const DeviceSpec d = flat_device(2);
  ArchSpec a;
  a.unit(UnitKind::kSoftmax) = UnitSpec{1, 4, 9};
  auto cal = std::make_shared<KernelCalibration>();
  cal->kernels[TaskOp::kSoftmax].depth_adjust = {{"softmax_exp_sum", 3.4}, {"softmax_max", -100}};
  cal->kernels[TaskOp::kSoftmax].overhead = 11.6;
  cal->op_latency["fexp"] = 20;
  ArchSpec ac = a;
  ac.calibration = cal;
  const KernelLatencyModel un(a, d), ca(ac, d);
  const TaskShape s{1, 20, 1, 16};
  const auto lu = un.loops(UnitKind::kSoftmax, TaskOp::kSoftmax, s);
  const auto lc = ca.loops(UnitKind::kSoftmax, TaskOp::kSoftmax, s);
  ASSERT_EQ(lu.size(), 3u);
  EXPECT_EQ(lc[0].depth, 1);                                  // clamped at 1
  EXPECT_EQ(lc[1].depth, lu[1].depth + (20 - 2) + 3);         // fexp 20 instead of 2, + round(3.4)
  EXPECT_EQ(lc[2].depth, lu[2].depth);                        // no adjustment
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(lc[i].ii, lu[i].ii);
  EXPECT_TRUE(ca.calibrated(TaskOp::kSoftmax));
  EXPECT_FALSE(ca.calibrated(TaskOp::kGelu));
  std::int64_t sum = 12;  // round(11.6)
  for (const auto& l : lc) sum += l.cycles;
  EXPECT_EQ(ca.task_cycles(UnitKind::kSoftmax, TaskOp::kSoftmax, s), sum);
  EXPECT_EQ(un.base_depths(UnitKind::kSoftmax, TaskOp::kSoftmax).size(), 3u);
  EXPECT_EQ(ca.loop_classes(UnitKind::kSoftmax, TaskOp::kSoftmax)[1].depth, lc[1].depth);
}

TEST(KernelLatency, Errors) {
  const DeviceSpec d = flat_device(3);
  ArchSpec a;
  const KernelLatencyModel m(a, d);
  EXPECT_THROW(m.task_cycles(UnitKind::kContraction, TaskOp::kContraction, TaskShape{1, 1, 0, 1}),
               std::invalid_argument);
  EXPECT_THROW(m.task_cycles(UnitKind::kSoftmax, TaskOp::kSoftmax, TaskShape{1, 1, 1, 0}), std::invalid_argument);
  EXPECT_THROW(m.task_cycles(UnitKind::kContraction, TaskOp::kContraction, TaskShape{1, 1, 1, 1, -1}),
               std::invalid_argument);
  EXPECT_THROW(m.task_cycles(UnitKind::kElementwise, TaskOp::kAdd, TaskShape{1, 1, 1, 1, 5}), std::invalid_argument);
  EXPECT_THROW(m.cycles_for_trips(UnitKind::kSoftmax, TaskOp::kSoftmax, {1, 2}), std::invalid_argument);
  EXPECT_EQ(m.cycles_for_trips(UnitKind::kContraction, TaskOp::kContraction, {0, 0, 0, 0}), 0);
  a.unit(UnitKind::kGelu).lanes = 0;
  const KernelLatencyModel zero_lanes(a, d);
  EXPECT_THROW(zero_lanes.task_cycles(UnitKind::kGelu, TaskOp::kGelu, TaskShape{}), std::invalid_argument);
  // A device without an operator some kernel uses (flog: loss_exp_sum).
  DeviceSpec no_log = d;
  no_log.float_ops.erase("flog");
  try {
    KernelLatencyModel bad(ArchSpec{}, no_log);
    FAIL() << "no error for a device without flog";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("flog"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("flat.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ttsim
