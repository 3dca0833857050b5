// Memory planner strategies on hand-built task graphs: block counts, reuse of dead
// temporaries, port limits, BRAM/URAM placement, occupancy and the fit report.

#include "sim/memplan/memory_plan.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "sim/memplan/plan_report.h"
#include "tests/sim/memplan/graph_builder.h"

namespace ttsim::memplan {
namespace {

using testing::GraphBuilder;
using testing::small_device;

/// Six 1,152-word TT cores of one layer, their gradients, a merge chain reading the
/// cores, gradient tasks writing the gradient cores and one SGD update per core.
TaskGraph tt_layer() {
  GraphBuilder g;
  std::vector<int> cores, grads;
  for (int k = 0; k < 6; ++k) {
    cores.push_back(g.buffer("core" + std::to_string(k), BufferClass::kParameter, 1152));
    grads.push_back(g.buffer("grad" + std::to_string(k), BufferClass::kGradient, 1152));
  }
  int prev = -1, acc = -1;
  for (int k = 0; k < 6; ++k) {
    int out = g.buffer("merge" + std::to_string(k), BufferClass::kTemporary, 2000);
    std::vector<int> reads = {cores[k]};
    if (acc >= 0) reads.push_back(acc);
    prev = g.task("merge" + std::to_string(k), UnitKind::kContraction, reads, {out},
                  prev < 0 ? std::vector<int>{} : std::vector<int>{prev});
    acc = out;
  }
  for (int k = 0; k < 6; ++k) {
    prev = g.task("grad" + std::to_string(k), UnitKind::kContraction, {acc}, {grads[k]}, {prev});
  }
  for (int k = 0; k < 6; ++k) {
    prev = g.task("update" + std::to_string(k), UnitKind::kUpdate, {cores[k], grads[k]},
                  {cores[k]}, {prev});
  }
  return g.build();
}

MemoryOptions lanes16(Strategy s) {
  MemoryOptions o;
  o.strategy = s;
  o.lanes[UnitKind::kContraction] = 16;
  o.lanes[UnitKind::kUpdate] = 16;
  return o;
}

TEST(PortAccesses, CountsEachDirection) {
  Task t;
  t.reads = {1, 2};
  t.writes = {2};
  EXPECT_EQ(port_accesses(t, 1, 16, 1, 8), 2);   // 16 words read, 8 per access
  EXPECT_EQ(port_accesses(t, 2, 16, 1, 16), 2);  // read + write, 16 per access
  EXPECT_EQ(port_accesses(t, 2, 16, 4, 1), 8);   // 4 partitions of 1 word: 4 + 4
  EXPECT_EQ(port_accesses(t, 3, 16, 1, 1), 0);   // untouched
}

TEST(Naive, OneMemoryPerBufferPartitionedForTheLanes) {
  const TaskGraph g = tt_layer();
  const MemoryPlan p = plan_memory(g, small_device(1344, 640), lanes16(Strategy::kNaive));
  ASSERT_EQ(p.memories.size(), g.buffers.size());
  const MemoryInstance& core = p.memories[p.placement_of(0).memory];
  // SGD update reads and writes 16 words per cycle → 16 partitions of 72 words,
  // each its own RAMB18 (72 × 32 = 2,304 bits > the 1,024-bit LUTRAM limit).
  EXPECT_EQ(core.partitions, 16);
  EXPECT_EQ(core.depth, 72);
  EXPECT_EQ(core.kind, MemoryKind::kBram);
  EXPECT_EQ(core.bram18, 16);
  EXPECT_STREQ(core.impl(), "bram");
  // A gradient is only read or written per task: 8 partitions (2 ports each) of 144.
  const MemoryInstance& grad = p.memories[p.placement_of(1).memory];
  EXPECT_EQ(grad.partitions, 8);
  EXPECT_EQ(grad.depth, 144);
  EXPECT_EQ(grad.bram18, 8);
  // merge temporaries: 8 partitions of 250 words → 8 RAMB18 each.
  EXPECT_EQ(p.memories[p.placement_of(12).memory].bram18, 8);
  EXPECT_EQ(p.bram18_blocks, 6 * 16 + 6 * 8 + 6 * 8);
  EXPECT_EQ(p.bram36_blocks, 96);
  EXPECT_EQ(p.uram_blocks, 0);
  EXPECT_NEAR(p.efficiency, (12 * 1152 + 6 * 2000) * 32.0 / (192 * 18432.0), 1e-12);
}

TEST(Grouped, PacksCoresAndReusesDeadTemporaries) {
  const TaskGraph g = tt_layer();
  const MemoryPlan naive = plan_memory(g, small_device(1344, 640), lanes16(Strategy::kNaive));
  const MemoryPlan grouped = plan_memory(g, small_device(1344, 640), lanes16(Strategy::kGrouped));
  // All six cores share one memory of 16 words per address (512 bits): 6 × 72 = 432
  // addresses → one row of ceil(512 / 36) = 15 RAMB18 in 512x36 mode.
  const int mem = grouped.placement_of(0).memory;
  for (int k = 0; k < 6; ++k) EXPECT_EQ(grouped.placement_of(2 * k).memory, mem);
  const MemoryInstance& m = grouped.memories[mem];
  EXPECT_EQ(m.words_per_address, 16);
  EXPECT_EQ(m.partitions, 1);
  EXPECT_EQ(m.bram18, 15);
  EXPECT_EQ(m.layout.mode.width_bits, 36);
  // merge_k is dead once merge_{k+1} is written and read by merge_{k+2}: merge0 and
  // merge2 can share addresses, merge0 and merge1 cannot.
  const Placement& t0 = grouped.placement_of(12);
  const Placement& t1 = grouped.placement_of(g.tasks[1].writes[0]);
  const Placement& t2 = grouped.placement_of(g.tasks[2].writes[0]);
  ASSERT_EQ(t0.memory, t2.memory);
  EXPECT_EQ(t0.offset, t2.offset);
  if (t0.memory == t1.memory) {
    EXPECT_NE(t0.offset, t1.offset);
  }
  EXPECT_LT(grouped.bram18_blocks, naive.bram18_blocks);
  EXPECT_GT(grouped.efficiency, naive.efficiency);
  EXPECT_LE(grouped.efficiency, 1.0);
  // The ideal bound is below both.
  const MemoryPlan ideal = plan_memory(g, small_device(1344, 640), lanes16(Strategy::kIdeal));
  EXPECT_FALSE(ideal.realizable);
  EXPECT_LE(ideal.allocated_bits, grouped.allocated_bits);
  EXPECT_THROW(ideal.placement_of(0), std::out_of_range);
}

TEST(Grouped, BuffersOfOneTaskNeedingAllPortsGetSeparateMemories) {
  GraphBuilder b;
  const int x = b.buffer("x", BufferClass::kActivation, 4096);
  const int y = b.buffer("y", BufferClass::kActivation, 4096);
  const int z = b.buffer("z", BufferClass::kTemporary, 4096);
  b.task("add", UnitKind::kElementwise, {x, y}, {z}, {});
  MemoryOptions o;
  o.strategy = Strategy::kGrouped;
  o.lanes[UnitKind::kElementwise] = 8;
  const MemoryPlan p = plan_memory(b.build(), small_device(1344, 640), o);
  // Each buffer moves 8 words per cycle through a 4-word-wide memory: both ports.
  EXPECT_EQ(p.memories[p.placement_of(x).memory].words_per_address, 4);
  EXPECT_NE(p.placement_of(x).memory, p.placement_of(y).memory);
  EXPECT_NE(p.placement_of(x).memory, p.placement_of(z).memory);
  EXPECT_NE(p.placement_of(y).memory, p.placement_of(z).memory);
}

TEST(Grouped, ConcurrentBranchesDoNotShareAddresses) {
  GraphBuilder b;
  const int a = b.buffer("a", BufferClass::kTemporary, 1000);
  const int c = b.buffer("c", BufferClass::kTemporary, 1000);
  const int t0 = b.task("produce_a", UnitKind::kElementwise, {}, {a}, {});
  b.task("consume_a", UnitKind::kElementwise, {a}, {}, {t0});
  // produce_c depends on produce_a only, so it may run while consume_a still reads a.
  b.task("produce_c", UnitKind::kElementwise, {}, {c}, {t0});
  MemoryOptions o;
  o.strategy = Strategy::kGrouped;
  const MemoryPlan p = plan_memory(b.build(), small_device(1344, 640), o);
  const Placement& pa = p.placement_of(a);
  const Placement& pc = p.placement_of(c);
  ASSERT_EQ(pa.memory, pc.memory);
  EXPECT_TRUE(pa.offset + pa.addresses <= pc.offset || pc.offset + pc.addresses <= pa.offset);
}

TEST(Placement, DeepBuffersGoToUramShallowToBram) {
  GraphBuilder b;
  const int big = b.buffer("act", BufferClass::kActivation, 24576);
  const int small = b.buffer("core", BufferClass::kParameter, 1152);
  const int tiny = b.buffer("scale", BufferClass::kParameter, 2);
  b.task("use", UnitKind::kContraction, {big, small, tiny}, {}, {});
  MemoryOptions o;
  o.strategy = Strategy::kGrouped;
  o.lanes[UnitKind::kContraction] = 4;  // W = 2: 12,288 and 576 addresses
  const MemoryPlan p = plan_memory(b.build(), small_device(1344, 640), o);
  EXPECT_EQ(p.memories[p.placement_of(big).memory].kind, MemoryKind::kUram);
  EXPECT_EQ(p.memories[p.placement_of(small).memory].kind, MemoryKind::kBram);
  EXPECT_EQ(p.memories[p.placement_of(tiny).memory].kind, MemoryKind::kRegisters);
  // 12,288 addresses × 64 bits → 1 column × 3 rows of URAM288.
  EXPECT_EQ(p.uram_blocks, 3);
  EXPECT_EQ(p.register_bits, 64);
}

TEST(Placement, RebalancesToUramWhenBramIsShort) {
  GraphBuilder b;
  int prev = -1;
  for (int i = 0; i < 16; ++i) {
    const int id = b.buffer("p" + std::to_string(i), BufferClass::kParameter, 1500);
    prev = b.task("upd" + std::to_string(i), UnitKind::kUpdate, {}, {id},
                  prev < 0 ? std::vector<int>{} : std::vector<int>{prev});
  }
  MemoryOptions o;
  o.strategy = Strategy::kGrouped;
  // 24,000 words: 47 RAMB18 = 24 BRAM36 in BRAM, but the device has 10 BRAM36 and 8
  // URAM288; with the 1,500-address buffers in URAM it takes 24,000 / 4,096 → 6 URAM288.
  const MemoryPlan first = plan_memory(b.build(), small_device(1344, 8), o);
  EXPECT_EQ(first.bram36_blocks, 24);
  EXPECT_EQ(first.uram_blocks, 0);
  const MemoryPlan p = plan_memory(b.build(), small_device(10, 8), o);
  EXPECT_TRUE(p.fit.fits) << p.fit.explanation;
  EXPECT_LT(p.uram_min_depth, o.uram_min_depth);
  EXPECT_EQ(p.uram_blocks, 6);
  EXPECT_EQ(p.bram36_blocks, 0);
}

TEST(Fit, ReportsShortfallInBlocksAndBytes) {
  GraphBuilder b;
  const int w = b.buffer("dense_w", BufferClass::kParameter, 589824);  // 768 × 768
  const int gw = b.buffer("dense_g", BufferClass::kGradient, 589824);
  b.task("upd", UnitKind::kUpdate, {w, gw}, {w}, {});
  MemoryOptions o;
  o.strategy = Strategy::kGrouped;
  const MemoryPlan p = plan_memory(b.build(), small_device(4, 4), o);
  EXPECT_FALSE(p.fit.fits);
  EXPECT_GT(p.fit.bram36_short + p.fit.uram_short, 0);
  EXPECT_EQ(p.fit.bytes_short, p.fit.bram36_short * 4608 + p.fit.uram_short * 36864);
  EXPECT_GT(p.fit.ideal_bytes_short, 0);  // 4.7 MB of data on a 0.16 MB device
  EXPECT_NE(p.fit.explanation.find("does not fit"), std::string::npos);
  EXPECT_NE(p.fit.explanation.find("Even a perfect packing cannot fit"), std::string::npos);
  const Json j = plan_summary_json(p);
  EXPECT_FALSE(j.at("fits").get<bool>());
  EXPECT_EQ(j.at("shortfall").at("bytes").get<std::int64_t>(), p.fit.bytes_short);
}

TEST(Grouped, ZeroWordBuffersArePlacedNowhere) {
  GraphBuilder b;
  const int x = b.buffer("x", BufferClass::kTemporary, 1000);
  const int fused = b.buffer("fused", BufferClass::kTemporary, 1000);
  b.task("t", UnitKind::kElementwise, {x}, {fused}, {});
  TaskGraph g = b.build();
  g.buffers[fused].words = 0;
  for (Strategy s : {Strategy::kNaive, Strategy::kGrouped}) {
    MemoryOptions o;
    o.strategy = s;
    const MemoryPlan p = plan_memory(g, small_device(10, 10), o);
    EXPECT_EQ(p.placement_of(fused).memory, -1);
    EXPECT_GE(p.placement_of(x).memory, 0);
    EXPECT_EQ(p.memories.size(), 1u);
  }
}

TEST(Occupancy, TemporariesFreeTheirSpace) {
  const TaskGraph g = tt_layer();
  const Occupancy occ = compute_occupancy(g);
  EXPECT_EQ(occ.peak_by_class.parameter, 6 * 1152 * 4);
  EXPECT_EQ(occ.peak_by_class.gradient, 6 * 1152 * 4);
  // At most two merge temporaries (the one read and the one written) are live.
  EXPECT_EQ(occ.peak_by_class.temporary, 2 * 2000 * 4);
  EXPECT_EQ(occ.no_reuse.temporary, 6 * 2000 * 4);
  // The peak is at the last gradient task: every parameter and gradient, and the last
  // merge it reads (the merges' peak of two comes before any gradient is written).
  EXPECT_EQ(occ.peak_total, 12 * 1152 * 4 + 2000 * 4);
  EXPECT_EQ(occ.by_task.size(), g.tasks.size());
  // At the last update only the parameters and the gradient it reads remain: a gradient
  // lives from its first write to its update, not for the whole step.
  EXPECT_EQ(occ.by_task.back().total(), 7 * 1152 * 4);
  EXPECT_EQ(occ.by_task.back().gradient, 1152 * 4);
}

TEST(Validation, RejectsInconsistentGraphs) {
  GraphBuilder b;
  const int x = b.buffer("x", BufferClass::kTemporary, 10);
  b.task("t0", UnitKind::kElementwise, {x}, {}, {});
  TaskGraph g = b.build();
  g.tasks[0].reads.push_back(7);
  EXPECT_THROW(plan_memory(g, small_device(10, 10), MemoryOptions{}), InputError);
  g = b.build();
  g.tasks[0].deps.push_back(0);
  EXPECT_THROW(plan_memory(g, small_device(10, 10), MemoryOptions{}), InputError);
  g = b.build();
  g.buffers[0].words = -1;
  EXPECT_THROW(plan_memory(g, small_device(10, 10), MemoryOptions{}), InputError);
  MemoryOptions o;
  o.lanes[UnitKind::kGelu] = 0;
  EXPECT_THROW(plan_memory(b.build(), small_device(10, 10), o), InputError);
  EXPECT_THROW(parse_strategy("best"), InputError);
  EXPECT_EQ(parse_strategy("grouped"), Strategy::kGrouped);
}

}  // namespace
}  // namespace ttsim::memplan
