// Power, epoch energy and LUT metrics of explored points: the analytic and SystemC
// evaluators derive the activity the same way (sim/schedule_activity.h), agree
// exactly when the step has no port contention, match `ttsim simulate`'s power, and
// the LUT estimate is the hw/lut_estimate rule and is checked by the headroom constraint.
#include <gtest/gtest.h>
#include <algorithm>
#include <array>
#include <set>

#include "machine/machine.h"
#include "sim/design_eval.h"

#include "dse/evaluate/feasibility.h"
#include "dse/evaluate/sim_evaluator.h"
#include "hls/include/banked.h"
#include "hls/kernels/modules.h"
#include "hw/lut_estimate.h"
#include "sim/schedule_activity.h"
#include "sim/step_power.h"
#include "sim/step_sim.h"

namespace ttsim::dse {
namespace {

struct PointSetup {
  DeviceSpec device = load_device_spec("configs/devices/u50.json");
  PointConfig point;
  explicit PointSetup(bool port_contention) {
    point.model_doc = std::make_shared<const Json>(load_json_file("configs/models/atis_2enc.json"));
    Json arch = load_json_file("configs/arch/u50_paper.json");
    arch["memory"]["port_contention"] = port_contention;
    point.arch_doc = std::make_shared<const Json>(std::move(arch));
    point.model_file = "configs/models/atis_2enc.json";
    point.arch_file = "configs/arch/u50_paper.json";
  }
  SimContext context() const {
    return make_sim_context(device, "configs/datasets/atis_lengths.json", "train");
  }
};

TEST(PointPower, AnalyticAndSystemcAgreeWithoutPortContention) {
  PointSetup s(false);
  const SimContext ctx = s.context();
  const Evaluation a = SimEvaluator(ctx, Fidelity::kAnalytic).evaluate(s.point, false);
  const Evaluation c = SimEvaluator(ctx, Fidelity::kSystemC).evaluate(s.point, false);
  ASSERT_TRUE(a.error.empty()) << a.error;
  ASSERT_TRUE(c.error.empty()) << c.error;
  // Same schedule (no contention), hence the same activity and power.
  ASSERT_EQ(a.metrics[Metric::kStepCycles], c.metrics[Metric::kStepCycles]);
  for (Metric m : {Metric::kPowerStaticWatts, Metric::kPowerDynamicWatts, Metric::kPowerTotalWatts,
                   Metric::kEpochEnergyJoules, Metric::kLut}) {
    ASSERT_TRUE(a.metrics.has(m)) << metric_info(m).name;
    EXPECT_DOUBLE_EQ(a.metrics[m], c.metrics[m]) << metric_info(m).name;
  }
  EXPECT_GT(a.metrics[Metric::kPowerDynamicWatts], 0);
  EXPECT_DOUBLE_EQ(a.metrics[Metric::kPowerTotalWatts],
                   a.metrics[Metric::kPowerStaticWatts] + a.metrics[Metric::kPowerDynamicWatts]);
  EXPECT_DOUBLE_EQ(a.metrics[Metric::kEpochEnergyJoules],
                   a.metrics[Metric::kPowerTotalWatts] * a.metrics[Metric::kEpochSeconds]);
}

TEST(PointPower, SystemcPointCarriesTheSimulatePowerAndTheAnalyticOneItsUncontendedActivity) {
  PointSetup s(true);
  const SimContext ctx = s.context();
  const Evaluation a = SimEvaluator(ctx, Fidelity::kAnalytic).evaluate(s.point, false);
  const Evaluation c = SimEvaluator(ctx, Fidelity::kSystemC).evaluate(s.point, false);
  ASSERT_TRUE(a.error.empty() && c.error.empty()) << a.error << c.error;
  // The SystemC point's power is what `ttsim simulate` prints for the same design.
  const ArchSpec arch = parse_arch_spec(s.point.arch(), s.point.arch_file);
  const ModelSpec model = parse_model_spec(s.point.model(), s.point.model_file);
  const StepResult step = simulate_step(model, arch, s.device);
  // Memory units are the emitted build's blocks: the step runs on the machine's arrays.
  const PowerBreakdown p = fpga_power(s.device, step_activity(step, arch, s.device));
  EXPECT_DOUBLE_EQ(c.metrics[Metric::kPowerTotalWatts], p.total_watts());
  EXPECT_DOUBLE_EQ(c.metrics[Metric::kPowerDynamicWatts], p.dynamic_watts());
  // Contention only stretches the SystemC step: the analytic step is no longer, and
  // both report the same static power and LUT estimate (same hardware).
  EXPECT_LE(a.metrics[Metric::kStepCycles], c.metrics[Metric::kStepCycles]);
  EXPECT_DOUBLE_EQ(a.metrics[Metric::kPowerStaticWatts], c.metrics[Metric::kPowerStaticWatts]);
  EXPECT_DOUBLE_EQ(a.metrics[Metric::kLut], c.metrics[Metric::kLut]);
}

TEST(PointPower, LutEstimateIsTheSimPowerRuleAndIsChecked) {
  PointSetup s(true);
  const SimContext ctx = s.context();
  const Evaluation a = SimEvaluator(ctx, Fidelity::kAnalytic).evaluate(s.point, false);
  const ArchSpec arch = parse_arch_spec(s.point.arch(), s.point.arch_file);
  const StepResult step = simulate_step(parse_model_spec(s.point.model(), s.point.model_file), arch, s.device);
  // The machine description: its instances' aligned lane accesses (the LayerNorm, GELU,
  // softmax, loss and update units on this design; the contraction and elementwise units
  // take general starts) and, below, its arrays.
  const machine::Machine mach =
      machine::describe(parse_model_spec(s.point.model(), s.point.model_file), arch, s.device, step.graph());
  std::array<bool, kUnitKinds> aligned{};
  for (int k = 0; k < kUnitKinds; ++k) {
    aligned[k] = std::all_of(mach.instances.begin(), mach.instances.end(), [&](const machine::KernelInstance& i) {
      return static_cast<int>(i.unit) != k || i.lane_aligned;
    });
  }
  EXPECT_TRUE(aligned[static_cast<int>(UnitKind::kLayerNorm)]);
  EXPECT_TRUE(aligned[static_cast<int>(UnitKind::kGelu)]);
  EXPECT_TRUE(aligned[static_cast<int>(UnitKind::kSoftmax)]);
  EXPECT_TRUE(aligned[static_cast<int>(UnitKind::kLoss)]);
  EXPECT_TRUE(aligned[static_cast<int>(UnitKind::kUpdate)]);
  EXPECT_FALSE(aligned[static_cast<int>(UnitKind::kElementwise)]);
  EXPECT_FALSE(aligned[static_cast<int>(UnitKind::kContraction)]);
  double operators = 0, control = 0, network = 0, local = 0;
  int arena_banks = 1;
  for (int k = 0; k < kUnitKinds; ++k) arena_banks = std::max(arena_banks, arch.units[k].lanes);
  for (int k = 0; k < kUnitKinds; ++k) {
    operators += arch.units[k].count * unit_operator_luts(static_cast<UnitKind>(k), arch.units[k].lanes);
    control += arch.units[k].count * kControlLutsPerPipelinedLoop * unit_pipelined_loops(static_cast<UnitKind>(k));
    network += arch.units[k].count * unit_bank_network_luts(static_cast<UnitKind>(k), arch.units[k].lanes, arena_banks,
                                                            MuxBound::kEstimate, aligned[k]);
    local += arch.units[k].count * unit_local_memory_luts(static_cast<UnitKind>(k), arch.units[k].lanes, arena_banks);
  }
  EXPECT_GT(local, 0);
  // The binding multiplexers, counted here from the machine description's arrays: which
  // unit kinds' tasks read or write a buffer each array holds.
  std::vector<std::set<int>> users(mach.memories.size());
  std::vector<std::set<int>> arrays(kUnitKinds);
  for (const Task& t : step.graph().tasks) {
    for (const auto* list : {&t.reads, &t.writes}) {
      for (int b : *list) {
        const int m = mach.memory_of_buffer[b];
        if (m < 0 || step.footprint[b] == 0) continue;
        users[m].insert(static_cast<int>(t.unit));
        arrays[static_cast<int>(t.unit)].insert(m);
      }
    }
  }
  double select = 0, ports = 0;
  for (int k = 0; k < kUnitKinds; ++k) {
    const auto unit = static_cast<UnitKind>(k);
    select += arch.units[k].count * 32.0 * ttsim_hls::mux_luts(static_cast<int>(arrays[k].size())) *
              (arena_banks * unit_read_sites(unit, true) + unit_read_sites(unit, false));
  }
  for (std::size_t m = 0; m < mach.memories.size(); ++m) {
    const machine::Memory& mem = mach.memories[m];
    const std::int64_t per_block = mem.storage == machine::Storage::kUram ? 4096 : 1024;
    const std::int64_t blocks = mem.bram36 + mem.uram288;
    const std::int64_t depth = std::max<std::int64_t>(1, (blocks + mem.partition - 1) / mem.partition * per_block);
    const int bits = 32 + ttsim_hls::ceil_log2(static_cast<int>(depth)) + 1;
    ports += mem.partition * 2.0 * bits * ttsim_hls::mux_luts((static_cast<int>(users[m].size()) + 1) / 2);
  }
  // The top's argument multiplexers: per module with calls, its argument bits (modules.h) ×
  // a call-sites:1 tree of 4:1 multiplexers per bit.
  double arguments = 0;
  for (const machine::KernelInstance& k : mach.instances) {
    if (k.calls == 0) continue;
    for (const TtsimModuleName& m : kTtsimModules) {
      if (k.module == m.module) arguments += m.argument_bits * static_cast<double>(ttsim_hls::mux_luts(k.call_sites));
    }
  }
  EXPECT_GT(select, 0);
  EXPECT_GT(ports, 0);
  EXPECT_GT(arguments, 0);
  EXPECT_DOUBLE_EQ(a.metrics[Metric::kLut], operators + control + network + select + ports + local + arguments);
  // The power model's logic units are the same estimate.
  EXPECT_DOUBLE_EQ(step_activity(step, arch, s.device).kilo_lut.units * 1000,
                   a.metrics[Metric::kLut]);

  SimEvaluator ev(ctx, Fidelity::kAnalytic);
  ASSERT_TRUE(ev.provides(Metric::kLut));
  ConstraintSpec c;
  c.resource_headroom_pct = 10;
  DeviceSpec small = s.device;
  small.lut = static_cast<std::int64_t>(a.metrics[Metric::kLut]);  // 90 % of it is below the estimate
  const Verdict v = judge(a, c, small, {Metric::kEpochSeconds}, false);
  EXPECT_FALSE(v.feasible);
  EXPECT_NE(v.reason.find("LUT"), std::string::npos) << v.reason;
  DeviceSpec large = s.device;
  large.lut = static_cast<std::int64_t>(a.metrics[Metric::kLut] * 1.2);  // 90 % of it is above the estimate
  EXPECT_TRUE(judge(a, c, large, {Metric::kEpochSeconds}, false).feasible);
  // A device without DSPs (resources "dsp": 0) fits no design that uses one.
  ASSERT_GT(a.metrics[Metric::kDsp], 0);
  DeviceSpec no_dsp = large;
  no_dsp.dsp = 0;
  const Verdict none = judge(a, c, no_dsp, {Metric::kEpochSeconds}, false);
  EXPECT_FALSE(none.feasible);
  EXPECT_NE(none.reason.find("DSP"), std::string::npos) << none.reason;
}

TEST(PointPower, WithoutPowerCoefficientsEnergyIsUnavailableNotZero) {
  PointSetup s(true);
  s.device.power = PowerCoefficients{};
  const SimContext ctx = s.context();
  SimEvaluator ev(ctx, Fidelity::kAnalytic);
  EXPECT_FALSE(ev.provides(Metric::kEpochEnergyJoules));
  EXPECT_FALSE(ev.provides(Metric::kPowerTotalWatts));
  const Evaluation a = ev.evaluate(s.point, false);
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_FALSE(a.metrics.has(Metric::kEpochEnergyJoules));
  EXPECT_FALSE(a.metrics.has(Metric::kPowerTotalWatts));
  EXPECT_TRUE(a.metrics.has(Metric::kLut));
}

}  // namespace
}  // namespace ttsim::dse
