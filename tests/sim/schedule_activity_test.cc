// The schedule-based memory activity equals the SystemC bank occupations when port
// contention is modelled (so moving step_activity onto it changed no SystemC figure),
// and still counts the memories' traffic when contention is off.
#include "sim/schedule_activity.h"
#include "hw/lut_estimate.h"

#include <gtest/gtest.h>
#include <string>

#include "hls/include/kernel_spec.h"
#include "sim/step_power.h"
#include "sim/step_sim.h"

namespace ttsim {
namespace {

struct Busy {
  double bram = 0, uram = 0;
};

Busy slice_busy(const StepResult& s) {
  Busy b;
  for (const auto& sl : s.run.bank_slices) {
    const auto& bank = s.banks.banks[sl.bank];
    (bank.kind == BlockKind::kBram36 ? b.bram : b.uram) +=
        static_cast<double>(sl.end - sl.start) * static_cast<double>(bank.blocks);
  }
  return b;
}

TEST(ScheduleActivity, MemoryBusyEqualsSystemcBankOccupationsUnderContention) {
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  ASSERT_TRUE(arch.port_contention);
  const StepResult s = simulate_step(model, arch, device);
  ASSERT_FALSE(s.run.bank_slices.empty());
  const FpgaActivity a = step_activity(s, arch, device);
  const double cycles = static_cast<double>(s.run.schedule.makespan);
  const Busy b = slice_busy(s);
  EXPECT_NEAR(a.bram36.busy_fraction, b.bram / (a.bram36.units * cycles), 1e-12);
  EXPECT_NEAR(a.uram288.busy_fraction, b.uram / (a.uram288.units * cycles), 1e-12);
  EXPECT_GT(a.bram36.busy_fraction, 0);
  EXPECT_DOUBLE_EQ(a.dsp.units, static_cast<double>(arch_dsp(arch, device)));
}

// The DSPs power charges are the built ones: a by_add design's (column_acc omitted) equal
// arch_dsp's, below those of the same design built in place.
TEST(ScheduleActivity, DspUnitsAreTheBuiltLoopsOfAByAddDesign) {
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const ArchSpec arch = load_arch_spec("configs/arch/u50_unit_lanes.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  ASSERT_TRUE(arch.accumulate_by_add);
  const StepResult s = simulate_step(model, arch, device);
  const FpgaActivity a = step_activity(s, arch, device);
  EXPECT_DOUBLE_EQ(a.dsp.units, static_cast<double>(arch_dsp(arch, device)));
  ArchSpec in_place = arch;
  in_place.accumulate_by_add = false;
  EXPECT_LT(a.dsp.units, static_cast<double>(arch_dsp(in_place, device)));
}

TEST(ScheduleActivity, WithoutContentionMemoriesStillCount) {
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  arch.port_contention = false;
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const StepResult s = simulate_step(model, arch, device);
  EXPECT_TRUE(s.run.bank_slices.empty());  // the engine reserves no ports
  EXPECT_GT(step_activity(s, arch, device).bram36.busy_fraction, 0);
}

TEST(ScheduleActivity, HandBuiltScheduleGivesTheFormula) {
  // Two tasks: a contraction of 10 cycles touching a 4-block BRAM bank, an add of 5
  // cycles touching the same bank and a 2-block URAM bank; step of 20 cycles.
  TaskGraph g;
  g.buffers.resize(2);
  Task t0;
  t0.id = 0;
  t0.unit = UnitKind::kContraction;
  t0.reads = {0, 0};
  Task t1;
  t1.id = 1;
  t1.unit = UnitKind::kElementwise;
  t1.reads = {0};
  t1.writes = {1};
  g.tasks = {t0, t1};
  BankMap banks;
  banks.banks = {BankInstance{"b0", BlockKind::kBram36, 4}, BankInstance{"b1", BlockKind::kUram288, 2}};
  banks.bank_of_buffer = {0, 1};
  banks.bram36_blocks = 4;
  banks.uram_blocks = 2;
  const BankActivityShape shape = bank_activity_shape(g, banks, {100, 100});
  EXPECT_EQ(shape.task_bram36_blocks, (std::vector<std::int64_t>{4, 4}));  // bank counted once
  EXPECT_EQ(shape.task_uram288_blocks, (std::vector<std::int64_t>{0, 2}));
  Schedule sch;
  sch.tasks = {{0, 10, 0}, {10, 15, 0}};
  sch.makespan = 20;
  ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  std::array<int, kUnitKinds> inst{};
  inst[static_cast<int>(UnitKind::kContraction)] = 1;
  inst[static_cast<int>(UnitKind::kElementwise)] = 1;
  // Two modules: the contraction (642 argument bits) called from 5 sites, an add from 1.
  const std::vector<ModuleCalls> calls{{642, 5}, {192, 1}};
  const FpgaActivity a = schedule_activity(g, sch, inst, shape, calls, arch, device);
  EXPECT_DOUBLE_EQ(a.bram36.busy_fraction, (10.0 * 4 + 5.0 * 4) / (4 * 20));
  EXPECT_DOUBLE_EQ(a.uram288.busy_fraction, (5.0 * 2) / (2 * 20));
  const int c = static_cast<int>(UnitKind::kContraction), e = static_cast<int>(UnitKind::kElementwise);
  const double dc = static_cast<double>(unit_dsp(UnitKind::kContraction, arch.units[c].lanes, device));
  const double de = static_cast<double>(unit_dsp(UnitKind::kElementwise, arch.units[e].lanes, device));
  EXPECT_DOUBLE_EQ(a.dsp.units, dc + de);
  EXPECT_DOUBLE_EQ(a.dsp.busy_fraction, (10 * dc + 5 * de) / ((dc + de) * 20));
  int arena_banks = 1;
  for (const UnitSpec& u : arch.units) arena_banks = std::max(arena_banks, u.lanes);
  // The contraction uses one array, the elementwise unit two: only the elementwise unit's
  // read sites select (2:1, one LUT6 per bit); each array has at most two users, one per
  // port, so no port multiplexer.
  EXPECT_EQ(shape.unit_arrays[c], 1);
  EXPECT_EQ(shape.unit_arrays[e], 2);
  const LutTerms terms = design_lut_terms(inst, arch, shape, calls);
  // 5 sites: a 5:1 select per bit, two LUT6 in the 4:1 tree; one site selects nothing.
  EXPECT_DOUBLE_EQ(terms.call_arguments, 642.0 * 2);
  EXPECT_DOUBLE_EQ(terms.array_select, 32.0 * (arena_banks * unit_read_sites(UnitKind::kElementwise, true) +
                                               unit_read_sites(UnitKind::kElementwise, false)));
  EXPECT_DOUBLE_EQ(terms.port_mux, 0);
  EXPECT_DOUBLE_EQ(terms.local_memories,
                   unit_local_memory_luts(UnitKind::kContraction, arch.units[c].lanes, arena_banks) +
                       unit_local_memory_luts(UnitKind::kElementwise, arch.units[e].lanes, arena_banks));
  EXPECT_DOUBLE_EQ(terms.control, kControlLutsPerPipelinedLoop * (unit_pipelined_loops(UnitKind::kContraction) +
                                                                  unit_pipelined_loops(UnitKind::kElementwise)));
  EXPECT_DOUBLE_EQ(a.kilo_lut.units * 1000,
                   unit_operator_luts(UnitKind::kContraction, arch.units[c].lanes) +
                       unit_operator_luts(UnitKind::kElementwise, arch.units[e].lanes) + terms.control +
                       terms.array_select + terms.local_memories + terms.call_arguments +
                       unit_bank_network_luts(UnitKind::kContraction, arch.units[c].lanes, arena_banks) +
                       unit_bank_network_luts(UnitKind::kElementwise, arch.units[e].lanes, arena_banks));
  // A third user of one array: its ports are shared 2:1 (ceil(3 / 2) = 2 users per port).
  std::array<int, kUnitKinds> three = inst;
  three[e] = 2;
  const LutTerms t3 = design_lut_terms(three, arch, shape, calls);
  EXPECT_DOUBLE_EQ(t3.port_mux, 1.0 * 2 * shape.arrays[0].port_bits);
  EXPECT_EQ(shape.arrays[0].port_bits, 32 + 12 + 1);  // 4 BRAM36 in one bank: 4,096 words
}

}  // namespace
}  // namespace ttsim

// The top's argument multiplexers: an n:1 select per argument bit over the module's call
// sites, none for one site; the range maps the same select (F7/F8 low, a 2:1 priority chain high).
TEST(CallArgumentLuts, OneSelectPerBitOverTheCallSites) {
  using ttsim::MuxBound;
  EXPECT_DOUBLE_EQ(ttsim::call_argument_luts(642, 0), 0.0);
  EXPECT_DOUBLE_EQ(ttsim::call_argument_luts(642, 1), 0.0);
  EXPECT_DOUBLE_EQ(ttsim::call_argument_luts(642, 4), 642.0);          // one 4:1 LUT6
  EXPECT_DOUBLE_EQ(ttsim::call_argument_luts(192, 53), 192.0 * 18);    // ceil(52 / 3)
  EXPECT_DOUBLE_EQ(ttsim::call_argument_luts(192, 53, MuxBound::kLow), 192.0 * (2 * 8 + 1));  // two 32:1 blocks
  EXPECT_DOUBLE_EQ(ttsim::call_argument_luts(192, 53, MuxBound::kHigh), 192.0 * 26);  // ceil(52 / 2)
  EXPECT_DOUBLE_EQ(ttsim::call_argument_luts(10, 2, MuxBound::kHigh), 10.0);
  EXPECT_DOUBLE_EQ(ttsim::call_argument_luts(10, 4, MuxBound::kHigh), 20.0);  // the chain's 2 > the tree's 1
  EXPECT_THROW(ttsim::call_argument_luts(-1, 2), std::invalid_argument);
  EXPECT_THROW(ttsim::call_argument_luts(1, -2), std::invalid_argument);
}

TEST(BankNetworkLuts, MultiplexersOfTheAccessSites) {
  // GELU unit, 8 lanes on 64-bank arenas: gelu reads x (a lane read: 8 lanes × 64:1,
  // ceil(63/3) = 21 LUT6 per bit) and writes y (64 banks × 8:1, ceil(7/3) = 3); gelu_grad
  // reads x and dy and writes dx. 32 bits: 32 · (3 · 8 · 21 + 2 · 64 · 3) = 28,416.
  EXPECT_DOUBLE_EQ(ttsim::unit_bank_network_luts(ttsim::UnitKind::kGelu, 8, 64), 28416.0);
  // Contraction, 64 lanes on 64 banks: every lane site rotates by the barrel rotator
  // (192 LUT6 per bit), every scalar read is a 64:1 multiplexer (21).
  {
    double want = 0;
    for (const auto& k : ttsim_spec::kKernelSpecs) {
      if (std::string(k.task_op) != "contraction") continue;
      for (int l = 0; l < k.n_loops; ++l) {
        for (int a = 0; a < k.loops[l].n_access; ++a) {
          const auto& acc = k.loops[l].access[a];
          if (std::string(acc.array) == "index") continue;
          want += 32.0 * (acc.kind == ttsim_spec::kLaneAccess ? (acc.reads + acc.writes) * 192 : acc.reads * 21);
        }
      }
    }
    EXPECT_DOUBLE_EQ(ttsim::unit_bank_network_luts(ttsim::UnitKind::kContraction, 64, 64), want);
  }
  // One bank and one lane: no multiplexer at all.
  EXPECT_DOUBLE_EQ(ttsim::unit_bank_network_luts(ttsim::UnitKind::kGelu, 1, 1), 0.0);
  // Fewer banks, smaller networks.
  EXPECT_LT(ttsim::unit_bank_network_luts(ttsim::UnitKind::kContraction, 16, 16),
            ttsim::unit_bank_network_luts(ttsim::UnitKind::kContraction, 64, 64) / 3);
  EXPECT_THROW(ttsim::unit_bank_network_luts(ttsim::UnitKind::kGelu, 0, 8), std::invalid_argument);
}

// The multiplexer range (hw/lut_estimate.h MuxBound) maps the same structures: F7/F8/F9
// selects at the low end, one 2:1 rotator stage per LUT level at the high end.
TEST(BankNetworkLuts, RangeMapsTheSameStructures) {
  using ttsim::MuxBound;
  EXPECT_EQ(ttsim::wide_mux_luts(1), 0);
  EXPECT_EQ(ttsim::wide_mux_luts(4), 1);
  EXPECT_EQ(ttsim::wide_mux_luts(8), 2);    // the 4:1 tree takes 3
  EXPECT_EQ(ttsim::wide_mux_luts(16), 4);   // 5
  EXPECT_EQ(ttsim::wide_mux_luts(32), 8);   // 11
  EXPECT_EQ(ttsim::wide_mux_luts(64), 17);  // two 32:1 slices and a 2:1 LUT; 21
  // GELU, 8 lanes on 64 banks: direct selects only. Low: lane reads 8 x 17, writes 64 x 2;
  // high: the estimate (no rotator).
  EXPECT_DOUBLE_EQ(ttsim::unit_bank_network_luts(ttsim::UnitKind::kGelu, 8, 64, MuxBound::kLow),
                   32.0 * (3 * 8 * 17 + 2 * 64 * 2));
  EXPECT_DOUBLE_EQ(ttsim::unit_bank_network_luts(ttsim::UnitKind::kGelu, 8, 64, MuxBound::kHigh),
                   ttsim::unit_bank_network_luts(ttsim::UnitKind::kGelu, 8, 64));
  // Contraction, 64 lanes on 64 banks: every lane site a rotator, 64 x 6 LUT6 per bit at the
  // high end instead of 192; its scalar reads 64:1 (17 at the low end, 21 otherwise).
  double low = 0, high = 0;
  for (const auto& k : ttsim_spec::kKernelSpecs) {
    if (std::string(k.task_op) != "contraction") continue;
    for (int l = 0; l < k.n_loops; ++l) {
      for (int a = 0; a < k.loops[l].n_access; ++a) {
        const auto& acc = k.loops[l].access[a];
        if (std::string(acc.array) == "index") continue;
        const bool lane = acc.kind == ttsim_spec::kLaneAccess;
        low += 32.0 * (lane ? (acc.reads + acc.writes) * 192 : acc.reads * 17);
        high += 32.0 * (lane ? (acc.reads + acc.writes) * 384 : acc.reads * 21);
      }
    }
  }
  EXPECT_DOUBLE_EQ(ttsim::unit_bank_network_luts(ttsim::UnitKind::kContraction, 64, 64, MuxBound::kLow), low);
  EXPECT_DOUBLE_EQ(ttsim::unit_bank_network_luts(ttsim::UnitKind::kContraction, 64, 64, MuxBound::kHigh), high);
}

// An omitted column_acc (ttsim_spec::kOmitContractColumnAcc) takes its loop out of every LUT
// term of the contraction: one pipelined loop fewer, its operator cores (alpha fmul per
// window, L fmul + L fadd), its B and C lane reads, C lane write and A window read; no other unit
// changes.
TEST(BankNetworkLuts, AnOmittedLoopBuildsNothing) {
  using ttsim::UnitKind;
  const unsigned omit = ttsim_spec::kOmitContractColumnAcc;
  EXPECT_EQ(ttsim::unit_pipelined_loops(UnitKind::kContraction) - ttsim::unit_pipelined_loops(UnitKind::kContraction, omit),
            1);
  const ttsim::UnitSites& all = ttsim::unit_sites(UnitKind::kContraction);
  const ttsim::UnitSites& built = ttsim::unit_sites(UnitKind::kContraction, omit);
  EXPECT_EQ(all.lane_reads - built.lane_reads, 2);    // B, C_old
  EXPECT_EQ(all.lane_writes - built.lane_writes, 1);  // C
  EXPECT_EQ(all.window_reads - built.window_reads, 1);  // A
  const double fadd = ttsim::operator_core_luts(ttsim_spec::kFadd), fmul = ttsim::operator_core_luts(ttsim_spec::kFmul);
  EXPECT_DOUBLE_EQ(ttsim::unit_operator_luts(UnitKind::kContraction, 128, 64) -
                       ttsim::unit_operator_luts(UnitKind::kContraction, 128, 64, omit),
                   2 * fmul + 128 * (fmul + fadd));
  EXPECT_LT(ttsim::unit_bank_network_luts(UnitKind::kContraction, 128, 64, ttsim::MuxBound::kEstimate, false, omit),
            ttsim::unit_bank_network_luts(UnitKind::kContraction, 128, 64));
  EXPECT_EQ(ttsim::unit_pipelined_loops(UnitKind::kElementwise, omit), ttsim::unit_pipelined_loops(UnitKind::kElementwise));
  EXPECT_THROW(ttsim::unit_sites(UnitKind::kContraction, ttsim_spec::kOmittedLoopMasks), std::invalid_argument);
}

// Kernel-local LUTRAM: the accumulators counted from the recurrences through non-arena
// variables (hls/kernels: contraction acc[kAccSlots][LANES] in column and column_acc,
// acc[kAccSlots][2] in dot, acc[kAccSlots] in scalar; LayerNorm grad accg and accb per lane,
// acc1 and acc2 one each, as the mean's and variance's acc; column_sum acc per lane), and the
// transpose's tile buffers.
TEST(LocalMemoryLuts, AccumulatorsAndTransposeTiles) {
  using ttsim::UnitKind;
  EXPECT_EQ(ttsim_hls::lutram_luts(16), 64);        // one 64 x 1 cell of 2 LUT6 per bit
  EXPECT_EQ(ttsim_hls::lutram_luts(192), 32 * 7);   // three cells and a 3:1 select per bit
  const ttsim::UnitSites& c = ttsim::unit_sites(UnitKind::kContraction);
  EXPECT_EQ(c.lane_accumulators, 2);
  EXPECT_EQ(c.pair_accumulators, 1);
  EXPECT_EQ(c.single_accumulators, 1);
  EXPECT_EQ(ttsim::unit_sites(UnitKind::kContraction, ttsim_spec::kOmitContractColumnAcc).lane_accumulators, 1);
  const ttsim::UnitSites& g = ttsim::unit_sites(UnitKind::kLayerNorm);  // layernorm and its gradient
  EXPECT_EQ(g.lane_accumulators, 2);    // accg, accb
  EXPECT_EQ(g.single_accumulators, 4);  // mean and var acc; acc1, acc2
  const double m = ttsim_hls::lutram_luts(ttsim_spec::kAccSlots);
  // 128 lanes on 64 banks: two pair windows.
  EXPECT_DOUBLE_EQ(ttsim::unit_local_memory_luts(UnitKind::kContraction, 128, 64), (2 * 128 + 2 + 1) * m);
  // The elementwise unit: column_sum's lane accumulators and one transpose loop. At 64 lanes,
  // 3 buffers: 64 memories of 192 words (224 LUT each) with a 6-bit address subtract, two
  // 64-word barrel rotators of 3 LUT6 per word and bit.
  EXPECT_EQ(ttsim_hls::transpose_tile_luts(64), 64 * (224 + 6) + 2 * 32 * 64 * 3);
  EXPECT_DOUBLE_EQ(ttsim::unit_local_memory_luts(UnitKind::kElementwise, 64, 64),
                   64 * m + ttsim_hls::transpose_tile_luts(64));
  // Fewer than a register tile's (NB · lanes):1 select per lane and bit at every width it
  // replaced (8, 16, 64 lanes).
  for (int lanes : {8, 16, 64}) {
    EXPECT_LT(ttsim_hls::transpose_tile_luts(lanes),
              32 * lanes * ttsim_hls::mux_luts(ttsim_spec::transpose_buffers(lanes) * lanes))
        << lanes;
  }
  EXPECT_THROW(ttsim::unit_local_memory_luts(UnitKind::kElementwise, 0, 64), std::invalid_argument);
}

// The range: the memories packed densely at the low end (RAM32M16: 32 x 14 bits in 8 LUT6,
// so a 16-word 32-bit memory in 3 of them; RAM64M8: 64 x 7 bits in 8 LUT6, five per 64 words
// of a 192-word tile memory and its 3:1 select), the rotators one 2:1 stage per LUT6 at the
// high end; the estimate's memories are the high end's.
TEST(LocalMemoryLuts, RangeMapsTheSameMemories) {
  using ttsim::MuxBound;
  using ttsim::UnitKind;
  EXPECT_EQ(ttsim_hls::lutram_luts_dense(16), 24);
  EXPECT_EQ(ttsim_hls::lutram_luts_dense(192), 3 * 40 + 32);
  const double m_low = ttsim_hls::lutram_luts_dense(ttsim_spec::kAccSlots);
  EXPECT_DOUBLE_EQ(ttsim::unit_local_memory_luts(UnitKind::kElementwise, 64, 64, 0, MuxBound::kLow),
                   64 * m_low + 64 * (152 + 6) + 2 * 32 * 64 * 3);
  EXPECT_DOUBLE_EQ(ttsim::unit_local_memory_luts(UnitKind::kElementwise, 64, 64, 0, MuxBound::kHigh),
                   64 * ttsim_hls::lutram_luts(ttsim_spec::kAccSlots) + 64 * (224 + 6) + 2 * 32 * 64 * 6);
  EXPECT_DOUBLE_EQ(ttsim::unit_local_memory_luts(UnitKind::kContraction, 128, 64, 0, MuxBound::kLow),
                   (2 * 128 + 2 + 1) * m_low);
  EXPECT_DOUBLE_EQ(ttsim::unit_local_memory_luts(UnitKind::kContraction, 128, 64, 0, MuxBound::kHigh),
                   ttsim::unit_local_memory_luts(UnitKind::kContraction, 128, 64));
}
