// The latency model's allocation-free pricing (closed loop forms, sim/kernel_loop_form.h)
// against the formula evaluated directly on kernel_loops(), the single source of truth:
// every TaskOp on every unit kind, over random shapes, lane counts, IIs, overheads,
// operator latencies, clocks and calibrations.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "hls/loop_nest.h"
#include "sim/arch_spec.h"
#include "sim/device_spec.h"
#include "sim/kernel_latency.h"
#include "sim/kernel_loop_form.h"
#include "sim/kernel_params.h"

namespace ttsim {
namespace {

const char* const kOperators[] = {"fadd", "fmul", "fcmp", "fexp", "fdiv", "fsqrt"};

/// A device whose operators have random latencies in two clock bands.
DeviceSpec random_device() {
  DeviceSpec d;
  d.source_file = "random_device.json";
  d.bram_read_latency = *rc::gen::inRange(1, 4);
  d.uram_read_latency = *rc::gen::inRange(1, 4);
  for (const char* name : kOperators) {
    FloatOpSpec f;
    f.latency_by_clock = {{150.0, *rc::gen::inRange(1, 20)}, {500.0, *rc::gen::inRange(1, 40)}};
    d.float_ops[name] = f;
  }
  return d;
}

/// An arch with random lanes, II and overhead per unit, random clock and, half the
/// time, a calibration covering a random subset of the ops (and some operators).
ArchSpec random_arch() {
  ArchSpec a;
  a.clock_mhz = *rc::gen::element(100.0, 150.0, 200.0, 300.0);
  for (UnitSpec& u : a.units) {
    u.lanes = *rc::gen::element(1, 2, 3, 4, 7, 8, 16, 32, 64, 128, 256);
    u.ii = *rc::gen::inRange(1, 5);
    u.overhead = *rc::gen::inRange(0, 200);
  }
  if (*rc::gen::arbitrary<bool>()) {
    auto cal = std::make_shared<KernelCalibration>();
    cal->name = "random_calibration.json";
    for (int k = 0; k < kTaskOpCount; ++k) {
      if (!*rc::gen::arbitrary<bool>()) continue;
      KernelParams p;
      p.ii = *rc::gen::inRange(100, 600) / 100.0;
      p.depth_adjust = *rc::gen::inRange(-2000, 2000) / 100.0;
      p.overhead = *rc::gen::inRange(-5000, 30000) / 100.0;
      cal->kernels[static_cast<TaskOp>(k)] = p;
    }
    for (const char* name : kOperators) {
      if (*rc::gen::arbitrary<bool>()) cal->op_latency[name] = *rc::gen::inRange(1, 30);
    }
    a.calibration = cal;
  }
  return a;
}

TaskShape random_shape() {
  auto extent = [] {
    return *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(1, 9), rc::gen::inRange<std::int64_t>(1, 5000));
  };
  return TaskShape{extent(), extent(), extent(), extent()};
}

/// The header's formula (sim/kernel_latency.h, sim/kernel_params.h) evaluated on
/// kernel_loops() directly.
std::int64_t formula_cycles(const ArchSpec& a, const DeviceSpec& d, UnitKind unit, TaskOp op,
                            const TaskShape& s) {
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
    return d.op(f).latency_at(a.clock_mhz);
  };
  const int read = std::max(d.bram_read_latency, d.uram_read_latency);
  std::int64_t c = cal ? std::max<std::int64_t>(0, std::llround(cal->overhead)) : u.overhead;
  for (const LoopSpec& l : kernel_loops(op, s, u.lanes)) {
    int depth = read + 1;
    for (const std::string& f : l.chain) depth += latency(f);
    std::int64_t need = 1;
    if (l.recurrence_distance > 0 && !l.chain.empty()) need = ceil_div(latency(l.chain.back()), l.recurrence_distance);
    if (cal) {
      const double ii = std::max(cal->ii, static_cast<double>(need));
      const double adjusted_depth = depth + cal->depth_adjust;
      c += std::max<std::int64_t>(1, std::llround(static_cast<double>(l.trip - 1) * ii + adjusted_depth));
    } else {
      c += (l.trip - 1) * std::max<std::int64_t>(u.ii, need) + depth;
    }
  }
  return c;
}

TEST(KernelLoopForm, EveryOpHasAClosedFormThatReproducesKernelLoops) {
  for (int k = 0; k < kTaskOpCount; ++k) {
    const TaskOp op = static_cast<TaskOp>(k);
    const KernelForm& form = kernel_form(op);
    EXPECT_TRUE(form.closed) << to_string(op);
    const auto unit = kernel_loops(op, TaskShape{}, 1);
    ASSERT_EQ(form.loops.size(), unit.size()) << to_string(op);
    for (std::size_t i = 0; i < unit.size(); ++i) {
      EXPECT_EQ(form.loops[i].name, unit[i].name);
      EXPECT_EQ(form.loops[i].chain, unit[i].chain);
    }
  }
  EXPECT_THROW(kernel_form(static_cast<TaskOp>(kTaskOpCount)), std::out_of_range);
}

