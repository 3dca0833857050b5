// Property test of the planner on random task graphs: no two buffers that can be live
// at the same time overlap in a memory, every placement lies inside its memory and holds
// all the buffer's words, and in every task the port accesses of each memory's buffers
// fit its ports.

#include <algorithm>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "sim/memplan/memory_plan.h"
#include "sim/memplan/precedence.h"
#include "tests/sim/memplan/graph_builder.h"

namespace ttsim::memplan {
namespace {

constexpr UnitKind kUnits[] = {UnitKind::kContraction, UnitKind::kSoftmax, UnitKind::kLayerNorm,
                               UnitKind::kGelu,        UnitKind::kElementwise, UnitKind::kLoss,
                               UnitKind::kUpdate};

struct RandomCase {
  TaskGraph graph;
  MemoryOptions options;
};

RandomCase random_case(Strategy strategy) {
  testing::GraphBuilder b;
  const int nb = *rc::gen::inRange(1, 40);
  for (int i = 0; i < nb; ++i) {
    const auto cls = static_cast<BufferClass>(*rc::gen::inRange(0, 4));
    // Mostly small (TT cores, vectors), sometimes URAM-deep.
    const std::int64_t words = *rc::gen::weightedOneOf<std::int64_t>(
        {{1, rc::gen::just<std::int64_t>(0)},
         {6, rc::gen::inRange<std::int64_t>(1, 3000)},
         {1, rc::gen::inRange<std::int64_t>(3000, 60000)}});
    b.buffer("b" + std::to_string(i), cls, words);
  }
  const int nt = *rc::gen::inRange(1, 40);
  for (int t = 0; t < nt; ++t) {
    std::vector<int> deps;
    for (int d = 0; d < t; ++d) {
      if (*rc::gen::inRange(0, 4) == 0) deps.push_back(d);
    }
    auto pick = [&](int max_n) {
      std::vector<int> v = *rc::gen::container<std::vector<int>>(
          static_cast<std::size_t>(*rc::gen::inRange(0, max_n)), rc::gen::inRange(0, nb));
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      return v;
    };
    const UnitKind unit = kUnits[*rc::gen::inRange(0, 7)];
    b.task("t" + std::to_string(t), unit, pick(4), pick(3), deps);
  }
  RandomCase c;
  c.graph = b.build();
  c.options.strategy = strategy;
  for (UnitKind u : kUnits) c.options.lanes[u] = *rc::gen::inRange(1, 33);
  c.options.uram_min_depth = *rc::gen::element<std::int64_t>(256, 1024, 2048, 8192);
  return c;
}

bool live_at_same_time(const Placement& a, const Placement& b) {
  return a.first_task <= b.last_task && b.first_task <= a.last_task;
}

void check_plan(const RandomCase& c) {
  const DeviceSpec device = testing::small_device(1344, 640);
  const MemoryPlan plan = plan_memory(c.graph, device, c.options);
  const BufferOrder order(c.graph);
  RC_ASSERT(plan.placements.size() == c.graph.buffers.size());
  for (const Buffer& b : c.graph.buffers) {
    const Placement& p = plan.placement_of(b.id);
    RC_ASSERT(p.buffer == b.id);
    if (b.words == 0) {
      RC_ASSERT(p.memory == -1);
      continue;
    }
    RC_ASSERT(p.memory >= 0 && p.memory < static_cast<int>(plan.memories.size()));
    const MemoryInstance& m = plan.memories[p.memory];
    RC_ASSERT(std::find(m.buffers.begin(), m.buffers.end(), b.id) != m.buffers.end());
    // Holds every word and lies inside the memory.
    RC_ASSERT(p.addresses * m.partitions * m.words_per_address >= b.words);
    RC_ASSERT(p.offset >= 0 && p.offset + p.addresses <= m.depth);
  }
  for (const MemoryInstance& m : plan.memories) {
    // No two buffers that may be live together share an address.
    for (std::size_t i = 0; i < m.buffers.size(); ++i) {
      for (std::size_t j = i + 1; j < m.buffers.size(); ++j) {
        const Placement& a = plan.placement_of(m.buffers[i]);
        const Placement& b = plan.placement_of(m.buffers[j]);
        const bool overlap = a.offset < b.offset + b.addresses && b.offset < a.offset + a.addresses;
        if (!overlap) continue;
        RC_ASSERT(!a.whole_step && !b.whole_step);
        RC_ASSERT(order.disjoint(a.buffer, b.buffer));
        RC_ASSERT(!live_at_same_time(a, b));
      }
    }
    if (m.kind == MemoryKind::kBram || m.kind == MemoryKind::kUram) {
      RC_ASSERT(m.used_bits <= m.allocated_bits);
      RC_ASSERT(m.allocated_bits == m.bram18 * 18432 + m.uram * 294912);
    }
  }
  // Every buffer gets the ports its lanes need, in every task.
  for (const Task& t : c.graph.tasks) {
    std::map<int, int> per_memory;
    std::vector<int> touched = t.reads;
    touched.insert(touched.end(), t.writes.begin(), t.writes.end());
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (int b : touched) {
      const Placement& p = plan.placement_of(b);
      if (p.memory < 0) continue;  // 0-word buffer: no memory
      const MemoryInstance& m = plan.memories[p.memory];
      if (m.kind == MemoryKind::kRegisters) continue;  // every element has its own wires
      const int lanes = c.options.lanes_of(t.unit);
      per_memory[p.memory] += port_accesses(t, b, lanes, m.partitions, m.words_per_address);
    }
    for (const auto& [mem, accesses] : per_memory) {
      RC_ASSERT(accesses <= plan.memories[mem].ports);
    }
  }
  RC_ASSERT(plan.efficiency >= 0.0 && plan.efficiency <= 1.0);
  RC_ASSERT(plan.bram36_blocks == (plan.bram18_blocks + 1) / 2);
}

RC_GTEST_PROP(MemplanProperty, GroupedPlansNeverOverlapLiveBuffersAndGiveEnoughPorts, ()) {
  check_plan(random_case(Strategy::kGrouped));
}

RC_GTEST_PROP(MemplanProperty, NaivePlansGiveEnoughPorts, ()) {
  check_plan(random_case(Strategy::kNaive));
}

RC_GTEST_PROP(MemplanProperty, IdealBoundIsBelowGrouped, ()) {
  RandomCase c = random_case(Strategy::kGrouped);
  const DeviceSpec device = testing::small_device(1344, 640);
  const MemoryPlan grouped = plan_memory(c.graph, device, c.options);
  c.options.strategy = Strategy::kIdeal;
  const MemoryPlan ideal = plan_memory(c.graph, device, c.options);
  RC_ASSERT(ideal.allocated_bits <= grouped.allocated_bits);
}

}  // namespace
}  // namespace ttsim::memplan
