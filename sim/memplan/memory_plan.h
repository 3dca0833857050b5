#pragma once
// The on-chip memory planner: where every buffer of a training step (TT/TTM cores,
// gradients, saved activations, temporaries) lives in BRAM/URAM, at which address and
// during which tasks, and what it costs in BRAM_18K / RAMB36 / URAM288 blocks.
//
// An analysis: what a top with one array per planned memory would need (`ttsim memplan
// --planner`). The emitted build declares the arena plan's arrays instead
// (machine/machine.h), and the simulator runs on those (sim/machine_banks.h); a plan here
// is never simulated nor emitted.
//
// Port model (all strategies). A task run on a unit with P lanes moves P words per cycle
// of every buffer it reads and P words per cycle of every buffer it writes (a buffer both
// read and written by the task, e.g. a parameter in its SGD update, needs both). A memory
// with F partitions of W words per address serves ceil(P / (F·W)) port accesses per
// direction per partition; every partition has `ports` (2: RAMB36/URAM288 are dual
// port) accesses per cycle. In every task, the accesses of all buffers of one memory
// must fit its ports. Contention between *concurrently running* tasks is not a planning
// constraint: the simulator's port models account for it.
//
// Strategies:
//  - naive: what Vitis HLS builds by default. One memory per buffer, cyclically
//    partitioned into F = W_b banks of 32-bit words (W_b: the smallest words-per-cycle
//    width that gives the buffer enough port accesses), each bank rounded up to whole
//    blocks on its own. No space reuse between buffers.
//  - grouped: tensor-core grouping. Buffers with the same kind and width W_b share
//    memories of W_b words per address (ARRAY_RESHAPE); parameters and gradients are
//    packed side by side, activations and temporaries reuse the addresses of buffers
//    whose every access precedes theirs in the dependency order. Placement is best-fit
//    (fewest added blocks), subject to the per-task port limit and the URAM cascade
//    height; each memory's block mode is then chosen to minimise allocated bits.
//  - ideal: lower bound, no placement: peak live bits per kind / block bits.
//
// BRAM vs URAM: a buffer (grouped) or partition (naive) goes to URAM when it is at least
// `uram_min_depth` addresses deep (deep, narrow memories waste the least in a 4K-deep
// URAM288; shallow ones waste it), else to BRAM; registers/LUTRAM per HlsStorageRules
// (naive) or registers only (grouped and ideal pack small buffers into blocks). Grouped
// lowers the URAM depth threshold step by step while BRAM is over the device and URAM
// has room (MemoryPlan::uram_min_depth records the value used).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/task_graph.h"
#include "hw/device_spec.h"
#include "hw/block_arith.h"
#include "sim/memplan/occupancy.h"

namespace ttsim::memplan {

/// naive: one memory per array (HLS default); grouped: tensor-core grouping into shared
/// blocks; ideal: the lower bound used bits / block bits (no placement).
enum class Strategy { kNaive, kGrouped, kIdeal };
/// "naive", "grouped", "ideal".
const char* to_string(Strategy s);
/// Parses "naive" / "grouped" / "ideal"; throws InputError naming the accepted values.
Strategy parse_strategy(const std::string& s);

/// Planner inputs besides the graph and the device.
struct MemoryOptions {
  Strategy strategy = Strategy::kGrouped;
  /// Lanes (words per cycle per operand) of the unit that runs each UnitKind; kinds not
  /// listed have 1 lane. Fill from ArchSpec::units[k].lanes.
  std::map<UnitKind, int> lanes;
  int ports = 2;        ///< port accesses per cycle of one memory partition
  int word_bits = 32;   ///< FP32
  HlsStorageRules hls;  ///< registers / LUTRAM thresholds (naive)
  /// Addresses at or above which a memory goes to URAM288 rather than BRAM
  /// (default 2,048 = half the 4K depth of a URAM288 column).
  std::int64_t uram_min_depth = 2048;

  int lanes_of(UnitKind k) const;
};

/// One memory instance (a bank group the simulator models and the HLS emitter declares).
struct MemoryInstance {
  int id = -1;
  std::string name;  ///< "naive:<buffer name>" or "grp.<kind>.w<W>.<n>"
  MemoryKind kind = MemoryKind::kBram;
  /// Block mode and columns × rows of ONE partition (meaningless for registers/LUTRAM).
  BlockLayout layout;
  int partitions = 1;             ///< ARRAY_PARTITION cyclic factor (independent banks)
  int words_per_address = 1;      ///< ARRAY_RESHAPE cyclic factor (FP32 words per address)
  int ports = 2;                  ///< port accesses per cycle per partition
  std::int64_t depth = 0;         ///< addresses per partition
  std::int64_t bram18 = 0;        ///< BRAM_18K blocks, all partitions
  std::int64_t uram = 0;          ///< URAM288 blocks, all partitions
  std::int64_t used_bits = 0;     ///< peak live data bits (words · 32) over the step
  std::int64_t allocated_bits = 0;  ///< blocks · block bits; registers/LUTRAM: cells
  std::vector<int> buffers;       ///< buffer ids placed here

