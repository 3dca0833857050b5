#pragma once
// The accelerator micro-architecture the simulator executes a training step on:
// clock, contraction engines, nonlinear units, scheduling policy and refinements,
// contraction flow per layer kind, memory strategy and sequence-length handling.
// Loaded from configs/arch/*.json and validated through JsonView.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "core/json_view.h"
#include "hls/include/kernel_spec.h"
#include "models/flows.h"
#include "models/task_graph.h"
#include "hw/device_spec.h"
#include "hw/kernel_params.h"

namespace ttsim {

/// Number of UnitKind values (kContraction .. kUpdate).
inline constexpr int kUnitKinds = 7;

/// One class of hardware units: `count` identical instances, each a pipelined kernel
/// with `lanes` parallel lanes (the UNROLL factor of its loop bodies, hw/loop_nest.h)
/// and `overhead` cycles per task (kernel start, address setup and pipeline control
/// around the loops). There is no initiation-interval parameter: every loop's II is
/// derived from the kernel specification (hls/include/kernel_spec.h) and the device's
/// operator latencies (hw/kernel_latency.h).
struct UnitSpec {
  int count = 1;
  int lanes = 1;
  int overhead = 0;
};

/// Dispatch policy of the task scheduler.
enum class SchedulePolicy {
  kSequential,  ///< one task at a time, in task-graph order
  kParallel,    ///< any ready task on any free unit of its class
};
/// "sequential" / "parallel".
const char* to_string(SchedulePolicy p);

/// How buffers are mapped to BRAM36/URAM288 blocks (the memory planner's strategies).
enum class MemoryStrategy { kNaive, kGrouped };
const char* to_string(MemoryStrategy s);

/// Tokens processed per sample: the model's padded seq_len, or each sample's length.
enum class SequenceLength { kPadded, kEffective };
const char* to_string(SequenceLength s);

/// The /memory/recompute choices, in the arch file's order: "none", "btt_merges",
/// "encoders", "encoders_btt_merges".
const std::vector<std::string>& recompute_choices();
/// The /memory/recompute name of (BTT merges recomputed, encoders recomputed).
const char* recompute_choice(bool merges, bool encoders);

struct ArchSpec;
/// What the arch recomputes in the backward pass, for a summary line: "" (nothing), or
/// "; BTT merges recomputed in the backward pass", "; encoders recomputed before their
/// backward (all but the last)", or both joined.
std::string recompute_note(const ArchSpec& arch);

/// A resolved architecture.
struct ArchSpec;
/// Banks of every on-chip arena of `arch` (machine/machine.h partition, design_config.h
/// kArenaBanks): the largest lane count of its units; with /contraction/lanes_per_bank 2,
/// max(ceil(contraction lanes / 2), widest nonlinear unit's lanes).
int arena_banks(const ArchSpec& arch);

struct ArchSpec {
  std::string name;
  std::string source_file;
  double clock_mhz = 100;
  /// Units by UnitKind (index = static_cast<int>(UnitKind)); units[kContraction] are the
  /// contraction (multiply-accumulate) engines.
  std::array<UnitSpec, kUnitKinds> units;
  SchedulePolicy policy = SchedulePolicy::kParallel;
  /// Refinements of the reference design (meaningful with the parallel policy):
  bool parallel_merges = true;  ///< BTT left and right merge chains run concurrently
  bool qkv_reschedule = false;  ///< Q, K and V projections share one engine set, in turn
  bool fusion = false;          ///< contraction chains fused through row-sized buffers
  /// Contraction flow per layer kind ("attention", "ffn_in", "ffn_out").
  std::map<std::string, Flow> flow_by_kind;
  MemoryStrategy memory = MemoryStrategy::kGrouped;
  SequenceLength sequence_length = SequenceLength::kPadded;
  bool port_contention = true;  ///< tasks reserve bank ports for the words they move
  /// /contraction/lanes_per_bank: lanes of the contraction engine each bank of an arena
  /// serves, 1 (default) or 2 (ttsim_spec::kBankPorts: dual-port lanes, one lane per port,
  /// hls/include/banked.h). The arenas' banks follow (arena_banks): the largest lane count of
  /// the units with 1; with 2, half the contraction's lanes, but no fewer than the widest
  /// nonlinear unit's — fewer memories and narrower lane networks for every unit, at two
  /// accesses per bank per lane site of the contraction.
  int lanes_per_bank = 1;
  /// /contraction/accumulate "by_add" (with lanes_per_bank 2 only): the products that
  /// accumulate into C in the column form (the BTT and dense layers' dX added into a gradient
  /// they are given, the TTM's core-gradient scatter) run as plain products into partial
  /// buffers and the add unit's in-place adds (ttsim_spec::accumulate_by_add) instead of the
  /// column_acc loop, whose C read and write take both ports of every bank (II 2 with
  /// dual-port lanes). "in_place" (default): column_acc. The graph's tasks differ between the
  /// two (a step structure of its own).
  bool accumulate_by_add = false;
  /// /memory/recompute "btt_merges": every BTT layer recomputes its weight-only merges
  /// (L_k, L_dᵀ, R_j) in its backward pass instead of keeping them from the forward pass
  /// (hls/kernels/tt_linear.h btt_remerge): less saved0/saved1, more contraction cycles.
  /// "none" (default): they are kept. "encoders" sets recompute_encoders instead,
  /// "encoders_btt_merges" both.
  bool recompute_merges = false;
  /// /memory/recompute "encoders" (or "encoders_btt_merges"): activation checkpointing by
  /// encoder — only each encoder's output is kept from the forward pass; every encoder but
  /// the last runs its forward again before its backward (hls/kernels/model_step.h
  /// ModelDims::recompute_encoders): its activations share one region of act, out, saved0
  /// and saved1 with every other encoder's, at the cost of (encoders − 1) encoder forwards.
  bool recompute_encoders = false;
  /// Calibrated kernel parameters (hw/kernel_params.h: per-loop depth adjustments and
  /// the overhead replacing the unit's) for the kernels they cover; null = uncalibrated defaults. Set from a
  /// calibration file (`--calibration`), not from the arch file, so not in to_json().
  std::shared_ptr<const KernelCalibration> calibration;

