#include "sim/machine_banks.h"

#include "hls/include/kernel_spec.h"

namespace ttsim {

BankMap machine_bank_map(const machine::Machine& m) {
  BankMap map;
  map.origin = "machine description (the emitted top's arrays)";
  for (const machine::Memory& mem : m.memories) {
    BankInstance b;
    b.name = mem.array;
    b.kind = mem.storage == machine::Storage::kUram ? BlockKind::kUram288 : BlockKind::kBram36;
    b.blocks = mem.storage == machine::Storage::kUram ? mem.uram288 : mem.bram36;
    b.partitions = mem.partition;
    b.ports = ttsim_spec::kBankPorts * mem.partition;
    b.words_per_port_cycle = mem.width_bits / 32 > 0 ? mem.width_bits / 32 : 1;
    b.buffers = mem.graph_buffers;
    map.banks.push_back(std::move(b));
  }
  map.bank_of_buffer = m.memory_of_buffer;
  map.bram36_blocks = m.bram36();
  map.uram_blocks = m.uram288();
  return map;
}

}  // namespace ttsim
