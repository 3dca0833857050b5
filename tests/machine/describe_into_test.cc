// machine::describe_into reuses a machine's storage: describing one Machine in turn for
// models of other structures (encoders, flows, lanes) and ranks gives, every time, the
// machine describe builds afresh.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "machine/hls_dims.h"
#include "machine/machine.h"
#include "models/training_graph.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "hw/kernel_latency.h"
#include "tests/machine/machine_text.h"

namespace ttsim {
namespace {

TEST(DescribeInto, AReusedMachineEqualsAFreshDescription) {
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec paper = load_arch_spec("configs/arch/u50_paper.json");
  ArchSpec tt16 = paper;
  for (auto& [kind, flow] : tt16.flow_by_kind) flow = Flow::kTT;
  tt16.unit(UnitKind::kContraction).lanes = 16;
  const ModelSpec two = load_model_spec("configs/models/atis_2enc.json");
  const ModelSpec six = load_model_spec("configs/models/atis_6enc.json");
  ModelSpec two_ranked = two;
  for (auto& l : two_ranked.linears) {
    if (l.format == WeightFormat::kTT && l.encoder == 1) {
      for (std::size_t k = 1; k + 1 < l.tt.ranks.size(); ++k) l.tt.ranks[k] = 4 + 4 * static_cast<int>(k);
    }
  }
  struct Case {
    const ModelSpec* model;
    const ArchSpec* arch;
  };
  const std::vector<Case> cases = {{&six, &paper}, {&two, &paper}, {&two_ranked, &tt16},
                                   {&six, &tt16},  {&two_ranked, &paper}, {&two, &paper}};
  machine::Machine reused;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const ModelSpec& m = *cases[i].model;
    const ArchSpec& a = *cases[i].arch;
    GraphOptions o;
    o.flow_by_kind = a.flow_by_kind;
    const TaskGraph g = build_training_graph(m, o);
    KernelLatencyModel lat(a, device);
    lat.bind_instances(g);
    const machine::Machine fresh = machine::describe(m, a, device, g, lat);
    machine::describe_into(reused, a, device, g, lat, machine::hls_design(m, a, a.name));
    EXPECT_EQ(testing::machine_text(reused), testing::machine_text(fresh)) << "case " << i;
  }
}

}  // namespace
}  // namespace ttsim

namespace ttsim {
namespace {

// A graph whose accumulating column products run in place (column_acc) cannot run on a build
// that omits that loop (/contraction/accumulate "by_add", ttsim_spec::omitted_loops): the
// machine refuses it as an internal error rather than pricing a loop the build does not have.
TEST(DescribeInto, AGraphRunningAnOmittedLoopIsRefused) {
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec by_add = load_arch_spec("configs/arch/u50_unit_lanes.json");
  ASSERT_TRUE(by_add.accumulate_by_add);
  const ModelSpec two = load_model_spec("configs/models/atis_2enc.json");
  GraphOptions in_place;  // no AccumulateByAdd: the accumulating products run column_acc
  in_place.flow_by_kind = by_add.flow_by_kind;
  const TaskGraph g = build_training_graph(two, in_place);
  KernelLatencyModel lat(by_add, device);
  lat.bind_instances(g);
  try {
    machine::describe(two, by_add, device, g, lat);
    ADD_FAILURE() << "a column_acc task was described on a build that omits the loop";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("contract_column_acc, which this design's build omits"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ttsim