RC_GTEST_PROP(KernelLoopForm, TripsAndRecurrenceDistancesEqualKernelLoops, ()) {
  const TaskOp op = static_cast<TaskOp>(*rc::gen::inRange(0, kTaskOpCount));
  const TaskShape s = random_shape();
  const int lanes = *rc::gen::inRange(1, 300);
  const auto ref = kernel_loops(op, s, lanes);
  const KernelForm& form = kernel_form(op);
  RC_ASSERT(form.loops.size() == ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    RC_ASSERT(form.loops[i].trip.eval(s, ceil_div(s.cols, lanes)) == ref[i].trip);
    RC_ASSERT(form.loops[i].recurrence.eval(s, ceil_div(s.cols, lanes)) == ref[i].recurrence_distance);
  }
}

RC_GTEST_PROP(KernelLatencyFast, TaskCyclesEqualsKernelLoopsFormulaForEveryOpAndUnit, ()) {
  const DeviceSpec d = random_device();
  const ArchSpec a = random_arch();
  const KernelLatencyModel m(a, d);
  for (int shape_case = 0; shape_case < 8; ++shape_case) {
    const TaskShape s = random_shape();
    for (int k = 0; k < kTaskOpCount; ++k) {
      const TaskOp op = static_cast<TaskOp>(k);
      for (int u = 0; u < kUnitKinds; ++u) {
        const UnitKind unit = static_cast<UnitKind>(u);
        const std::int64_t fast = m.task_cycles(unit, op, s);
        RC_ASSERT(fast == formula_cycles(a, d, unit, op, s));
        // And equals the per-loop breakdown plus the per-invocation overhead.
        std::int64_t from_loops = 0;
        for (const LoopLatency& l : m.loops(unit, op, s)) from_loops += l.cycles;
        std::int64_t overhead = a.unit(unit).overhead;
        if (a.calibration && a.calibration->kernels.count(op)) {
          overhead = std::max<std::int64_t>(0, std::llround(a.calibration->kernels.at(op).overhead));
        }
        RC_ASSERT(fast == from_loops + overhead);
      }
    }
  }
}

TEST(KernelLatencyFast, RejectsWhatKernelLoopsRejects) {
  DeviceSpec d;
  for (const char* name : kOperators) d.float_ops[name].latency_by_clock = {{500.0, 3}};
  ArchSpec a;
  const KernelLatencyModel m(a, d);
  EXPECT_THROW(m.task_cycles(UnitKind::kContraction, TaskOp::kContraction, TaskShape{1, 1, 0, 1}),
               std::invalid_argument);
  EXPECT_THROW(m.task_cycles(UnitKind::kSoftmax, TaskOp::kSoftmax, TaskShape{1, 1, 1, 0}), std::invalid_argument);
  a.unit(UnitKind::kGelu).lanes = 0;
  const KernelLatencyModel zero_lanes(a, d);
  EXPECT_THROW(zero_lanes.task_cycles(UnitKind::kGelu, TaskOp::kGelu, TaskShape{}), std::invalid_argument);
}

TEST(KernelLatencyFast, ContractionAtAKnownPoint) {
  // fmul 3, fadd 7, read 2: depth = 2 + 3 + 7 + 1 = 13. Shape 2×3×5×10 on 4 lanes:
  // tiles 3, trip 2·3·5·3 = 90, recurrence distance 3·3 = 9 ≥ 7 → II = unit II 1;
  // cycles = 89 · 1 + 13 + overhead 5 = 107.
  DeviceSpec d;
  d.bram_read_latency = 2;
  d.uram_read_latency = 1;
  for (const char* name : kOperators) d.float_ops[name].latency_by_clock = {{500.0, 1}};
  d.float_ops["fmul"].latency_by_clock = {{500.0, 3}};
  d.float_ops["fadd"].latency_by_clock = {{500.0, 7}};
  ArchSpec a;
  a.unit(UnitKind::kContraction) = UnitSpec{1, 4, 1, 5};
  const KernelLatencyModel m(a, d);
  EXPECT_EQ(m.task_cycles(UnitKind::kContraction, TaskOp::kContraction, TaskShape{2, 3, 5, 10}), 107);
  // rows 1, cols 4 on 4 lanes: distance 1 < 7 → II = 7; trip 2·1·5·1 = 10 → 9·7 + 13 + 5.
  EXPECT_EQ(m.task_cycles(UnitKind::kContraction, TaskOp::kContraction, TaskShape{2, 1, 5, 4}), 81);
}

}  // namespace
}  // namespace ttsim
