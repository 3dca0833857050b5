// Block arithmetic of RAMB36 / RAMB18 / URAM288 and the Vitis HLS storage rules,
// pinned against csynth rows quoted in shared/reference/hls-reports.md §2.4.

#include "hw/block_arith.h"

#include <stdexcept>

#include <gtest/gtest.h>

namespace ttsim::memplan {
namespace {

TEST(BlockModes, Ramb36ModesHold36KbitEach) {
  const auto& modes = block_modes(Primitive::kRamb36);
  ASSERT_EQ(modes.size(), 7u);
  const int widths[] = {1, 2, 4, 9, 18, 36, 72};
  const std::int64_t depths[] = {32768, 16384, 8192, 4096, 2048, 1024, 512};
  for (std::size_t i = 0; i < modes.size(); ++i) {
    EXPECT_EQ(modes[i].width_bits, widths[i]);
    EXPECT_EQ(modes[i].depth, depths[i]);
    EXPECT_EQ(modes[i].sdp_only, widths[i] == 72);
  }
  // 1..4-bit modes have no parity bits: 32 Kbit; 9..72-bit modes: 36 Kbit.
  EXPECT_EQ(modes[0].capacity_bits(), 32768);
  EXPECT_EQ(modes[2].capacity_bits(), 32768);
  for (std::size_t i = 3; i < modes.size(); ++i) EXPECT_EQ(modes[i].capacity_bits(), 36864);
  EXPECT_EQ(block_bits(Primitive::kRamb36), 36864);
  EXPECT_EQ(modes[6].describe(), "RAMB36 512x72 (SDP)");
  EXPECT_EQ(modes[5].describe(), "RAMB36 1Kx36");
}

TEST(BlockModes, Ramb18IsHalfARamb36) {
  const auto& modes = block_modes(Primitive::kRamb18);
  ASSERT_EQ(modes.size(), 6u);
  const auto& big = block_modes(Primitive::kRamb36);
  for (std::size_t i = 0; i < modes.size(); ++i) {
    EXPECT_EQ(modes[i].width_bits, big[i].width_bits);
    EXPECT_EQ(modes[i].depth * 2, big[i].depth);
    EXPECT_EQ(modes[i].capacity_bits() * 2, big[i].capacity_bits());
  }
  EXPECT_EQ(modes.back().width_bits, 36);
  EXPECT_TRUE(modes.back().sdp_only);
  EXPECT_EQ(block_bits(Primitive::kRamb18), 18432);
}

TEST(BlockModes, Uram288IsFixed4Kx72) {
  const auto& modes = block_modes(Primitive::kUram288);
  ASSERT_EQ(modes.size(), 1u);
  EXPECT_EQ(modes[0].width_bits, 72);
  EXPECT_EQ(modes[0].depth, 4096);
  EXPECT_EQ(modes[0].capacity_bits(), 294912);
  EXPECT_EQ(block_bits(Primitive::kUram288), 294912);
}

// csynth "* Memory:" rows (hls-reports.md §2.4).
TEST(HlsCounting, ReproducesCsynthRows) {
  EXPECT_EQ(hls_bram18_count(90, 64), 2);    // pca_m_pcVecs
  EXPECT_EQ(hls_bram18_count(225, 64), 2);   // standarisedData / covMatrix
  EXPECT_EQ(hls_bram18_count(1000, 32), 2);  // PNA edge_list
  EXPECT_EQ(hls_default_kind(3, 64), MemoryKind::kRegisters);  // pca_m_pcVals_0/1
  EXPECT_EQ(hls_bram18_count(3, 64), 0);
}

TEST(HlsCounting, EfficiencyOfTheCsynthRows) {
  // used / allocated bits as quoted in §2.4.
  auto alloc = [](std::int64_t d, std::int64_t w) { return bram18_blocks(d, w) * 18432; };
  EXPECT_EQ(alloc(90, 64), 36864);
  EXPECT_EQ(alloc(1000, 32), 36864);
}

TEST(HlsCounting, TinyAndSmallArraysLeaveBlockRam) {
  HlsStorageRules rules;
  EXPECT_EQ(rules.complete_partition_threshold, 4);
  EXPECT_EQ(hls_default_kind(4, 32), MemoryKind::kLutram);    // 128 bits
  EXPECT_EQ(hls_default_kind(32, 32), MemoryKind::kLutram);   // 1,024 bits
  EXPECT_EQ(hls_default_kind(33, 32), MemoryKind::kBram);     // 1,056 bits
  rules.lutram_max_bits = 0;
  EXPECT_EQ(hls_default_kind(4, 32, rules), MemoryKind::kBram);
  EXPECT_EQ(hls_bram18_count(4, 32, rules), 1);
}

TEST(BestLayout, PicksFewestBlocksAndWidestOnTies) {
  // FP32 word, 512 deep: one RAMB18 in 36x512.
  BlockLayout l = best_layout(Primitive::kRamb18, 512, 32);
  EXPECT_EQ(l.blocks(), 1);
  EXPECT_EQ(l.mode.width_bits, 36);
  // 1,024 deep: 36x512 × 2 rows and 18x1K × 2 columns tie at 2; the wider mode wins.
  l = best_layout(Primitive::kRamb18, 1024, 32);
  EXPECT_EQ(l.blocks(), 2);
  EXPECT_EQ(l.mode.width_bits, 36);
  EXPECT_EQ(l.rows, 2);
  // 64-bit words need two 36-bit columns (hls-reports.md §2.4).
  l = best_layout(Primitive::kRamb18, 90, 64);
  EXPECT_EQ(l.columns, 2);
  EXPECT_EQ(l.rows, 1);
  // 16K × 1 bit fits one RAMB18 in its 1-bit mode.
  EXPECT_EQ(bram18_blocks(16384, 1), 1);
  EXPECT_EQ(bram18_blocks(16385, 1), 2);
  // 512 × 72 is one RAMB36 (two RAMB18 side by side).
  EXPECT_EQ(bram18_blocks(512, 72), 2);
  EXPECT_EQ(best_layout(Primitive::kRamb36, 512, 72).blocks(), 1);
  // Deep FP32 array: 40,000 words → ceil(40000 / 512) = 79 RAMB18 (csynth printed 16
  // for such arrays in PNA, an anomaly the reference notes; we do not copy it).
  EXPECT_EQ(bram18_blocks(40000, 32), 79);
}

TEST(BestLayout, UramCountsAndCascade) {
  EXPECT_EQ(uram_blocks(4096, 72), 1);
  EXPECT_EQ(uram_blocks(4097, 72), 2);
  EXPECT_EQ(uram_blocks(4096, 73), 2);
  EXPECT_EQ(uram_blocks(1, 32), 1);
  // 8 FP32 words per address (256 bits) → 4 columns; 10,000 deep → 3 cascaded rows.
  BlockLayout l = best_layout(Primitive::kUram288, 10000, 256);
  EXPECT_EQ(l.columns, 4);
  EXPECT_EQ(l.rows, 3);
  EXPECT_EQ(l.blocks(), 12);
}

TEST(BestLayout, PartitionedArrayRoundsEveryBank) {
  // FP32 array of 1,000 words partitioned 4 ways: 4 banks of 250 words → 4 BRAM_18K,
  // against 2 unpartitioned.
  EXPECT_EQ(4 * bram18_blocks(250, 32), 4);
  EXPECT_EQ(bram18_blocks(1000, 32), 2);
  EXPECT_EQ(bram36_tiles(3), 2);
  EXPECT_EQ(bram36_tiles(4), 2);
  EXPECT_EQ(bram36_tiles(0), 0);
}

TEST(BestLayout, RejectsEmptyMemories) {
  EXPECT_THROW(best_layout(Primitive::kRamb18, 0, 32), std::invalid_argument);
  EXPECT_THROW(best_layout(Primitive::kUram288, 10, 0), std::invalid_argument);
}

}  // namespace
}  // namespace ttsim::memplan
