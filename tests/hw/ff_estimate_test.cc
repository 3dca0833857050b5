// The FF estimate (hw/ff_estimate.h): what each term counts on the kernel specification,
// and the reference design's figure by term.

#include <gtest/gtest.h>

#include "hls/include/kernel_spec.h"
#include "hw/arch_spec.h"
#include "hw/ff_estimate.h"
#include "hw/lut_estimate.h"

namespace ttsim {
namespace {

TEST(FfEstimate, OperatorCoresFollowTheLutEstimatesInstanceRule) {
  // Same cores as the LUT estimate, priced by their FFs: fadd 205, fmul 143 (csynth).
  EXPECT_EQ(operator_core_ffs(ttsim_spec::kFadd), 205);
  EXPECT_EQ(operator_core_ffs(ttsim_spec::kFmul), 143);
  EXPECT_EQ(operator_core_ffs(ttsim_spec::kRead), 0);
  EXPECT_THROW(operator_core_ffs(-1), std::invalid_argument);
  // Per-lane cores double with the lanes; scalar ones do not, so 64 lanes cost less than
  // twice 32.
  const double c32 = unit_operator_ffs(UnitKind::kContraction, 32), c64 = unit_operator_ffs(UnitKind::kContraction, 64);
  EXPECT_GT(c64, c32);
  EXPECT_LE(c64, 2 * c32);
  EXPECT_THROW(unit_operator_ffs(UnitKind::kContraction, 0), std::invalid_argument);
}

TEST(FfEstimate, RegistersAreTheLaneWordsAndTheTransposeTileReads) {
  // The elementwise unit's loops (kernel_spec.h access sites): add_accumulate (x read; acc
  // read and written), column_sum (x read; sum read and written),
  // transpose (x read, out written; its LUTRAM tile buffers' registered reads, a word per
  // lane); the accumulators of column_sum are LUTRAM.
  for (int lanes : {1, 8, 64}) {
    const double expected = 32.0 * lanes * (3 + 3 + 2) + 32.0 * lanes;
    EXPECT_EQ(unit_register_ffs(UnitKind::kElementwise, lanes), expected) << lanes;
  }
  // The contraction: lane words only, linear in the lanes.
  EXPECT_EQ(unit_register_ffs(UnitKind::kContraction, 64), 4 * unit_register_ffs(UnitKind::kContraction, 16));
}

TEST(FfEstimate, TheReferenceDesignByTerm) {
  const ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  const FfTerms t = design_ff_terms(arch);
  EXPECT_GT(t.operators, 0);
  EXPECT_GT(t.registers, 0);
  double loops = 0;
  for (int k = 0; k < kUnitKinds; ++k) loops += arch.units[k].count * unit_pipelined_loops(static_cast<UnitKind>(k));
  EXPECT_DOUBLE_EQ(t.control, loops * kControlFfsPerPipelinedLoop);
  EXPECT_DOUBLE_EQ(t.total(), t.operators + t.registers + t.control);
  EXPECT_EQ(t.to_json().at("total").get<double>(), t.total());
}

// A by_add build omits column_acc (ttsim_spec::omitted_loops): its FFs lose that loop's cores
// (alpha fmul per lane window, L fmul + L fadd), its lane words (B and C reads, C write: 3 ×
// 32 bits × L) and one loop's control, and nothing else.
TEST(FfEstimate, AnOmittedLoopHasNoFlipFlops) {
  const ArchSpec by_add = load_arch_spec("configs/arch/u50_unit_lanes.json");
  ASSERT_TRUE(by_add.accumulate_by_add);
  ArchSpec in_place = by_add;
  in_place.accumulate_by_add = false;
  const FfTerms a = design_ff_terms(in_place), b = design_ff_terms(by_add);
  const double L = by_add.unit(UnitKind::kContraction).lanes;  // 128 on 64 banks: two windows
  const double fadd = operator_core_ffs(ttsim_spec::kFadd), fmul = operator_core_ffs(ttsim_spec::kFmul);
  EXPECT_DOUBLE_EQ(a.operators - b.operators, 2 * fmul + L * (fmul + fadd));
  EXPECT_DOUBLE_EQ(a.registers - b.registers, 32.0 * L * 3);
  EXPECT_DOUBLE_EQ(a.control - b.control, kControlFfsPerPipelinedLoop);
}

}  // namespace
}  // namespace ttsim
