#pragma once
// LUTs of the FP32 operator cores of a unit, counted from the kernel specification
// (hls/include/kernel_spec.h): per loop of every kernel module the unit runs, each
// operator of the loop's chain has lanes instances (kOnce in a loop with lane accesses),
// lanes − 1 (kTree), one per lane window (kWindow: lane_site_accesses(lanes, banks)), one per
// output of a dot iteration (kPairWindow: pair_windows(lanes, banks)) or one
// (kScalar, or any operator of a loop without lane accesses) —
// the instance rule of hw/arch_spec.h loop_dsp (Vitis outlines each pipelined loop into
// its own module, so loops do not share operators) — times the LUTs of that core.
// Per-core LUTs are the csynth figures of real reports (shared/reference/hls-reports.md
// §2.6); cores no report shows are assumptions, stated as such.

#include <array>
#include <cstdint>

#include "core/json_view.h"
#include "hls/include/kernel_spec.h"
#include "models/task_graph.h"

namespace ttsim {

/// A design's LUT estimate by term (sim/schedule_activity.h design_lut_terms), LUTs.
struct LutTerms {
  double operators = 0;     ///< FP operator cores (csynth figures)
  double networks = 0;      ///< lane / bank rotation networks of the access sites
  double control = 0;       ///< per pipelined loop module (fitted on real csynth reports)
  double array_select = 0;  ///< read sites selecting among the arrays bound to an instance
  double port_mux = 0;      ///< multiplexers in front of the arrays' bank ports
  /// Kernel-local LUTRAM memories: the accumulators (a kAccSlots-word memory per recurrence
  /// variable and lane, pair window or loop: UnitSites) and the transpose's tile buffers
  /// with their rotators and addresses (ttsim_hls::transpose_tile_luts).
  double local_memories = 0;
  /// The top's argument multiplexers: each module instance takes its scalar arguments from
  /// one of its call sites (call_argument_luts).
  double call_arguments = 0;
  /// networks + array_select + port_mux + local_memories + call_arguments with every
  /// multiplexer and LUTRAM memory mapped at the low / high end of its range (MuxBound kLow /
  /// kHigh); not part of total().
  double mux_low = 0, mux_high = 0;
  double total() const {
    return operators + networks + control + array_select + port_mux + local_memories + call_arguments;
  }
  /// {"operators", ..., "total"}.
  Json to_json() const;
};

/// One operator core's LUTs and where the figure comes from.
struct OperatorLuts {
  const char* op;      ///< kernel_spec.h operator name ("fadd", "fmul", ...)
  double luts;         ///< LUTs of one core (csynth estimate)
  const char* source;  ///< report and core name, or "assumption: ..."
};

/// LUTs of one core of operator `op` (kernel_spec.h Opr; 0 for read/write).
double operator_core_luts(int op);

/// Table of every FP operator core's LUTs with its source (for JSON output and docs).
Json operator_luts_json();

/// Every constant of the LUT estimate with its unit and source, the one description
/// `simulate --json` (defaults_used) and `baseline` print: operator_core_luts
/// (operator_luts_json), control_luts_per_pipelined_loop {value, low, high, unit, source},
/// bank_network_luts and binding_multiplexer_luts {rule, source}.
Json lut_estimate_json();

/// Σ per_core(op) over the FP operator cores of one instance of each kernel module that runs
/// on `unit` with `lanes` lanes (the instance rule above): the LUT estimate's operators with
/// operator_core_luts, the FF estimate's (hw/ff_estimate.h) with its per-core FFs. Throws
/// std::invalid_argument for lanes < 1. `banks`: of the arrays the unit accesses (0: as many
/// as lanes); a kWindow operator has lane_site_accesses(lanes, banks) cores. `omitted`: the
/// loops the build leaves out (ttsim_spec::omitted_loops), counted nothing.
double unit_operator_cores(UnitKind unit, int lanes, double (*per_core)(int op), int banks = 0,
                           unsigned omitted = 0);

/// LUTs of the FP operator cores of one instance of each kernel module that runs on
/// `unit` with `lanes` lanes on `banks` banks (rule above), the loops `omitted` leaves out of
/// the build (ttsim_spec::omitted_loops) excluded. Throws std::invalid_argument for lanes < 1.
double unit_operator_luts(UnitKind unit, int lanes, int banks = 0, unsigned omitted = 0);

/// True when the kernel of ttsim_spec::kKernelSpecs[kernel] (its task_op, a
/// to_string(TaskOp)) runs on a unit of kind `unit`; false for an index outside the table.
bool kernel_runs_on(int kernel, UnitKind unit);

/// Calls `f(const ttsim_spec::LoopSpec&)` for every loop of every kernel module that runs on
/// `unit` (kKernelSpecs order) and that the build does not omit (`omitted`:
/// ttsim_spec::omitted_loops): the one walk the LUT, FF and bank-network estimates share.
template <class F>
void for_each_unit_loop(UnitKind unit, unsigned omitted, F&& f) {
  for (int ki = 0; ki < ttsim_spec::kKernelSpecCount; ++ki) {
    if (!kernel_runs_on(ki, unit)) continue;
    const ttsim_spec::KernelSpec& k = ttsim_spec::kKernelSpecs[ki];
    for (int l = 0; l < k.n_loops; ++l) {
      if (ttsim_spec::loop_built(k.loops[l], omitted)) f(k.loops[l]);
    }
  }
}

/// Control LUTs of one pipelined loop module beyond its FP operator cores (its FSM, trip
/// and address counters, integer arithmetic, pipeline enables, operand multiplexers):
/// the median over designs of each design's median over its `*_Pipeline_*` modules in
/// real csynth reports (shared/data/hls_reports: 909 modules of 9 designs, Vitis HLS
/// 2021.1–2023.2), fitted by hls/calibration/control_fit.h and pinned to that fit by
/// tests/hls/calibration/control_fit_test. Low / High: the lowest and highest design
/// median (the sensitivity range).
inline constexpr double kControlLutsPerPipelinedLoop = 296;
inline constexpr double kControlLutsPerPipelinedLoopLow = 52;
inline constexpr double kControlLutsPerPipelinedLoopHigh = 476;

/// How the multiplexers of the structure terms (bank networks, array select, port
/// multiplexers, the local memories' rotators) and the LUTRAM memories are mapped onto LUT6,
/// for the estimate and the two ends of its range (the LUTRAM: unit_local_memory_luts):
///  - kEstimate: every n:1 select a tree of 4:1 multiplexers, one LUT6 per bit each
///    (mux_luts), a barrel rotator two 2:1 stages per LUT6 (hls/include/banked.h);
///  - kLow: selects wider than 4:1 use the slice's F7/F8/F9 multiplexers (UG574, CLB user
///    guide: an 8:1 select in 2 LUT6, 16:1 in 4, 32:1 in one slice of 8; wide_mux_luts),
///    a rotator as in the estimate (its stages are already 4:1 per LUT6);
///  - kHigh: a rotator one 2:1 stage per LUT level (B · ceil(log2 B) LUT6 per bit), every
///    select as in the estimate (a 4:1 tree is the natural mapping).
/// The structure each site builds (direct multiplexers or a rotator) is the kernel's, fixed
/// at compile time; only its mapping varies. Bounds from structure, not csynth figures.
enum class MuxBound { kEstimate, kLow, kHigh };

/// LUT6 per bit of an n:1 select built with the slice's F7/F8/F9 multiplexers (UG574): 1 up
/// to 4:1, 2 up to 8:1, 4 up to 16:1, 8 up to 32:1, and 32:1 blocks joined by a 4:1 tree
/// above; 0 for n <= 1.
int wide_mux_luts(int n);

/// LUT6 per bit of an n:1 select under `bound` (MuxBound): mux_luts(n), or wide_mux_luts(n)
/// for kLow.
int select_luts(int n, MuxBound bound);

/// The LUT estimate of `t` with its multiplexer-structure and local-memory terms at the low
/// or high end of their range (LutTerms::mux_low / mux_high), LUTs.
double lut_total_at_mux_bound(const LutTerms& t, bool high);

/// One kernel module's calls as the top makes them: the bits of its scalar arguments
/// (kTtsimModules argument_bits, hls/kernels/modules.h) and the call sites of the top that
/// call it (machine::KernelInstance::call_sites).
struct ModuleCalls {
  int argument_bits = 0;
  int call_sites = 0;
};

/// LUT6 of the multiplexers in front of one module's scalar arguments, which the top drives
/// from the call site its FSM is in: an n:1 select per argument bit for n = call_sites
/// (none for one site). Every bit is priced as a runtime value — a bit that is a constant at
/// each site folds into the state decode and costs less, which the estimate does not count.
/// Per bit, by `bound`: kEstimate mux_luts(n) (a 4:1 tree, as the other selects); kLow
/// wide_mux_luts(n); kHigh the larger of mux_luts(n) and ceil((n − 1) / 2): the priority chain
/// of 2:1 selects on the FSM's state bits that Vitis writes ("if state N ... else if ..."),
/// mapped unmerged, two stages (state, value, chain: five inputs) per LUT6. Throws
/// std::invalid_argument for negative bits or sites.
double call_argument_luts(int argument_bits, int call_sites, MuxBound bound = MuxBound::kEstimate);

/// Pipelined loops of one instance of each kernel module that runs on `unit` (every built loop
/// of the kernel specification is pipelined and outlined into its own RTL module).
int unit_pipelined_loops(UnitKind unit, unsigned omitted = 0);

/// LUTs of the kernel-local LUTRAM memories of one instance of `unit` at `lanes` lanes on
/// `banks`-bank arenas (LutTerms::local_memories): its accumulators, kAccSlots words each
/// (lanes, pair_windows(lanes, banks) or one memory each: UnitSites), and per transpose loop
/// its tile buffers (ttsim_hls::transpose_tile_luts). `bound`: kEstimate and kHigh price
/// each memory at ttsim_hls::lutram_luts (RAM64X1D cells, the upper figure), kLow at
/// lutram_luts_dense (RAM32M16 / RAM64M8); the tile's rotators as the lane networks' under
/// the same bound (B · ceil(log2 B) per bit at kHigh). std::invalid_argument for lanes < 1
/// or an unknown `omitted` mask.
double unit_local_memory_luts(UnitKind unit, int lanes, int banks, unsigned omitted = 0,
                              MuxBound bound = MuxBound::kEstimate);

/// Control LUTs of `pipelined_loops` loop modules: kControlLutsPerPipelinedLoop each.
double control_luts(double pipelined_loops);

/// True for a kernel-specification array that is one of the top's int tables ("index": TTM
/// slice offsets; "labels": the loss's labels, read from the same array) rather than a
/// banked float arena: its sites take no bank network or array select.
bool int_table_array(const char* array);

/// The access sites and loops of one instance of each kernel module that runs on a unit,
/// summed over the kernel specification once (unit_sites): what the LUT estimate's network,
/// array-select and control terms multiply.
struct UnitSites {
  int lane_reads = 0;       ///< lane read sites of the float arenas (int tables excluded)
  int lane_writes = 0;      ///< lane write sites of the float arenas
  int scalar_reads = 0;     ///< scalar (one-word) read sites of the float arenas
  int window_reads = 0;     ///< window-scalar read sites (one scalar read per lane window)
  /// Loops with kPairWindow operators (the dot form): with pair_windows 2 their one-word C read
  /// and write are a 2-word lane window each (hls/kernels/contract.h dot_iteration).
  int pair_loops = 0;
  int pipelined_loops = 0;  ///< loops of the unit's modules (each pipelined and outlined)
  /// Transpose loops (trip kTripTranspose), each with its tile buffers (transpose_tile_luts).
  int transpose_loops = 0;
  /// Accumulator memories (kAccSlots words each) of the other loops: a recurrence through a
  /// variable that is no arena array of the loop is a kernel-local array partitioned along
  /// the lanes — one memory per lane when its operators are kOnce, per pair window when
  /// kPairWindow, else one (hls/kernels: acc[kAccSlots][LANES], [kAccSlots][2], [kAccSlots]).
  int lane_accumulators = 0, pair_accumulators = 0, single_accumulators = 0;
  /// Operator cores by ttsim_spec::Opr and the instance rule of unit_operator_cores:
  /// per_lane[op] cores with lanes instances, per_tree[op] with lanes − 1, per_window[op]
  /// with one per lane window, per_pair[op] with pair_windows(lanes, banks), single[op] with one.
  std::array<int, ttsim_spec::kOprCount> per_lane{}, per_tree{}, per_window{}, per_pair{}, single{};
};

/// The sites of `unit` (UnitSites) over the loops the build does not omit (`omitted` <
/// ttsim_spec::kOmittedLoopMasks, else std::invalid_argument), computed for every unit kind
/// and mask on first use (the kernel specification is a compile-time table).
const UnitSites& unit_sites(UnitKind unit, unsigned omitted = 0);

/// Read access sites of the float arenas (`index` tables excluded) over every loop of every
/// kernel module that runs on `unit`: lane reads when `lane`, else scalar reads. Each
/// selects its words among the arrays bound to the module (sim/schedule_activity.h
/// design_luts). Scalar reads count a window-scalar site `windows` times (the unit's
/// lane_site_accesses(lanes, banks)). `omitted`: as unit_sites.
int unit_read_sites(UnitKind unit, bool lane, int windows = 1, unsigned omitted = 0);

}  // namespace ttsim
