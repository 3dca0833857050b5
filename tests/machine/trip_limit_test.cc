// The kernels count their loop trips in 32-bit arithmetic (hls/include/kernel_spec.h
// loop_trip<int>, the setup the DSP count prices as 32-bit multipliers): describe refuses a
// task whose loop would run more than machine::kMaxKernelTrip iterations, naming the task and
// the loop, accepts one just below, and refuses an extent an int does not hold.

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
  // sgd_update runs rows · ceil(cols / lanes) iterations: 2^16 · 2^15 = 2^31, one above the
  // limit, with extents an int holds.
  Task& t = g.tasks[sgd];
  t.shape.batch = 1;
  t.shape.inner = 1;
  t.shape.rows = 65536;
  t.shape.cols = 32768 * lanes;
  // describe's refusal, or "" when it accepts the graph.
  auto refusal = [&]() -> std::string {
    KernelLatencyModel lat(arch, device);
    lat.bind_instances(g);
    try {
      machine::describe(model, arch, device, g, lat);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  std::string what = refusal();
  ASSERT_FALSE(what.empty()) << "a loop of 2^31 iterations was accepted";
  EXPECT_NE(what.find("task " + t.name), std::string::npos) << what;
  EXPECT_NE(what.find("loop sgd_update runs 2147483648 iterations"), std::string::npos) << what;
  EXPECT_NE(what.find("32-bit"), std::string::npos) << what;
  // One row fewer: 2,147,450,880 iterations, within the limit.
  t.shape.rows = 65535;
  EXPECT_EQ(refusal(), "");
  // An extent an int does not hold is refused even where the trip would (one row of
  // 2^31 · lanes words is 2^31 iterations; 2^31 rows of one tile also).
  t.shape.rows = 1;
  t.shape.cols = (machine::kMaxKernelTrip + 1) * lanes;
  what = refusal();
  ASSERT_FALSE(what.empty()) << "an extent of 2^31 words was accepted";
  EXPECT_NE(what.find("task " + t.name), std::string::npos) << what;
  EXPECT_NE(what.find("cols " + std::to_string((machine::kMaxKernelTrip + 1) * lanes)), std::string::npos) << what;
  EXPECT_NE(what.find("32-bit extents"), std::string::npos) << what;
}

}  // namespace
}  // namespace ttsim
