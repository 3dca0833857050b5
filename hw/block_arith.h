#pragma once
// Block arithmetic of the on-chip memory primitives of UltraScale+ devices (RAMB36E2,
// its two RAMB18 halves, URAM288) and the storage decision Vitis HLS makes for one
// memory (registers, LUTRAM or block RAM), counted the way csynth reports count them.
//
// Sources (shared/reference/hls-reports.md §2.3, §2.4; UG573; UG1399):
// - RAMB36 aspect modes (data width incl. parity × depth): 1×32K, 2×16K, 4×8K, 9×4K,
//   18×2K, 36×1K, 72×512 (72 only in simple dual port, SDP). 36,864 bits per block.
// - RAMB18 (half of a RAMB36): 1×16K, 2×8K, 4×4K, 9×2K, 18×1K, 36×512 (SDP). 18,432 bits.
// - URAM288: fixed 72×4K, 294,912 bits, two ports; cascades within a column (device
//   uram_cascade_height, default 8).
// - HLS counts BRAM in BRAM_18K units: per memory, min over RAMB18 modes of
//   ceil(width / w) · ceil(depth / d). This reproduces the csynth rows
//   90×64 → 2, 225×64 → 2, 1000×32 → 2 BRAM_18K. Two RAMB18 of different memories can
//   share one RAMB36 tile, so BRAM36 tiles = ceil(BRAM_18K / 2).
// - Arrays with fewer than 4 elements are completely partitioned into registers
//   (UG1399 config_array_partition -complete_threshold, default 4; csynth row 3×64 →
//   0 BRAM_18K, 64 FF). LUTRAM threshold: see HlsStorageRules.

#include <cstdint>
#include <string>
#include <vector>

namespace ttsim::memplan {

/// Physical resource a memory is bound to (HLS BIND_STORAGE impl).
enum class MemoryKind {
  kRegisters,  ///< completely partitioned into flip-flops
  kLutram,     ///< distributed RAM in SLICEM LUTs
  kBram,       ///< RAMB18/RAMB36 blocks (counted in BRAM_18K units)
  kUram,       ///< URAM288 blocks
};
/// "registers", "lutram", "bram", "uram" (the HLS BIND_STORAGE impl names where they exist).
const char* to_string(MemoryKind k);

/// Block primitive whose aspect modes are enumerated.
enum class Primitive { kRamb36, kRamb18, kUram288 };
const char* to_string(Primitive p);

/// One aspect mode of a primitive: `width_bits` (data + parity) × `depth` addresses.
struct BlockMode {
  Primitive primitive = Primitive::kRamb18;
  int width_bits = 0;
  std::int64_t depth = 0;
  bool sdp_only = false;  ///< 72-bit RAMB36 / 36-bit RAMB18 need simple dual port
  /// Bits of one block in this mode: width_bits · depth (36,864 / 18,432 / 294,912).
  std::int64_t capacity_bits() const { return width_bits * depth; }
  /// e.g. "RAMB18 36x512 (SDP)".
  std::string describe() const;
};

/// Bits of one block: RAMB36 36,864, RAMB18 18,432, URAM288 294,912.
std::int64_t block_bits(Primitive p);

/// The aspect modes of `p`, narrowest first (RAMB36: 7 modes, RAMB18: 6, URAM288: 1).
const std::vector<BlockMode>& block_modes(Primitive p);

/// Blocks of one memory of `depth` addresses × `width_bits` bits mapped in one mode:
/// columns = ceil(width_bits / mode.width_bits) blocks side by side, rows =
/// ceil(depth / mode.depth) blocks cascaded in depth.
struct BlockLayout {
  BlockMode mode;
  std::int64_t columns = 0;
  std::int64_t rows = 0;
  std::int64_t blocks() const { return columns * rows; }
  std::int64_t allocated_bits() const { return blocks() * mode.capacity_bits(); }
};

/// The layout of a `depth` × `width_bits` memory on primitive `p` with the fewest
/// blocks (ties: the wider mode, i.e. fewer cascaded rows). depth, width_bits >= 1;
/// throws std::invalid_argument otherwise. For BRAM use Primitive::kRamb18: this is the
/// BRAM_18K count csynth reports.
/// With `true_dual_port` (a memory bound `ram_t2p`: two ports that each read or write)
/// the simple-dual-port-only modes (RAMB36 72×512, RAMB18 36×512) are not used, so a
/// 32-bit memory takes two 18-bit RAMB18 columns of 1K (UG573: in true dual port the
/// widest mode is 36 bits on a RAMB36, 18 on a RAMB18).
BlockLayout best_layout(Primitive p, std::int64_t depth, std::int64_t width_bits, bool true_dual_port = false);

/// BRAM_18K blocks of one `depth` × `width_bits` memory (best_layout on RAMB18; without
/// the SDP-only mode for a true-dual-port memory).
std::int64_t bram18_blocks(std::int64_t depth, std::int64_t width_bits, bool true_dual_port = false);
/// URAM288 blocks of one `depth` × `width_bits` memory.
std::int64_t uram_blocks(std::int64_t depth, std::int64_t width_bits);
/// RAMB36 tiles needed to hold `bram18` RAMB18 halves: ceil(bram18 / 2).
inline std::int64_t bram36_tiles(std::int64_t bram18) { return (bram18 + 1) / 2; }

/// The default storage rules of Vitis HLS for a memory whose impl is not bound.
struct HlsStorageRules {
  /// Arrays with fewer elements than this are completely partitioned into registers
  /// (UG1399 config_array_partition -complete_threshold, default 4).
  std::int64_t complete_partition_threshold = 4;
  /// Memories of at most this many bits go to LUTRAM instead of BRAM. Vitis HLS does not
  /// document its RAM threshold; 1,024 bits is its documented default for FIFO
  /// auto-SRL binding (config_storage -auto_srl_max_bits) and is consistent with the
  /// observed csynth rows (3×64 = 192 bits → registers, 90×64 = 5,760 bits → BRAM).
  std::int64_t lutram_max_bits = 1024;
};

/// Where Vitis HLS puts one array of `elements` elements of `width_bits` bits, given
/// the rules: registers when elements < complete_partition_threshold, LUTRAM when
/// elements·width_bits <= lutram_max_bits, BRAM otherwise.
MemoryKind hls_default_kind(std::int64_t elements, std::int64_t width_bits,
                            const HlsStorageRules& rules = {});

/// BRAM_18K count csynth reports for one array memory (0 when it goes to registers or
/// LUTRAM under `rules`).
std::int64_t hls_bram18_count(std::int64_t elements, std::int64_t width_bits,
                              const HlsStorageRules& rules = {});

}  // namespace ttsim::memplan
