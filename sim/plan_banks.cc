#include "sim/plan_banks.h"

#include "hls/loop_nest.h"

namespace ttsim {

BankMap bank_map_from_plan(const memplan::MemoryPlan& plan) {
  BankMap m;
  m.origin = std::string("memplan ") + memplan::to_string(plan.strategy);
  std::vector<int> bank_of_memory(plan.memories.size(), -1);
  for (const auto& mem : plan.memories) {
    if (mem.kind != memplan::MemoryKind::kBram && mem.kind != memplan::MemoryKind::kUram) continue;
    BankInstance b;
    b.name = mem.name;
    b.kind = mem.kind == memplan::MemoryKind::kBram ? BlockKind::kBram36 : BlockKind::kUram288;
    b.blocks = mem.kind == memplan::MemoryKind::kBram ? ceil_div(mem.bram18, 2) : mem.uram;
    b.ports = mem.partitions * mem.ports;
    b.partitions = mem.partitions;
    b.words_per_port_cycle = mem.words_per_address;
    b.buffers = mem.buffers;
    bank_of_memory[mem.id] = static_cast<int>(m.banks.size());
    m.banks.push_back(std::move(b));
  }
  m.bank_of_buffer.assign(plan.placements.size(), -1);
  for (const auto& p : plan.placements) {
    if (p.buffer >= 0 && p.memory >= 0) m.bank_of_buffer[p.buffer] = bank_of_memory[p.memory];
  }
  m.bram36_blocks = plan.bram36_blocks;
  m.uram_blocks = plan.uram_blocks;
  return m;
}

memplan::MemoryPlan plan_step_memory(const TaskGraph& graph, const ArchSpec& arch,
                                     const DeviceSpec& device,
                                     const std::vector<std::int64_t>& footprint) {
  memplan::MemoryOptions o;
  o.strategy = arch.memory == MemoryStrategy::kNaive ? memplan::Strategy::kNaive
                                                     : memplan::Strategy::kGrouped;
  for (int k = 0; k < kUnitKinds; ++k) o.lanes[static_cast<UnitKind>(k)] = arch.units[k].lanes;
  bool resized = false;
  for (const Buffer& b : graph.buffers) resized |= footprint[b.id] != b.words;
  if (!resized) return memplan::plan_memory(graph, device, o);
  TaskGraph g = graph;
  for (Buffer& b : g.buffers) {
    if (footprint[b.id] != b.words) {
      b.words = footprint[b.id];
      b.shape = {b.words};
    }
  }
  return memplan::plan_memory(g, device, o);
}

}  // namespace ttsim
