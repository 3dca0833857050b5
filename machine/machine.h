#pragma once
// The machine description: one typed value, computed once per design from (ModelSpec,
// ArchSpec, DeviceSpec) and the step's task graph, that says what the emitted HLS build
// is — its kernel instances, its on-chip memories and its static schedule. The simulator
// (sim/) prices this machine and `ttsim emit` renders it (dse/emit/emit.h); a design the
// emitted code cannot carry out is refused here (check_buildable) and never simulated.
//
// What the emitted top (hls/kernels/top.cc, model_step.cc) builds:
//  - kernel instances: one RTL instance of each kernel module (hls/kernels/modules.h),
//    shared by every call site: the glue functions are inlined into the top and the top
//    carries `#pragma HLS ALLOCATION function instances=<module> limit=1` per module
//    (UG1399, ALLOCATION), so Vitis builds no per-call-site copies;
//  - schedule: the top calls one kernel at a time in program order (the calls share the
//    arenas' ports and run in a sequential region): no two tasks overlap;
//  - memories: twelve static arrays — the eleven FP32 arenas of
//    hls/kernels/model_step.h (ArenaId: parameters, gradients, layer inputs, layer
//    outputs, two saved-chain arenas, three activation-gradient arenas, two backward-chain
//    arenas, the second also holding the row statistics), planned so that no kernel
//    call's output shares an array with its inputs, and the int32 index arena — bound as true dual-port RAM (ram_t2p;
//    URAM or BRAM, chosen per array to fit the device: see describe) with dim 2 of
//    <array>[rows][banks] completely partitioned (banks = the largest lane count), every
//    buffer of the step at a fixed word offset for the whole step (ttsim_hls::Layout).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "machine/hls_dims.h"
#include "models/model_spec.h"
#include "models/task_graph.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "hw/kernel_latency.h"
#include "hw/lut_estimate.h"
#include "hw/resource_fit.h"