  const UnitSpec& unit(UnitKind k) const { return units[static_cast<int>(k)]; }
  UnitSpec& unit(UnitKind k) { return units[static_cast<int>(k)]; }
  /// The resolved spec, every default written out; parse_arch_spec(to_json()) == *this.
  Json to_json() const;
};

/// True when every field of `a` and `b` is equal (names and source files included); the
/// calibrations compare by identity (the same loaded calibration, or none in both).
bool operator==(const ArchSpec& a, const ArchSpec& b);
inline bool operator!=(const ArchSpec& a, const ArchSpec& b) { return !(a == b); }

/// Loads and validates an arch config. Throws InputError when unreadable and
/// ConfigError (file, JSON pointer, expected, found) for unknown keys, wrong types,
/// out-of-range values (clock 1..2000 MHz, counts 1..4096, lanes 1..4096, overhead
/// 0..100000 cycles), unknown enum strings or unknown layer kinds. A unit with an "ii"
/// key (arch files before the kernel specification) is a ConfigError at that key
/// (e.g. /contraction/ii) saying the II is derived from hls/include/kernel_spec.h and
/// the device's operator latencies.
ArchSpec load_arch_spec(const std::string& path);
ArchSpec parse_arch_spec(const Json& doc, const std::string& file);

/// DSP48E2 slices of one instance of each floating-point operator (ttsim_spec::Opr) of a
/// device, looked up by name once ("read" and "write" use none), for pricing many loops.
class OperatorDsp {
 public:
  /// The table of `device` (which must outlive it).
  explicit OperatorDsp(const DeviceSpec& device);
  /// Slices per instance of `op`. Throws InputError (DeviceSpec::op) for an operator the
  /// device file lacks.
  std::int64_t operator[](ttsim_spec::Opr op) const;
  /// Slices per 32-bit integer multiplier (DeviceSpec::int_mul32_dsp).
  std::int64_t int_mul32() const;

