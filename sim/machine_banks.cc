#include "sim/machine_banks.h"

#include "hls/include/kernel_spec.h"

namespace ttsim {

void machine_bank_map_into(const machine::Machine& m, BankMap& map) {
  map.origin = "machine description (the emitted top's arrays)";
  map.banks.resize(m.memories.size());
  for (std::size_t i = 0; i < m.memories.size(); ++i) {
    const machine::Memory& mem = m.memories[i];
    BankInstance& b = map.banks[i];
    b.name = mem.array;
    b.kind = mem.storage == machine::Storage::kUram ? BlockKind::kUram288 : BlockKind::kBram36;
    b.blocks = mem.storage == machine::Storage::kUram ? mem.uram288 : mem.bram36;
    b.partitions = mem.partition;
    b.ports = ttsim_spec::kBankPorts * mem.partition;
    b.words_per_port_cycle = mem.width_bits / 32 > 0 ? mem.width_bits / 32 : 1;
    b.buffers = mem.graph_buffers;
  }
  map.bank_of_buffer = m.memory_of_buffer;
  map.unit_lane_aligned.fill(false);
  std::array<bool, kUnitKinds> seen{};
  for (const machine::KernelInstance& k : m.instances) {
    const int u = static_cast<int>(k.unit);
    map.unit_lane_aligned[u] = (seen[u] ? map.unit_lane_aligned[u] : true) && k.lane_aligned;
    seen[u] = true;
  }
  map.bram36_blocks = m.bram36();
  map.uram_blocks = m.uram288();
}

BankMap machine_bank_map(const machine::Machine& m) {
  BankMap map;
  machine_bank_map_into(m, map);
  return map;
}

}  // namespace ttsim
