#include "hw/ff_estimate.h"

#include <stdexcept>

#include "hls/include/kernel_spec.h"
#include "hw/lut_estimate.h"

namespace ttsim {

namespace {

/// One operator core's FFs and where the figure comes from.
struct OperatorFfs {
  const char* op;
  double ffs;
  const char* source;
};

// Indexed by ttsim_spec::Opr.
constexpr OperatorFfs kOperatorFfs[ttsim_spec::kOprCount] = {
    {"read", 0, "memory port, no operator core"},
    {"write", 0, "memory port, no operator core"},
    {"fadd", 205,
     "fadd full_dsp core (5 stages): 205 FF (Vivado HLS 2019.2, xcu280, 4.00 ns, AutoBridge PageRank csynth.rpt; "
     "318 FF at 3.33 ns with 7 stages on xcu250), hls-reports.md section 2.6"},
    {"fmul", 143, "fmul max_dsp core (4 stages): 143 FF (xcu280 and xcu250 reports), hls-reports.md section 2.6"},
    {"fdiv", 461, "fdiv core (10 stages): 461 FF (xcu280 PageRank report), hls-reports.md section 2.6"},
    {"fexp", 600, "assumption: no report here shows an fexp core; 600 FF assumed"},
    {"flog", 1000, "assumption: no report here shows an flog core; 1,000 FF assumed"},
    {"fsqrt", 400, "assumption: no report here shows an fsqrt core; 400 FF assumed"},
    {"fcmp", 66, "fcmp core (2 stages): 66 FF (xcu280 PageRank report), hls-reports.md section 2.6"},
};

}  // namespace

double operator_core_ffs(int op) {
  if (op < 0 || op >= ttsim_spec::kOprCount) throw std::invalid_argument("operator_core_ffs: unknown operator");
  return kOperatorFfs[op].ffs;
}

double unit_operator_ffs(UnitKind unit, int lanes, int banks, unsigned omitted) {
  return unit_operator_cores(unit, lanes, operator_core_ffs, banks, omitted);
}

double unit_register_ffs(UnitKind unit, int lanes, unsigned omitted) {
  if (lanes < 1) throw std::invalid_argument("unit_register_ffs: lanes must be >= 1");
  double ffs = 0;
  for_each_unit_loop(unit, omitted, [&](const ttsim_spec::LoopSpec& loop) {
    // One 32-bit word per lane of every lane access site.
    for (int a = 0; a < loop.n_access; ++a) {
      const ttsim_spec::ArrayAccess& acc = loop.access[a];
      if (acc.kind == ttsim_spec::kLaneAccess) ffs += 32.0 * lanes * (acc.reads + acc.writes);
    }
    // The accumulators of the register recurrences (acc[kAccSlots][LANES], dim 2 partitioned)
    // are kAccSlots-word arrays read at a runtime slot: LUTRAM by the storage rule
    // (hw/block_arith.h hls_default_kind), not flip-flops; not counted here.
    // The transpose's tile buffers are LUTRAM (hls/kernels/add.h detail::tile_write_row);
    // their LANES memories' read words are registered (the LUTRAM's read latency of 1).
    if (loop.trip == ttsim_spec::kTripTranspose) ffs += 32.0 * lanes;
  });
  return ffs;
}

double control_ffs(double pipelined_loops) { return kControlFfsPerPipelinedLoop * pipelined_loops; }

FfTerms design_ff_terms(const ArchSpec& arch) {
  FfTerms t;
  for (int k = 0; k < kUnitKinds; ++k) {
    const double n = arch.units[k].count;
    if (n <= 0) continue;
    const auto unit = static_cast<UnitKind>(k);
    const int lanes = arch.units[k].lanes;
    const unsigned omitted = omitted_loops(arch);
    t.operators += n * unit_operator_ffs(unit, lanes, arena_banks(arch), omitted);
    t.registers += n * unit_register_ffs(unit, lanes, omitted);
    t.control += n * control_ffs(unit_pipelined_loops(unit, omitted));
  }
  return t;
}

Json FfTerms::to_json() const {
  return {{"operators", operators}, {"registers", registers}, {"control", control}, {"total", total()}};
}

Json ff_estimate_json() {
  Json ops = Json::object();
  for (const OperatorFfs& o : kOperatorFfs) {
    if (o.ffs > 0) ops[o.op] = {{"value", o.ffs}, {"unit", "FF per core"}, {"source", o.source}};
  }
  return {{"operator_core_ffs", ops},
          {"control_ffs_per_pipelined_loop",
           {{"value", kControlFfsPerPipelinedLoop},
            {"low", kControlFfsPerPipelinedLoopLow},
            {"high", kControlFfsPerPipelinedLoopHigh},
            {"unit", "FF per pipelined loop module"},
            {"source",
             "median over designs of each design's median (module FF - FP operator core FF) over its _Pipeline_ "
             "modules in real csynth reports (shared/data/hls_reports); low/high: lowest/highest design median; "
             "hls/calibration/control_fit.h"}}},
          {"register_ffs",
           {{"unit", "FF"},
            {"rule", "per loop: 32 x lanes per lane access site (assumption: one register stage between a bank and "
                     "its use); 32 x lanes for the transpose tile buffers' registered LUTRAM reads; the accumulators (kAccSlots words per lane, runtime slot index) are LUTRAM by "
                     "the storage rule and not counted"},
            {"source", "hls/kernels/add.h detail::tile_read_column, hls/include/kernel_spec.h access sites"}}}};
}

}  // namespace ttsim