 private:
  const DeviceSpec* device_;
  std::array<std::int64_t, ttsim_spec::kOprCount> dsp_{};  ///< -1: not in the device file
};

/// DSP48E2 slices of one pipelined loop's operators with `lanes` lanes on arrays of `banks`
/// banks (0: as many as lanes) (see kernel_dsp): lanes instances of a kOnce operator in a
/// loop with lane accesses, lanes − 1 of a kTree operator, lane_site_accesses(lanes, banks)
/// of a kWindow operator (one per lane window), pair_windows(lanes, banks) of a kPairWindow
/// operator, one of a kScalar operator or of any operator of a loop without lane accesses.
std::int64_t loop_dsp(const ttsim_spec::LoopSpec& l, int lanes, const DeviceSpec& device, int banks = 0);
/// loop_dsp with the device's operator table.
std::int64_t loop_dsp(const ttsim_spec::LoopSpec& l, int lanes, const OperatorDsp& dsp, int banks = 0);

/// DSP48E2 slices of the per-call setup of a kernel module: its trip-count products
/// (ttsim_spec::trip_products), once per distinct trip kind among the loops it runs (loops of
/// one kind evaluate the same products over the same extents), each a 32-bit multiplier of
/// dsp.int_mul32() slices. `variant` >= 0: only the loops of that variant (the add kernel's
/// modules, hls/kernels/modules.h); -1: every loop; the loops `omitted` leaves out
/// (omitted_loops) take none. An upper bound: Vitis may bind a module's sequential products
/// to one multiplier.
std::int64_t setup_dsp(const ttsim_spec::KernelSpec& ks, int variant, const OperatorDsp& dsp, unsigned omitted = 0);

/// DSP48E2 slices of one instance of `op`'s kernel module with `lanes` lanes, from the
/// kernel specification (hls/include/kernel_spec.h) and the device's DSPs per operator:
/// Σ over every loop of the kernel (Vitis HLS outlines each pipelined loop into its own
/// `<function>_Pipeline_<loop>` module with its own operators, so the loops of one kernel,
/// the three contraction forms included, do not share DSPs), per loop Σ over its chain:
/// the loop_dsp instance rule at `lanes` lanes on `banks` banks (0: as many as lanes);
/// "read"/"write" use none; plus setup_dsp (the trip-count multipliers). The loops `omitted`
/// leaves out of the build (omitted_loops) count nothing. Throws InputError for an operator
/// the device file lacks.
std::int64_t kernel_dsp(TaskOp op, int lanes, const DeviceSpec& device, int banks = 0, unsigned omitted = 0);

/// DSPs of one unit instance of kind `k`: Σ kernel_dsp over ops_of_unit(k) (models/task_graph.h) (every op is
/// its own module, e.g. ttsim_layernorm and ttsim_layernorm_grad).
/// `banks`: of the arrays it accesses (0: as many as lanes; arena_banks for a design).
/// `omitted`: the loops the build leaves out (omitted_loops).
std::int64_t unit_dsp(UnitKind k, int lanes, const DeviceSpec& device, int banks = 0, unsigned omitted = 0);
/// unit_dsp with the device's operator table.
std::int64_t unit_dsp(UnitKind k, int lanes, const OperatorDsp& dsp, int banks = 0, unsigned omitted = 0);

/// The kernel loops `arch`'s build omits (ttsim_spec::omitted_loops: contract_column_acc when
/// /contraction/accumulate is "by_add", no call running it); design_config.h kOmittedLoops.
unsigned omitted_loops(const ArchSpec& arch);

/// Total DSPs of the architecture: Σ over unit kinds count · unit_dsp(kind, lanes,
/// arena_banks(arch), omitted_loops(arch)).
std::int64_t arch_dsp(const ArchSpec& arch, const DeviceSpec& device);

}  // namespace ttsim
