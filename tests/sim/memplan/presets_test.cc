// The memory plan of the shipped presets on the U50 with the reference arch
// (configs/arch/u50_paper.json): grouped beats naive on every preset and fits; models
// that cannot fit (12 encoders at rank 64, the all-dense model) are reported with their
// shortfall instead of failing.

#include <string>

#include <gtest/gtest.h>

#include "models/model_spec.h"
#include "models/training_graph.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "sim/memplan/memory_plan.h"

namespace ttsim::memplan {
namespace {

constexpr UnitKind kUnits[] = {UnitKind::kContraction, UnitKind::kSoftmax, UnitKind::kLayerNorm,
                               UnitKind::kGelu,        UnitKind::kElementwise, UnitKind::kLoss,
                               UnitKind::kUpdate};

struct Planned {
  MemoryPlan naive, grouped, ideal;
};

Planned plan_model(const std::string& model_file) {
  const ModelSpec model = load_model_spec("configs/models/" + model_file);
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  GraphOptions g;
  g.flow_by_kind = arch.flow_by_kind;
  const TaskGraph graph = build_training_graph(model, g);
  MemoryOptions o;
  for (UnitKind u : kUnits) o.lanes[u] = arch.unit(u).lanes;
  Planned p;
  o.strategy = Strategy::kNaive;
  p.naive = plan_memory(graph, device, o);
  o.strategy = Strategy::kGrouped;
  p.grouped = plan_memory(graph, device, o);
  o.strategy = Strategy::kIdeal;
  p.ideal = plan_memory(graph, device, o);
  return p;
}

class PresetTest : public ::testing::TestWithParam<const char*> {};

TEST_P(PresetTest, GroupedBeatsNaiveAndFitsTheU50) {
  const Planned p = plan_model(GetParam());
  EXPECT_LT(p.grouped.bram36_blocks, p.naive.bram36_blocks);
  EXPECT_LT(p.grouped.allocated_bits, p.naive.allocated_bits);
  EXPECT_GT(p.grouped.efficiency, p.naive.efficiency);
  EXPECT_TRUE(p.grouped.fit.fits) << p.grouped.fit.explanation;
  EXPECT_LE(p.ideal.allocated_bits, p.grouped.allocated_bits);
  EXPECT_LE(p.grouped.efficiency, 1.0);
  // The gradients live from their first write to their fused update: at most one update
  // group at a time, whose largest is the slot head's weight and bias ((D + 1) x slot tags
  // words); peak occupancy is below the no-reuse sum.
  const ModelSpec model = load_model_spec(std::string("configs/models/") + GetParam());
  EXPECT_EQ(p.grouped.occupancy.peak_by_class.gradient, (model.d_model + 1) * model.slot_tags * 4);
  EXPECT_LT(p.grouped.occupancy.peak_by_class.gradient, p.grouped.occupancy.peak_by_class.parameter);
  EXPECT_LT(p.grouped.occupancy.peak_total, p.grouped.occupancy.no_reuse.total());
}

INSTANTIATE_TEST_SUITE_P(Atis, PresetTest,
                         ::testing::Values("atis_2enc.json", "atis_4enc.json", "atis_6enc.json"));

TEST(PresetSizes, ParametersMatchTheModelSpec) {
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const Planned p = plan_model("atis_2enc.json");
  EXPECT_EQ(p.grouped.occupancy.peak_by_class.parameter, model.compressed_params() * 4);
}

class TooBigTest : public ::testing::TestWithParam<const char*> {};

TEST_P(TooBigTest, ReportedAsNotFittingWithTheShortfall) {
  const Planned p = plan_model(GetParam());
  for (const MemoryPlan* plan : {&p.naive, &p.grouped, &p.ideal}) {
    EXPECT_FALSE(plan->fit.fits);
    EXPECT_GT(plan->fit.bytes_short, 0);
    EXPECT_GT(plan->fit.bram36_short + plan->fit.uram_short, 0);
    EXPECT_NE(plan->fit.explanation.find("does not fit"), std::string::npos);
  }
  // The data alone exceeds the device: no strategy can fit it.
  EXPECT_GT(p.grouped.fit.ideal_bytes_short, 0);
}

INSTANTIATE_TEST_SUITE_P(Atis, TooBigTest,
                         ::testing::Values("atis_12enc_r64.json", "atis_2enc_dense.json"));

}  // namespace
}  // namespace ttsim::memplan