  /// Data width of one partition in bits: words_per_address · word_bits.
  std::int64_t width_bits(int word_bits = 32) const { return words_per_address * word_bits; }
  /// Words per cycle the memory can move: partitions · ports · words_per_address.
  std::int64_t words_per_cycle() const {
    return static_cast<std::int64_t>(partitions) * ports * words_per_address;
  }
  /// HLS BIND_STORAGE impl: "bram", "uram", "lutram"; "" for registers (no binding).
  const char* impl() const;
};

/// Where one buffer lives.
struct Placement {
  int buffer = -1;
  /// Index into MemoryPlan::memories; -1 for a buffer of 0 words (e.g. a fused
  /// stream the caller keeps out of block RAM), which occupies nothing.
  int memory = -1;
  std::int64_t offset = 0;    ///< first address (in every partition)
  std::int64_t addresses = 0; ///< addresses occupied per partition
  bool whole_step = true;     ///< live for the whole step (else [first_task, last_task])
  int first_task = -1;
  int last_task = -1;
};

/// Blocks and words attributed to one buffer class.
struct ClassUsage {
  BufferClass cls = BufferClass::kParameter;
  std::int64_t buffers = 0;
  std::int64_t words = 0;
  std::int64_t peak_live_bytes = 0;  ///< Occupancy::peak_by_class
  /// Blocks attributed in proportion to the class's words in each memory.
  double bram36 = 0;
  double uram = 0;
};

/// Capacity check against the device.
struct FitReport {
  bool fits = true;
  std::int64_t bram36_needed = 0, bram36_available = 0;
  std::int64_t uram_needed = 0, uram_available = 0;
  std::int64_t bram36_short = 0;  ///< blocks missing (0 when it fits)
  std::int64_t uram_short = 0;
  std::int64_t bytes_short = 0;   ///< bram36_short · 4,608 + uram_short · 36,864 bytes
  /// Peak live bytes vs on-chip bytes: when > 0, no packing of any strategy fits.
  std::int64_t ideal_bytes_short = 0;
  std::string explanation;        ///< one paragraph: what does not fit and by how much
};

/// The complete plan.
struct MemoryPlan {
  Strategy strategy = Strategy::kGrouped;
  std::string device;
  bool realizable = true;  ///< false for the ideal bound (no memories or placements)
  std::int64_t uram_min_depth = 0;  ///< URAM threshold the plan used
  std::vector<MemoryInstance> memories;
  std::vector<Placement> placements;   ///< one per buffer id (index = buffer id)
  std::int64_t bram18_blocks = 0;
  std::int64_t bram36_blocks = 0;      ///< ceil(bram18 / 2)
  std::int64_t uram_blocks = 0;
  std::int64_t lutram_bits = 0;
  std::int64_t register_bits = 0;
  std::int64_t used_bits = 0;       ///< data bits held in BRAM + URAM (peak per memory)
  std::int64_t allocated_bits = 0;  ///< bram18 · 18,432 + uram · 294,912
  double efficiency = 0;            ///< used_bits / allocated_bits (0 when nothing allocated)
  Occupancy occupancy;
  std::vector<ClassUsage> by_class;  ///< parameter, gradient, activation, temporary
  FitReport fit;

  /// The placement of buffer `id`; throws std::out_of_range for an unknown id or an
  /// ideal plan.
  const Placement& placement_of(int buffer_id) const;
};

/// Plans the on-chip memory of `graph` on `device`.
/// Buffers of 0 words are placed nowhere (Placement::memory = -1).
/// Throws InputError for an inconsistent graph (buffer id out of range or not equal to
/// its index, dependency not earlier than its task, words < 0, lanes < 1) naming the
/// task or buffer. A plan that does not fit the device is returned with fit.fits = false.
MemoryPlan plan_memory(const TaskGraph& graph, const DeviceSpec& device,
                       const MemoryOptions& options);

/// Port accesses per cycle per partition that buffer `buffer_id` needs in task `task`
/// when it is held in a memory of `partitions` × `words_per_address` words (0 when the
/// task does not touch it): ceil(P/(F·W)) if read + ceil(P/(F·W)) if written.
int port_accesses(const Task& task, int buffer_id, int lanes, int partitions,
                  int words_per_address);

}  // namespace ttsim::memplan