namespace ttsim::machine {

/// Trip-count bounds of one loop over the tasks that run it (LOOP_TRIPCOUNT, so that
/// csynth reports the design's latency range rather than an unknown).
struct LoopTrips {
  std::string loop;          ///< kernel_spec.h loop label, e.g. "contract_column"
  std::int64_t min = 0, max = 0;  ///< iterations per invocation
  /// Initiation interval (cycles) the instance is scheduled at: the largest over its calls
  /// (KernelLatencyModel::bind_instances), written as the loop's PIPELINE II.
  int ii = 1;
};

/// The instances of one kernel module.
struct KernelInstance {
  std::string module;       ///< function / RTL module name, e.g. "ttsim_contraction"
  TaskOp op = TaskOp::kContraction;
  UnitKind unit = UnitKind::kContraction;
  int variant = -1;         ///< TaskShape::variant the module runs (-1: every variant)
  int count = 1;            ///< RTL instances (the ALLOCATION limit)
  int lanes = 1;            ///< UNROLL factor of its loop bodies (design_config.h)
  std::int64_t dsp = 0;     ///< DSP48E2 slices of one instance (its loops' operators)
  int calls = 0;            ///< tasks of the step bound to it (kernel calls per step)
  /// Call sites of the emitted top that call it (distinct Task::site of its tasks; a task of
  /// unknown site counts as its own): each is one input of the multiplexer in front of every
  /// scalar argument of the instance (hw/lut_estimate.h call_argument_luts). The glue is
  /// inlined into the top, so a call in a loop of the glue is one site for all iterations.
  int call_sites = 0;
  /// Every lane access of its calls starts at a multiple of `lanes`, which divides the
  /// arenas' banks (ttsim_hls::lane_alignable): the module is instantiated with the aligned
  /// lane accesses (design_config.h k<Unit>Aligned, hls/include/banked.h), each lane selecting
  /// among the partition / lanes banks of its residue class instead of rotating over all of
  /// them. Set from Machine::lane_granule; false for the modules no granule is known of.
  bool lane_aligned = false;
  std::vector<LoopTrips> loops;  ///< every loop its tasks run, in specification order
};

/// BIND_STORAGE of a memory.
enum class Storage { kBram, kUram, kLutram, kRegisters };
/// "bram", "uram", "lutram", "registers" (the BIND_STORAGE impl tokens where they exist).
const char* to_string(Storage s);

/// ARRAY_PARTITION of a memory.
enum class Partition {
  kNone,          ///< one memory, no pragma
  kCompleteDim2,  ///< <array>[rows][banks] with `type = complete dim = 2`: one memory per bank
};
/// "none", "complete dim 2" (the pragma's type and dimension).
const char* to_string(Partition p);

/// One buffer inside a memory.
struct MemoryBuffer {
  std::string name;          ///< Layout slot, e.g. "enc0.q.cores", "enc0.P", "stat"
  std::int64_t offset = 0;   ///< words from the start of the array
  std::int64_t words = 0;
};

/// One on-chip array of the top function.
struct Memory {
  std::string array;           ///< C++ name in top.cc, e.g. "param_mem"
  std::string holds;           ///< what lives in it: "parameters", "gradients", ...
  Storage storage = Storage::kBram;
  std::int64_t words = 0;      ///< depth of the array (words of width_bits)
  int width_bits = 32;
  Partition partition_type = Partition::kNone;  ///< the array's ARRAY_PARTITION
  int partition = 1;           ///< factor: banks (dim 2 of the top's array, completely partitioned, banked.h); 1 = none
  std::int64_t bram36 = 0;     ///< BRAM36 tiles of all its banks
  std::int64_t uram288 = 0;    ///< URAM288 blocks of all its banks
  std::vector<MemoryBuffer> buffers;  ///< every Layout slot, fixed for the whole step
  /// The task-graph buffers it holds (ids into TaskGraph::buffers, Buffer::memory): each
  /// lives in one slot of `buffers` from its first to its last task (Buffer::first_task,
  /// last_task); buffers of one slot follow one another (dA of one layer, then of the next).
  std::vector<int> graph_buffers;
  /// Class of the task-graph buffers it holds (parameters, gradients, activations, temporaries);
  /// nullopt for the int index array.
  std::optional<BufferClass> buffer_class;
  /// Words of one bank: ceil(words / partition).
  std::int64_t bank_words() const { return (words + partition - 1) / partition; }
};

/// The static schedule of one training step on the machine.
struct StaticSchedule {
  std::vector<int> order;     ///< task ids in execution order
  std::vector<int> instance;  ///< by task id: index into Machine::instances
  /// Tasks that run at the same time (each group on distinct instances and banks);
  /// empty: every task runs alone.
  std::vector<std::vector<int>> overlap_groups;
};

/// The machine the emitted build is.
struct Machine {
  std::vector<KernelInstance> instances;
  std::vector<Memory> memories;
  StaticSchedule schedule;
  std::int64_t param_words = 0;  ///< words of the m_axi parameter port (its depth)
  /// By task-graph buffer id: the index into `memories` of the array that holds it.
  std::vector<int> memory_of_buffer;
  int partition = 1;             ///< banks of every float arena (largest lane count; design_config.h kArenaBanks)
  /// By unit kind (UnitKind): a number of words every lane access of the unit's calls starts at a
  /// multiple of, from the layout (ttsim_hls::layernorm_lane_granule, gelu_lane_granule,
  /// softmax_lane_granule, sgd_lane_granule, loss_lane_granule for the LayerNorm, GELU,
  /// softmax, update and loss units); 0 for the units whose
  /// calls the layout does not align
  /// (their accesses rotate over every bank).
  std::array<int, kUnitKinds> lane_granule{};

