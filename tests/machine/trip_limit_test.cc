// The kernels count their loop trips in 32-bit arithmetic (hls/include/kernel_spec.h
// loop_trip<int>, the setup the DSP count prices as 32-bit multipliers): describe refuses a
// task whose loop would run more than machine::kMaxKernelTrip iterations, naming the task and
// the loop, and accepts one at the limit's side.

#include <string>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "hw/kernel_latency.h"
#include "machine/machine.h"
#include "models/training_graph.h"

namespace ttsim {
namespace {

TEST(TripLimit, ATaskAboveTheKernelsThirtyTwoBitTripIsRefused) {
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  GraphOptions o;
  o.flow_by_kind = arch.flow_by_kind;
  TaskGraph g = build_training_graph(model, o);
  int sgd = -1;
  for (const Task& t : g.tasks) {
    if (t.op == TaskOp::kSgdUpdate) sgd = t.id;
  }
  ASSERT_GE(sgd, 0);
  const std::int64_t lanes = arch.unit(UnitKind::kUpdate).lanes;
  // sgd_update runs ceil(cols / lanes) iterations over one row: just above INT32_MAX.
  Task& t = g.tasks[sgd];
  t.shape.batch = 1;
  t.shape.rows = 1;
  t.shape.inner = 1;
  t.shape.cols = (machine::kMaxKernelTrip + 1) * lanes;
  KernelLatencyModel lat(arch, device);
  lat.bind_instances(g);
  try {
    machine::describe(model, arch, device, g, lat);
    FAIL() << "a loop of 2^31 iterations was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("task " + t.name), std::string::npos) << what;
    EXPECT_NE(what.find("sgd_update"), std::string::npos) << what;
    EXPECT_NE(what.find("2147483648 iterations"), std::string::npos) << what;
    EXPECT_NE(what.find("32-bit"), std::string::npos) << what;
  }
  // At the limit it is accepted.
  t.shape.cols = machine::kMaxKernelTrip * lanes;
  KernelLatencyModel at_limit(arch, device);
  at_limit.bind_instances(g);
  EXPECT_NO_THROW(machine::describe(model, arch, device, g, at_limit));
}

}  // namespace
}  // namespace ttsim
