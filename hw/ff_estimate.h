#pragma once
// FFs of a design, by term, counted from the kernel specification
// (hls/include/kernel_spec.h) like the LUT estimate (hw/lut_estimate.h), with the same
// instance rule per loop:
//  - operators: each FP operator core of every loop's chain, times the FFs of that core
//    (csynth figures of real reports, shared/reference/hls-reports.md §2.6; cores no
//    report shows are assumptions, stated as such);
//  - registers: the arrays the kernel sources completely partition into registers (the
//    transpose's lanes × lanes tiles, transpose_buffers of them) plus one 32-bit register per
//    lane of every lane access site (the word between the bank and its use: an assumption on
//    where Vitis places the pipeline stage). The accumulators (`float acc[kAccSlots][LANES]`,
//    dim 2 partitioned: a kAccSlots-word array per lane read at a runtime slot) are LUTRAM by
//    the storage rule (hw/block_arith.h hls_default_kind), not counted here (nor yet in the
//    LUT estimate);
//  - control: per pipelined loop module, the median FFs beyond the operator cores of the
//    `*_Pipeline_*` modules of real csynth reports (hls/calibration/control_fit.h).
// An unvalidated estimate (no csynth report of a ttsim kernel exists yet): the per-core
// figures are the 4.00 ns cores' at every clock (deeper cores at 300 MHz have more: fadd 318),
// the balancing registers Vitis adds between operators of deep chains are not counted, and the
// fitted control is that of typical integer loops, below the kernels' 64-bit counters and
// contraction cursor; expect it ±40 %.

#include "core/json_view.h"
#include "hw/arch_spec.h"
#include "models/task_graph.h"

namespace ttsim {

/// A design's FF estimate by term (design_ff_terms), flip-flops.
struct FfTerms {
  double operators = 0;  ///< FP operator cores (csynth figures)
  double registers = 0;  ///< transpose tiles and lane-site words of the kernel sources
  double control = 0;    ///< per pipelined loop module (fitted on real csynth reports)
  double total() const { return operators + registers + control; }
  /// {"operators", "registers", "control", "total"}.
  Json to_json() const;
};

/// FFs of one core of operator `op` (kernel_spec.h Opr; 0 for read/write). Throws
/// std::invalid_argument for an unknown operator.
double operator_core_ffs(int op);

/// FFs of the FP operator cores of one instance of each kernel module that runs on `unit`
/// with `lanes` lanes on arrays of `banks` banks, 0: as many as lanes (the instance rule of
/// hw/lut_estimate.h), the loops `omitted` leaves out of the build (ttsim_spec::omitted_loops)
/// excluded. Throws std::invalid_argument for lanes < 1.
double unit_operator_ffs(UnitKind unit, int lanes, int banks = 0, unsigned omitted = 0);

/// FFs of the registers of one instance of each kernel module on `unit` at `lanes` lanes
/// (the file comment's registers term: transpose tiles and lane-site words), over the loops
/// the build does not omit (`omitted`). Throws std::invalid_argument for lanes < 1.
double unit_register_ffs(UnitKind unit, int lanes, unsigned omitted = 0);

/// Control FFs of one pipelined loop module beyond its FP operator cores: the median over
/// designs of each design's median over its `*_Pipeline_*` modules in real csynth reports
/// (shared/data/hls_reports: 909 modules of 9 designs, Vitis HLS 2021.1–2023.2; 39 FF, design
/// medians 8.5–359), fitted by hls/calibration/control_fit.h and pinned to that fit
/// by tests/hls/calibration/control_fit_test. Low / High: the lowest and highest design
/// median (the sensitivity range).
inline constexpr double kControlFfsPerPipelinedLoop = 39;
inline constexpr double kControlFfsPerPipelinedLoopLow = 9;
inline constexpr double kControlFfsPerPipelinedLoopHigh = 359;

/// Control FFs of `pipelined_loops` loop modules: kControlFfsPerPipelinedLoop each.
double control_ffs(double pipelined_loops);

/// The FF estimate of `arch`'s kernel instances: Σ over unit kinds of its instance count ×
/// (operator, register and control FFs of one instance at its lanes).
FfTerms design_ff_terms(const ArchSpec& arch);

/// Every constant of the FF estimate with its unit and source (simulate --json
/// defaults_used): operator_core_ffs {op: {value, unit, source}}, control_ffs_per_pipelined_loop
/// {value, low, high, unit, source}, register_ffs {rule, source}.
Json ff_estimate_json();

}  // namespace ttsim