  /// Σ instances count · dsp.
  std::int64_t dsp() const;
  std::int64_t bram36() const;   ///< Σ over memories
  std::int64_t uram288() const;  ///< Σ over memories
  /// Bytes of every on-chip array (words · width / 8).
  std::int64_t onchip_bytes() const;
  /// Instances of the module that runs `op` with variant `variant`.
  const KernelInstance& instance_for(TaskOp op, int variant) const;
};

/// Banks at least this many words deep (Memory::bank_words) are the arrays describe may
/// put in URAM288 (4K × 72 bits, one FP32 word per row); shallower ones stay in BRAM36,
/// where a URAM block would be mostly empty. `memplan --uram-min-depth` defaults to it.
inline constexpr std::int64_t kUramMinBankWords = 2048;

/// Most iterations one call of a kernel loop may run, and the largest extent (batch, rows,
/// inner, cols) of a call (INT32_MAX): the kernels take their extents as int and evaluate their
/// trip counts in 32-bit arithmetic (hls/include/kernel_spec.h loop_trip<int>, priced as
/// 32-bit multipliers); describe refuses a task above either (InputError naming the task and
/// the loop or extent).
inline constexpr std::int64_t kMaxKernelTrip = 2147483647;

/// Refuses an arch the emitted top cannot carry out, naming the arch file and its JSON
/// pointer: more than one contraction engine or nonlinear unit of a kind (/contraction/
/// engines, /nonlinear/<kind>/count: the top builds one instance per module), a parallel
/// policy (/scheduling/policy: the top runs one call at a time; the parallel policy's
/// refinements parallel_merges / qkv_reschedule are inert under the sequential one), fusion
/// (/scheduling/fusion: the kernels exchange every intermediate through the arenas).
/// Throws ConfigError.
void check_buildable(const ArchSpec& arch);

/// The machine of (model, arch, device) for the step `graph` (built from the same model
/// and arch with the padded token count). Storage per array: of the URAM/BRAM assignments
/// of the arrays with banks at least 2,048 words deep (the others stay in BRAM), the one
/// with the smallest larger utilisation of the device's URAM288 and BRAM36 (ties: fewer
/// blocks); over_device reports a design none of them fits. Throws ConfigError from check_buildable
/// and from check_no_aliased_bindings (machine/aliasing.h: a call that binds two arguments of
/// one loop iteration to one array, or one argument to two; checked here, on every fresh
/// description, and not again by describe_into, whose reuse re-describes a graph reshaped to
/// other ranks: a reshape changes shapes, never a task's op, variant or bindings),
/// InputError from hls_design, and InputError when a task of the graph has no kernel
/// module.
Machine describe(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                 const TaskGraph& graph);

/// describe with `bound`, the KernelLatencyModel of (arch, device) already bound to
/// `graph`'s instances (bind_instances), which the other overload builds and binds.
Machine describe(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                 const TaskGraph& graph, const KernelLatencyModel& bound);

/// Classes of a graph's tasks of equal op and shape (unit, op, batch, rows, inner, cols,
/// variant, memories: SchedGraph::price_class / price_rep, sim/sched_graph.h), whose tasks
/// run the same kernel module with the same loop trips: describing prices one task per
/// class. Both null: every task its own class.
struct TaskClasses {
  const std::vector<int>* of_task = nullptr;  ///< class of each task, by task id
  const std::vector<int>* rep = nullptr;      ///< one task id per class
};

/// describe(model, arch, device, graph, bound) into `m` for the model whose kernel-tree
/// view is `hd` (hls_design of that model and arch), reusing `m`'s storage: describing into
/// the machine of another model of the same structure (same encoders, layers and flows,
/// other TT ranks) allocates nothing, so a sweep of ranks re-describes one machine. Every
/// field of `m` is overwritten: the result equals a fresh describe. Throws as describe, except
/// that it does not re-check the bindings (check_no_aliased_bindings): the graph it
/// re-describes was described fresh (describe) before it was reshaped. `classes`, when
/// given, must group `graph`'s tasks as TaskClasses says (std::invalid_argument when they
/// do not cover its tasks).
void describe_into(Machine& m, const ArchSpec& arch, const DeviceSpec& device, const TaskGraph& graph,
                   const KernelLatencyModel& bound, const HlsDesign& hd, const TaskClasses& classes = {});

/// describe_into again for another arch on the same graph and model: `m` was described
/// (describe_into) for `graph` and the HlsDesign of its model under an arch with the same
/// flows; `arch` may differ in what prices change — lanes, clock, overheads, calibration.
/// Redoes what depends on them (the instances: lanes, DSP, trips, IIs from `bound`, the
/// KernelLatencyModel of (arch, device) bound to `graph`; the arenas' partition; their
/// storage and blocks) and keeps the arrays' words, buffers and placement and the schedule
/// (each task's instance, the instances' call sites). The result
/// equals describe_into(m, arch, device, graph, bound, hd). Throws as describe_into, and
/// std::invalid_argument when `m` holds no description of `graph`'s buffers.
void redescribe_into(Machine& m, const ArchSpec& arch, const DeviceSpec& device, const TaskGraph& graph,
                     const KernelLatencyModel& bound, const TaskClasses& classes = {});

/// Per array of `m` (Machine::memories order), the most words its graph buffers occupy at
/// once, each from its first to its last task in program order (parameters for the whole
/// step; a gradient from its first write to its fused update); the slots of
/// Memory::buffers hold them in Memory::words. The output of an in-place kernel (softmax
/// over S, its gradient over dP, GELU's gradient over dF) takes its input's words during
/// that task. Linear in tasks + buffers; computed where it is reported (`simulate`,
/// `memplan`), not for every design a sweep evaluates. `graph` is the graph `m` was
/// described for; std::invalid_argument when `m` does not place its buffers.
std::vector<std::int64_t> peak_live_words(const Machine& m, const TaskGraph& graph);

/// Index into Machine::memories of the array of ttsim_spec::MemoryId `id` (the float
/// arenas in ArenaId order, then index_mem); -1 for kOwnMemory and the other markers.
int memory_index(int id);

/// Card-level power of `m` on `device` at `clock_mhz`, W: DeviceSpec::card_idle_watts plus
/// the dynamic power of the clocked scenario (hw/fpga_power.h: every DSP, BRAM36 and URAM288
/// of the machine and `luts` / 1,000 kLUT charged per cycle) — the dynamic figure `simulate`
/// prints. 0 when the device file states no card or has no power coefficients.
double card_watts(const Machine& m, double luts, double clock_mhz, const DeviceSpec& device);

/// What `m` uses by the fit rule's measures (hw/resource_fit.h ResourceUse): its BRAM36,
/// URAM288 and DSPs, `luts` and `ffs` (the design's estimates), its card_watts and `clock_mhz`.
ResourceUse machine_use(const Machine& m, double luts, double ffs, double clock_mhz, const DeviceSpec& device);

/// Resources of `m` beyond the device by the one fit rule (hw/resource_fit.h
/// resource_overruns): its DSPs, BRAM36 and URAM288, `luts` (the design's LUT estimate,
/// sim/machine_luts.h) and `ffs` (its FF estimate, hw/ff_estimate.h design_ff_terms), each
/// within floor(total · (100 − headroom_pct) / 100); its card power
/// (card_watts) within the card's limit less the headroom; `clock_mhz` at most the design's
/// achievable clock (hw/resource_fit.h achievable_clock). One line per limit exceeded ("BRAM36 1,345 needed, 1,276 usable (1,344
/// on the device at /resources/bram36, 5 % headroom)"); empty when it fits.
std::vector<std::string> over_device(const Machine& m, double luts, double ffs, double clock_mhz,
                                     const DeviceSpec& device, double headroom_pct = kDefaultResourceHeadroomPct);

/// The calls of each kernel module of `m` as the LUT estimate prices its argument
/// multiplexers (hw/lut_estimate.h call_argument_luts): per instance with calls, its module's
/// scalar argument bits (hls/kernels/modules.h kTtsimModules) and its call sites, into `out`
/// (storage reused).
void module_calls_into(const Machine& m, std::vector<ModuleCalls>& out);

}  // namespace ttsim::machine
