#pragma once
// The banks the SystemC engine and the power model see, from the machine description
// (machine/machine.h): one bank instance per on-chip array of the emitted top, with the
// ports of all its partitions, holding the task-graph buffers the arena plan places in it.

#include "machine/machine.h"
#include "sim/bank_map.h"

namespace ttsim {

/// The bank map of `m`'s arrays, in Machine::memories order. An array of P partitions
/// (dim 2 of <array>[rows][P], completely partitioned) bound as true dual-port RAM is one
/// bank of 2·P ports (ttsim_spec::kBankPorts per partition), each moving one 32-bit word per
/// cycle; its blocks are its BRAM36 or URAM288 count (an array in neither — LUTRAM,
/// registers — has 0 blocks). bank_of_buffer is Machine::memory_of_buffer.
BankMap machine_bank_map(const machine::Machine& m);
/// machine_bank_map into `map` (its storage reused: a design re-simulated in place).
void machine_bank_map_into(const machine::Machine& m, BankMap& map);

}  // namespace ttsim
