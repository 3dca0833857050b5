#pragma once
// Bank instances the SystemC engine models and the buffers that live in each: the
// interface between the hardware and the simulator. The simulated step takes them from the
// machine description (sim/machine_banks.h); fallback_bank_map below serves the engine's
// own tests on synthetic graphs.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/task_graph.h"
#include "hw/arch_spec.h"

namespace ttsim {

/// Device block primitive of a bank.
enum class BlockKind { kBram36, kUram288 };
const char* to_string(BlockKind k);

/// One on-chip memory (possibly many blocks, cyclically partitioned) with `ports`
/// ports; each port moves `words_per_port_cycle` FP32 words per cycle.
struct BankInstance {
  std::string name;
  BlockKind kind = BlockKind::kBram36;
  std::int64_t blocks = 0;
  int ports = 2;
  std::int64_t words_per_port_cycle = 1;
  /// Physical banks it is split into (a completely partitioned array dimension): the
  /// control and multiplexers of each are priced separately (hw/lut_estimate).
  int partitions = 1;
  std::vector<int> buffers;  ///< buffer ids held
};

/// Which bank holds every buffer.
struct BankMap {
  std::vector<BankInstance> banks;
  /// Bank id of each buffer (by buffer id); -1 when the buffer is not in a block RAM
  /// (a fused stream held in registers).
  std::vector<int> bank_of_buffer;
  std::int64_t bram36_blocks = 0;
  std::int64_t uram_blocks = 0;
  std::string origin;  ///< who produced the plan, e.g. "sim fallback (naive)"
  /// By unit kind: true when every instance of the kind takes aligned lane accesses
  /// (machine::KernelInstance::lane_aligned; the LUT estimate prices their networks so);
  /// false in the fallback plans, which describe no kernel build.
  std::array<bool, kUnitKinds> unit_lane_aligned{};
};

/// The distinct banks each task moves words through (a buffer it reads or writes with a
/// footprint > 0 words, in a bank), by task id in compressed rows: task t's banks are
/// bank[begin[t] .. begin[t + 1]) in the order the task first touches them. A property of
/// the graph, the footprints and which bank holds each buffer, not of the banks' sizes.
struct TaskBanks {
  std::vector<int> begin;  ///< size tasks + 1
  std::vector<int> bank;
};

/// TaskBanks of `graph` on `banks` into `out` (storage reused). Throws
/// std::invalid_argument when `banks` or `footprint` (words by buffer id) do not cover the
/// graph's buffers.
void task_banks_into(const TaskGraph& graph, const BankMap& banks, const std::vector<std::int64_t>& footprint,
                     TaskBanks& out);

/// Fallback plan. Every buffer with footprint 0 or `fused[b]` gets no bank. Otherwise:
///  - a buffer of >= 8,192 words goes to URAM288 (4K × 72 bits = 8,192 FP32 words per
///    block, 2 words per port per block per cycle), blocks = ceil(words / 8,192);
///  - smaller buffers go to BRAM36 in 1K × 36 mode (1,024 words, 1 word per port per
///    block per cycle), blocks = ceil(words / 1,024);
///  - naive: one bank per buffer (HLS default: every array its own memory);
///  - grouped: parameters and gradients below one URAM block are packed per (layer,
///    class) into one shared bank sized by their summed words (tensor-core grouping).
/// `footprint` gives words per buffer id.
BankMap fallback_bank_map(const TaskGraph& graph, MemoryStrategy strategy,
                          const std::vector<std::int64_t>& footprint,
                          const std::vector<bool>& fused);

}  // namespace ttsim
