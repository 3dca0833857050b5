#include "hw/block_arith.h"

#include <stdexcept>

#include <fmt/format.h>

namespace ttsim::memplan {

const char* to_string(MemoryKind k) {
  switch (k) {
    case MemoryKind::kRegisters: return "registers";
    case MemoryKind::kLutram: return "lutram";
    case MemoryKind::kBram: return "bram";
    case MemoryKind::kUram: return "uram";
  }
  return "?";
}

const char* to_string(Primitive p) {
  switch (p) {
    case Primitive::kRamb36: return "RAMB36";
    case Primitive::kRamb18: return "RAMB18";
    case Primitive::kUram288: return "URAM288";
  }
  return "?";
}

std::string BlockMode::describe() const {
  std::string depth_text = depth >= 1024 && depth % 1024 == 0 ? fmt::format("{}K", depth / 1024)
                                                               : fmt::format("{}", depth);
  return fmt::format("{} {}x{}{}", to_string(primitive), depth_text, width_bits,
                     sdp_only ? " (SDP)" : "");
}

std::int64_t block_bits(Primitive p) {
  switch (p) {
    case Primitive::kRamb36: return 36864;
    case Primitive::kRamb18: return 18432;
    case Primitive::kUram288: return 294912;
  }
  return 0;
}

const std::vector<BlockMode>& block_modes(Primitive p) {
  static const std::vector<BlockMode> ramb36 = {
      {Primitive::kRamb36, 1, 32768, false}, {Primitive::kRamb36, 2, 16384, false},
      {Primitive::kRamb36, 4, 8192, false},  {Primitive::kRamb36, 9, 4096, false},
      {Primitive::kRamb36, 18, 2048, false}, {Primitive::kRamb36, 36, 1024, false},
      {Primitive::kRamb36, 72, 512, true},
  };
  static const std::vector<BlockMode> ramb18 = {
      {Primitive::kRamb18, 1, 16384, false}, {Primitive::kRamb18, 2, 8192, false},
      {Primitive::kRamb18, 4, 4096, false},  {Primitive::kRamb18, 9, 2048, false},
      {Primitive::kRamb18, 18, 1024, false}, {Primitive::kRamb18, 36, 512, true},
  };
  static const std::vector<BlockMode> uram = {{Primitive::kUram288, 72, 4096, false}};
  switch (p) {
    case Primitive::kRamb36: return ramb36;
    case Primitive::kRamb18: return ramb18;
    case Primitive::kUram288: return uram;
  }
  return uram;
}

BlockLayout best_layout(Primitive p, std::int64_t depth, std::int64_t width_bits, bool true_dual_port) {
  if (depth < 1 || width_bits < 1) {
    throw std::invalid_argument(
        fmt::format("best_layout: depth {} and width {} must be >= 1", depth, width_bits));
  }
  BlockLayout best;
  for (const BlockMode& m : block_modes(p)) {
    if (true_dual_port && m.sdp_only) continue;
    BlockLayout l{m, (width_bits + m.width_bits - 1) / m.width_bits, (depth + m.depth - 1) / m.depth};
    // Modes are narrowest first, so `<=` prefers the wider mode on ties.
    if (best.columns == 0 || l.blocks() <= best.blocks()) best = l;
  }
  return best;
}

std::int64_t bram18_blocks(std::int64_t depth, std::int64_t width_bits, bool true_dual_port) {
  return best_layout(Primitive::kRamb18, depth, width_bits, true_dual_port).blocks();
}

std::int64_t uram_blocks(std::int64_t depth, std::int64_t width_bits) {
  return best_layout(Primitive::kUram288, depth, width_bits).blocks();
}

MemoryKind hls_default_kind(std::int64_t elements, std::int64_t width_bits,
                            const HlsStorageRules& rules) {
  if (elements < rules.complete_partition_threshold) return MemoryKind::kRegisters;
  if (elements * width_bits <= rules.lutram_max_bits) return MemoryKind::kLutram;
  return MemoryKind::kBram;
}

std::int64_t hls_bram18_count(std::int64_t elements, std::int64_t width_bits,
                              const HlsStorageRules& rules) {
  if (hls_default_kind(elements, width_bits, rules) != MemoryKind::kBram) return 0;
  return bram18_blocks(elements, width_bits);
}

}  // namespace ttsim::memplan
