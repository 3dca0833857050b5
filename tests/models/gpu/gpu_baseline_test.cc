#include "models/gpu/gpu_baseline.h"

#include <gtest/gtest.h>

namespace ttsim {
namespace {

GpuSpec toy_gpu() {
  GpuSpec g;
  g.name = "toy";
  g.fp32_peak_flops = 1e12;
  g.bandwidth_bytes_per_s = 1e11;
  g.compute_efficiency = 0.5;
  g.bandwidth_efficiency = 1.0;
  g.board_power_watts = 300;
  g.idle_power_watts = 20;
  g.launch_overhead_s = 10e-6;
  g.framework_overhead_bytes = 1000;
  return g;
}

Buffer buf(int id, BufferClass c, std::int64_t words, int first, int last) {
  Buffer b;
  b.id = id;
  b.name = "b" + std::to_string(id);
  b.cls = c;
  b.words = words;
  b.first_task = first;
  b.last_task = last;
  return b;
}

// Two tasks: a big contraction (compute-bound) and a tiny add (launch-bound).
TaskGraph toy_graph() {
  TaskGraph g;
  g.buffers = {buf(0, BufferClass::kParameter, 100, 0, 1), buf(1, BufferClass::kGradient, 100, 1, 1),
               buf(2, BufferClass::kActivation, 50, 0, 1), buf(3, BufferClass::kTemporary, 30, 0, 0),
               buf(4, BufferClass::kTemporary, 20, 1, 1)};
  Task a;
  a.id = 0;
  a.op = TaskOp::kContraction;
  a.macs = 50'000'000;  // 1e8 FLOPs → 200 us at 0.5 TFLOP/s
  a.reads = {0};
  a.writes = {2, 3};
  Task b;
  b.id = 1;
  b.op = TaskOp::kAdd;
  b.unit = UnitKind::kElementwise;
  b.elements = 10;
  b.reads = {2};
  b.writes = {1, 4};
  b.deps = {0};
  g.tasks = {a, b};
  return g;
}

TEST(GpuBaseline, MemoryTermsComeFromBufferClasses) {
  GpuMemory m = gpu_memory(toy_graph(), toy_gpu());
  EXPECT_DOUBLE_EQ(m.weights, 400);
  EXPECT_DOUBLE_EQ(m.gradients, 400);
  EXPECT_DOUBLE_EQ(m.activations, 200);
  EXPECT_DOUBLE_EQ(m.temporaries, 120);  // the two temporaries are never live together
  EXPECT_DOUBLE_EQ(m.optimizer_state, 0);
  EXPECT_DOUBLE_EQ(m.framework, 1000);
  EXPECT_DOUBLE_EQ(m.total(), 400 + 400 + 200 + 120 + 1000);
}

TEST(GpuBaseline, StepIsRooflinePerKernelWithLaunchFloor) {
  GpuStep s = gpu_step(toy_graph(), toy_gpu());
  EXPECT_EQ(s.kernels, 2);
  const double big = 1e8 / 0.5e12;                          // compute-bound
  const double small_kernel = (4.0 * (50 + 100 + 20)) / 1e11;  // memory-bound, < launch
  EXPECT_NEAR(s.kernel_seconds, big + small_kernel, 1e-15);
  EXPECT_NEAR(s.seconds, big + 10e-6, 1e-15);
  const double busy = (big + small_kernel) / (big + 10e-6);
  EXPECT_NEAR(s.power_watts, 20 + 280 * busy, 1e-9);
  EXPECT_NEAR(s.energy_joules, s.power_watts * s.seconds, 1e-12);
}

TEST(GpuBaseline, LaunchBoundGraphDrawsNearIdlePower) {
  TaskGraph g = toy_graph();
  g.tasks[0].macs = 1;
  GpuStep s = gpu_step(g, toy_gpu());
  EXPECT_NEAR(s.seconds, 20e-6, 1e-12);
  EXPECT_LT(s.power_watts, 25);
}

TEST(GpuSpec, ShippedRtx3090Loads) {
  GpuSpec g = load_gpu_spec("configs/devices/rtx3090.json");
  EXPECT_EQ(g.name, "rtx3090");
  EXPECT_NEAR(g.fp32_peak_flops, 35.58e12, 1e9);
  EXPECT_THROW(parse_gpu_spec(Json::parse(R"({"kind": "fpga"})"), "x.json"), ConfigError);
}

}  // namespace
}  // namespace ttsim
