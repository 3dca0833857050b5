#include "machine/machine.h"

#include "hw/fpga_power.h"
#include "machine/aliasing.h"

#include <algorithm>
#include <cstdint>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <stdexcept>

#include <fmt/format.h>

#include "core/errors.h"
#include "hls/include/kernel_spec.h"
#include "hls/kernels/modules.h"
#include "hw/loop_nest.h"
#include "hw/kernel_latency.h"
#include "hw/block_arith.h"

namespace ttsim::machine {

const char* to_string(Storage s) {
  switch (s) {
    case Storage::kBram: return "bram";
    case Storage::kUram: return "uram";
    case Storage::kLutram: return "lutram";
    case Storage::kRegisters: return "registers";
  }
  return "?";
}

const char* to_string(Partition p) {
  switch (p) {
    case Partition::kNone: return "none";
    case Partition::kCompleteDim2: return "complete dim 2";
  }
  return "?";
}

std::int64_t Machine::dsp() const {
  std::int64_t d = 0;
  for (const auto& k : instances) d += k.count * k.dsp;
  return d;
}
std::int64_t Machine::bram36() const {
  std::int64_t b = 0;
  for (const auto& m : memories) b += m.bram36;
  return b;
}
std::int64_t Machine::uram288() const {
  std::int64_t b = 0;
  for (const auto& m : memories) b += m.uram288;
  return b;
}
std::int64_t Machine::onchip_bytes() const {
  std::int64_t b = 0;
  for (const auto& m : memories) b += m.words * m.width_bits / 8;
  return b;
}

const KernelInstance& Machine::instance_for(TaskOp op, int variant) const {
  for (const auto& k : instances) {
    if (k.op == op && (k.variant < 0 || k.variant == variant)) return k;
  }
  throw std::out_of_range(std::string("no kernel module runs ") + ttsim::to_string(op) + " variant " +
                          std::to_string(variant));
}

namespace {

TaskOp op_named(const std::string& name) {
  TaskOp op;
  if (!task_op_named(name.c_str(), &op)) throw std::logic_error("machine: unknown task op " + name);
  return op;
}

/// The add-kernel variant a module runs (modules.h table); -1 for modules of other ops.
int module_variant(const std::string& module) {
  if (module == "ttsim_add_accumulate") return ttsim_spec::kAddAccumulate;
  if (module == "ttsim_column_sum") return ttsim_spec::kAddColumnSum;
  if (module == "ttsim_transpose") return ttsim_spec::kAddTranspose;
  return -1;
}

/// DSPs of one instance of `module`: Σ loop_dsp over the spec loops it builds (of its
/// variant, not omitted), plus the multipliers of their trip-count setup (setup_dsp).
std::int64_t module_dsp(TaskOp op, int variant, int lanes, const OperatorDsp& dsp, int banks, unsigned omitted) {
  const ttsim_spec::KernelSpec& ks = kernel_spec(op);
  std::int64_t d = setup_dsp(ks, variant, dsp, omitted);
  for (int i = 0; i < ks.n_loops; ++i) {
    if ((variant >= 0 && ks.loops[i].variant != variant) || !ttsim_spec::loop_built(ks.loops[i], omitted)) continue;
    d += loop_dsp(ks.loops[i], lanes, dsp, banks);
  }
  return d;
}

/// URAM288 blocks of `m`'s banks were it bound to URAM.
std::int64_t uram288_of(const Memory& m) {
  return m.partition * memplan::uram_blocks(std::max<std::int64_t>(1, m.bank_words()), m.width_bits);
}

void fill_blocks(Memory& m) {
  const std::int64_t depth = std::max<std::int64_t>(1, m.bank_words());
  m.bram36 = m.uram288 = 0;
  if (m.storage == Storage::kUram) {
    m.uram288 = uram288_of(m);
  } else if (m.storage == Storage::kBram) {
    // Every array of the top is bound ram_t2p (true dual port): no SDP-only aspect modes.
    m.bram36 = memplan::bram36_tiles(m.partition * memplan::bram18_blocks(depth, m.width_bits, true));
  }
}

/// Storage of the arrays (BIND_STORAGE, emitted per array): of every assignment of URAM
/// or BRAM to the arrays whose banks are at least 2,048 words deep (half a URAM288 column;
/// shallower banks waste less in BRAM, so they stay in BRAM), the one whose larger
/// utilisation (URAM288 used / available, BRAM36 used / available) is smallest; ties go
/// to fewer blocks in all. When none fits, the same rule picks the least overflowing and
/// over_device names the resource.
void choose_storage(std::vector<Memory>& mems, const DeviceSpec& device) {
  thread_local std::vector<std::size_t> deep;
  std::int64_t base_bram = 0;
  // Blocks of each deep array in BRAM and in URAM, computed once; the masks only add them.
  thread_local std::vector<std::int64_t> deep_bram, deep_uram;
  deep.clear();
  deep_bram.clear();
  deep_uram.clear();
  for (std::size_t i = 0; i < mems.size(); ++i) {
    mems[i].storage = Storage::kBram;
    fill_blocks(mems[i]);
    if (mems[i].bank_words() >= kUramMinBankWords) {
      deep.push_back(i);
      deep_bram.push_back(mems[i].bram36);
      deep_uram.push_back(uram288_of(mems[i]));
    } else {
      base_bram += mems[i].bram36;
    }
  }
  const std::int64_t bram_cap = std::max<std::int64_t>(1, device.bram36);
  const std::int64_t uram_cap = std::max<std::int64_t>(1, device.uram288);
  // Every mask in Gray-code order (one array changes storage per step, so the totals are
  // updated, not summed again); among equal utilisation and blocks the lowest mask wins,
  // as in ascending order. The larger utilisation max(bram / bram_cap, uram / uram_cap)
  // is compared exactly, as max(bram · uram_cap, uram · bram_cap) over their common
  // denominator: no division per mask.
  std::uint32_t best_mask = 0;
  std::int64_t best_util = -1;
  std::int64_t best_blocks = -1;
  std::int64_t bram = base_bram, uram = 0;
  for (std::int64_t b : deep_bram) bram += b;
  const std::uint32_t masks = 1u << deep.size();
  for (std::uint32_t step = 0; step < masks; ++step) {
    const std::uint32_t mask = step ^ (step >> 1);
    if (step > 0) {
      const std::uint32_t changed = mask ^ ((step - 1) ^ ((step - 1) >> 1));
      const int b = __builtin_ctz(changed);
      if (mask & changed) {
        bram -= deep_bram[b];
        uram += deep_uram[b];
      } else {
        bram += deep_bram[b];
        uram -= deep_uram[b];
      }
    }
    const std::int64_t util = std::max(bram * uram_cap, uram * bram_cap);
    const std::int64_t blocks = bram + uram;
    if (best_blocks < 0 || util < best_util ||
        (util == best_util && (blocks < best_blocks || (blocks == best_blocks && mask < best_mask)))) {
      best_mask = mask;
      best_util = util;
      best_blocks = blocks;
    }
  }
  for (std::size_t b = 0; b < deep.size(); ++b) {
    if (best_mask & (1u << b)) {
      mems[deep[b]].storage = Storage::kUram;
      fill_blocks(mems[deep[b]]);
    }
  }
}

const char* const kLinearNames[ttsim_hls::kLinearsPerEncoder] = {"q", "k", "v", "o", "ffn_in", "ffn_out"};

}  // namespace

void check_buildable(const ArchSpec& arch) {
  const std::string& f = arch.source_file.empty() ? arch.name : arch.source_file;
  const std::string why_one =
      "1: the emitted top (hls/kernels/top.cc) builds one instance of each kernel module, "
      "shared by its call sites, and calls one kernel at a time";
  if (arch.unit(UnitKind::kContraction).count != 1) {
    throw ConfigError(f, "/contraction/engines", why_one,
                      std::to_string(arch.unit(UnitKind::kContraction).count));
  }
  static const std::pair<const char*, UnitKind> kNonlinear[] = {
      {"softmax", UnitKind::kSoftmax}, {"layernorm", UnitKind::kLayerNorm}, {"gelu", UnitKind::kGelu},
      {"elementwise", UnitKind::kElementwise}, {"loss", UnitKind::kLoss}, {"update", UnitKind::kUpdate}};
  for (const auto& [name, k] : kNonlinear) {
    if (arch.unit(k).count != 1) {
      throw ConfigError(f, std::string("/nonlinear/") + name + "/count", why_one,
                        std::to_string(arch.unit(k).count));
    }
  }
  const std::string why_seq =
      "the emitted top runs one kernel call at a time in program order (its calls share the "
      "arenas' ports)";
  if (arch.policy != SchedulePolicy::kSequential) {
    throw ConfigError(f, "/scheduling/policy", "\"sequential\": " + why_seq,
                      std::string("\"") + to_string(arch.policy) + "\"");
  }
  // parallel_merges / qkv_reschedule only reorder dispatch under the parallel policy; under
  // the sequential one (required above) they change nothing and are accepted either way.
  if (arch.fusion) {
    throw ConfigError(f, "/scheduling/fusion",
                      "false: the kernels exchange every intermediate through the on-chip arenas", "true");
  }
}

Machine describe(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                 const TaskGraph& graph) {
  KernelLatencyModel lat(arch, device);
  lat.bind_instances(graph);
  return describe(model, arch, device, graph, lat);
}

Machine describe(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                 const TaskGraph& graph, const KernelLatencyModel& lat) {
  check_buildable(arch);
  const std::string where = arch.source_file.empty() ? arch.name : arch.source_file;
  check_no_aliased_bindings(graph, where);
  const HlsDesign hd = hls_design(model, arch, where);
  Machine m;
  describe_into(m, arch, device, graph, lat, hd);
  return m;
}

namespace {

/// Kernel modules of hls/kernels/modules.h: one instance each.
constexpr std::size_t kModules = sizeof(kTtsimModules) / sizeof(kTtsimModules[0]);
/// Loop slots of a kernel specification.
constexpr int kSpecLoops = std::extent<decltype(ttsim_spec::KernelSpec::loops)>::value;

/// Sets one instance per module of hls/kernels/modules.h (op, unit, variant, lanes, DSPs);
/// with `place_tasks`, zeroes their call sites.
void fill_instances(Machine& m, const ArchSpec& arch, const DeviceSpec& device, bool place_tasks) {
  m.instances.resize(kModules);
  const OperatorDsp dsp(device);
  for (std::size_t i = 0; i < kModules; ++i) {
    KernelInstance& k = m.instances[i];
    k.module = kTtsimModules[i].module;
    k.op = op_named(kTtsimModules[i].task_op);
    k.unit = unit_of(k.op);
    k.variant = module_variant(k.module);
    k.count = 1;
    k.lanes = arch.unit(k.unit).lanes;
    k.dsp = module_dsp(k.op, k.variant, k.lanes, dsp, arena_banks(arch), omitted_loops(arch));
    if (place_tasks) k.calls = k.call_sites = 0;
  }
}

/// Empties `s` for a schedule of `n_tasks` tasks (storage kept).
void reset_schedule(StaticSchedule& s, std::size_t n_tasks) {
  s.instance.assign(n_tasks, -1);
  s.order.clear();
  s.order.reserve(n_tasks);
  s.overlap_groups.clear();
}

/// The modules of each task op, in table order (a task runs on the first that takes its
/// variant).
struct ModulesByOp {
  std::array<std::array<int, kModules>, kTaskOpCount> of;
  std::array<int, kTaskOpCount> count{};
};

/// m's instances grouped by task op.
ModulesByOp modules_by_op(const Machine& m) {
  ModulesByOp mods;
  for (std::size_t i = 0; i < kModules; ++i) {
    const int o = static_cast<int>(m.instances[i].op);
    mods.of[o][mods.count[o]++] = static_cast<int>(i);
  }
  return mods;
}

/// The instance that runs task `t`: the first module of its op that takes its variant.
/// Throws InputError when none does.
int module_for(const Machine& m, const ModulesByOp& mods, const Task& t) {
  int idx = -1;
  const int o = static_cast<int>(t.op);
  for (int j = 0; j < mods.count[o] && idx < 0; ++j) {
    const KernelInstance& k = m.instances[mods.of[o][j]];
    if (k.variant < 0 || k.variant == t.shape.variant) idx = mods.of[o][j];
  }
  if (idx < 0) {
    throw InputError("task " + t.name + " (" + ttsim::to_string(t.op) + ", variant " +
                     std::to_string(t.shape.variant) + ") has no kernel module in hls/kernels/modules.h");
  }
  return idx;
}

/// Per instance and kernel loop (spec order, kSpecLoops slots per instance), the fewest
/// and most iterations of a call that runs it (0 / -1: none does).
struct LoopTripRanges {
  std::vector<std::int64_t> min, max;
};

/// Widens the trip ranges of instance `idx` (`inst`) by the loops task `t` runs on it:
/// the trips of kernel_loops(t.op, t.shape, inst.lanes, banks), without building their
/// specifications; that function raises the error of a shape it refuses. `banks`: the
/// arenas' (arena_banks); `omitted`: the loops the build leaves out (omitted_loops) — a task
/// running one is a graph this build cannot run (std::logic_error).
void widen_trips(const Task& t, const KernelInstance& inst, int idx, int banks, unsigned omitted,
                 LoopTripRanges& trips) {
  const ttsim_spec::KernelSpec& ks = kernel_spec(t.op);
  const TaskShape& s = t.shape;
  bool runs = inst.lanes >= 1 && s.batch >= 1 && s.rows >= 1 && s.inner >= 1 && s.cols >= 1 && s.variant >= 0;
  for (const auto& [what, extent] : {std::pair<const char*, std::int64_t>{"batch", s.batch}, {"rows", s.rows},
                                     {"inner", s.inner}, {"cols", s.cols}}) {
    if (extent > kMaxKernelTrip) {
      throw InputError(fmt::format("task {} ({}): {} {} is more than the kernels' 32-bit extents hold ({})", t.name,
                                   ttsim::to_string(t.op), what, extent, kMaxKernelTrip));
    }
  }
  bool any = false;
  for (int i = 0; runs && i < ks.n_loops; ++i) {
    const std::int64_t trip = loop_trip(ks.loops[i], s, inst.lanes, banks);
    if (trip <= 0) continue;
    if (trip > kMaxKernelTrip) {
      throw InputError(fmt::format("task {} ({}): loop {} runs {} iterations, more than the kernels' 32-bit trip "
                                   "count holds ({}; hls/include/kernel_spec.h loop_trip<int>)",
                                   t.name, ttsim::to_string(t.op), ks.loops[i].name, trip, kMaxKernelTrip));
    }
    if (!ttsim_spec::loop_built(ks.loops[i], omitted)) {
      throw std::logic_error(fmt::format("task {} ({}) runs loop {}, which this design's build omits "
                                         "(hls/include/kernel_spec.h omitted_loops)",
                                         t.name, ttsim::to_string(t.op), ks.loops[i].name));
    }
    any = true;
    std::int64_t& lo = trips.min[idx * kSpecLoops + i];
    std::int64_t& hi = trips.max[idx * kSpecLoops + i];
    if (hi < 0) {
      lo = hi = trip;
    } else {
      lo = std::min(lo, trip);
      hi = std::max(hi, trip);
    }
  }
  if (!any) kernel_loops(t.op, t.shape, inst.lanes, banks);  // throws why no loop runs
}

/// Places the tasks in program order, each on the instance of its class, counting the
/// instances' calls and call sites (distinct Task::site; -1 counts as a site of its own).
void place_in_order(Machine& m, const TaskGraph& graph, const TaskClasses& classes, bool by_class,
                    const std::vector<int>& module_of_class) {
  // (instance, site) pairs seen in this placement: marked with a placement number, so the
  // storage is neither cleared nor reallocated from one design to the next.
  thread_local std::vector<std::uint32_t> seen;
  thread_local std::uint32_t placement = 0;
  if (++placement == 0) {  // wrapped: forget every mark
    std::fill(seen.begin(), seen.end(), 0u);
    placement = 1;
  }
  int sites = 0;
  for (const Task& t : graph.tasks) sites = std::max(sites, t.site + 1);
  const std::size_t needed = m.instances.size() * static_cast<std::size_t>(sites);
  if (seen.size() < needed) seen.resize(needed, 0u);
  for (const Task& t : graph.tasks) {
    const int idx = module_of_class[by_class ? (*classes.of_task)[t.id] : t.id];
    m.schedule.order.push_back(t.id);
    m.schedule.instance[t.id] = idx;
    KernelInstance& k = m.instances[idx];
    ++k.calls;
    if (t.site < 0) {
      ++k.call_sites;
      continue;
    }
    std::uint32_t& mark = seen[static_cast<std::size_t>(idx) * static_cast<std::size_t>(sites) + t.site];
    if (mark != placement) {
      mark = placement;
      ++k.call_sites;
    }
  }
}

/// Every loop an instance runs, in specification order (kernel_spec.h; loop names are
/// unique within a kernel), at its II: one static schedule per instance, at its worst call.
void fill_instance_loops(Machine& m, const KernelLatencyModel& lat, const LoopTripRanges& trips) {
  for (std::size_t k = 0; k < kModules; ++k) {
    KernelInstance& inst = m.instances[k];
    const ttsim_spec::KernelSpec& ks = kernel_spec(inst.op);
    std::size_t n = 0;
    for (int i = 0; i < ks.n_loops; ++i) {
      if (trips.max[k * kSpecLoops + i] < 0) continue;
      if (n == inst.loops.size()) inst.loops.emplace_back();
      LoopTrips& l = inst.loops[n++];
      l.loop = ks.loops[i].name;
      l.min = trips.min[k * kSpecLoops + i];
      l.max = trips.max[k * kSpecLoops + i];
      l.ii = lat.class_ii(inst.unit, inst.op, i);
    }
    inst.loops.resize(n);
  }
}

/// The kernel instances and the static schedule of `graph` (see describe_into).
/// With `place_tasks` false, m's schedule (each task's instance, the program order) and
/// the instances' call sites are kept: they depend on the tasks' ops and variants only, which
/// redescribe_into's graph shares with the one `m` was described for.
void describe_instances(Machine& m, const ArchSpec& arch, const DeviceSpec& device, const TaskGraph& graph,
                        const KernelLatencyModel& lat, const TaskClasses& classes, bool place_tasks) {
  fill_instances(m, arch, device, place_tasks);
  // Schedule: program order, one task at a time, with each instance's loop trip ranges.
  thread_local LoopTripRanges trips;
  trips.min.assign(kModules * kSpecLoops, 0);
  trips.max.assign(kModules * kSpecLoops, -1);
  if (place_tasks) reset_schedule(m.schedule, graph.tasks.size());
  const ModulesByOp mods = modules_by_op(m);
  // Module and loop trips once per class of tasks of one op and shape (each task its own
  // class without `classes`): its representative's.
  const bool by_class = classes.of_task && classes.rep;
  if (by_class && classes.of_task->size() != graph.tasks.size()) {
    throw std::invalid_argument("describe_into: the task classes do not cover the graph's tasks");
  }
  const std::size_t n_classes = by_class ? classes.rep->size() : graph.tasks.size();
  const int banks = arena_banks(arch);
  const unsigned omitted = omitted_loops(arch);
  thread_local std::vector<int> module_of_class;
  module_of_class.resize(n_classes);
  for (std::size_t c = 0; c < n_classes; ++c) {
    const Task& t = graph.tasks.at(by_class ? static_cast<std::size_t>((*classes.rep)[c]) : c);
    const int idx = module_for(m, mods, t);
    module_of_class[c] = idx;
    widen_trips(t, m.instances[idx], idx, banks, omitted, trips);
  }
  if (place_tasks) place_in_order(m, graph, classes, by_class, module_of_class);
  fill_instance_loops(m, lat, trips);
}

/// The slots of the arenas, (arena, name, word offset) in the order the layout lists them.
/// Their names depend on the encoder count, the flow and what is recomputed
/// only: built once per such structure, so filling the slots of another model of the same
/// structure builds no string.
class ArenaSlots {
 public:
  struct Slot {
    int arena = 0;
    int name = 0;  ///< index into name()
    std::int64_t offset = 0;
  };

  /// The slots of `hd`'s layout (storage reused).
  void fill(const HlsDesign& hd);
  /// The slots of arena `a`, in the layout's order.
  const std::vector<Slot>& of_arena(int a) const { return by_arena_[static_cast<std::size_t>(a)]; }
  const std::string& name(int i) const { return (*names_)[static_cast<std::size_t>(i)]; }

 private:
  void put(ttsim_hls::ArenaId a, int encoder, const char* stem, const char* suffix, std::int64_t offset);
  int count_ = 0;
  std::array<std::vector<Slot>, ttsim_hls::kFloatArenas> by_arena_;
  /// Slot names by the structure the put sequence depends on: (encoders, BTT flow, merges
  /// recomputed, encoders recomputed).
  std::map<std::tuple<int, bool, bool, bool>, std::vector<std::string>> names_by_structure_;
  bool shared_encoders_ = false;  ///< the encoders' activations share one region
  /// By arena: the start of the encoders' shared region (-1: none), while filling.
  std::array<std::int64_t, ttsim_hls::kFloatArenas> region_start_{};
  std::vector<std::string>* names_ = nullptr;
  bool naming_ = false;
};

void ArenaSlots::put(ttsim_hls::ArenaId a, int encoder, const char* stem, const char* suffix, std::int64_t offset) {
  // A recomputing step's encoders share one region of each activation arena (every
  // activation but h2): listed as one slot from the region's start (fill), since encoders of
  // different shapes place their slots at different offsets within it.
  if (shared_encoders_ && encoder >= 0 && a != ttsim_hls::kParamArena && std::string(stem) != "h2") {
    std::int64_t& start = region_start_[static_cast<std::size_t>(a)];
    start = start < 0 ? offset : std::min(start, offset);
    return;
  }
  const int i = count_++;
  if (naming_) {
    names_->push_back((encoder >= 0 ? "enc" + std::to_string(encoder) + "." : std::string()) + stem + suffix);
  }
  by_arena_[a].push_back({a, i, offset});
}

void ArenaSlots::fill(const HlsDesign& hd) {
  const ttsim_hls::Layout& L = hd.layout;
  auto [it, inserted] = names_by_structure_.try_emplace(
      std::make_tuple(hd.dims.encoders, hd.btt, hd.recompute, hd.dims.recompute_encoders));
  shared_encoders_ = hd.dims.recompute_encoders;
  region_start_.fill(-1);
  names_ = &it->second;
  naming_ = inserted;
  count_ = 0;
  for (auto& v : by_arena_) v.clear();
  using namespace ttsim_hls;
  put(kParamArena, -1, "embedding.cores", "", L.emb_cores);
  put(kParamArena, -1, "embedding.position", "", L.pos);
  put(kParamArena, -1, "embedding.ln.gain", "", L.lne_g);
  put(kParamArena, -1, "embedding.ln.bias", "", L.lne_b);
  for (int e = 0; e < hd.dims.encoders; ++e) {
    const EncoderSlots& es = L.enc[e];
    for (int i = 0; i < kLinearsPerEncoder; ++i) {
      const LinearDims& l = hd.dims.lin[e][i];
      put(kParamArena, e, kLinearNames[i], ".cores", es.lin[i].w);
      put(kParamArena, e, kLinearNames[i], ".bias", es.lin[i].b);
      if (l.tt && l.btt) put(kSaved1Arena, e, kLinearNames[i], ".z", es.lin[i].z);
      // A layer that recomputes its merges keeps them in the shared merge slots (below).
      if (!l.recompute) {
        put(kSaved0Arena, e, kLinearNames[i], ".saved", es.lin[i].saved[0]);
        put(kSaved1Arena, e, kLinearNames[i], ".saved", es.lin[i].saved[1]);
      }
      // The K projection's output is in act (kKeyArena), the others in out; o's and
      // ffn_out's are the proj slot (make_layout), listed once below.
      if (i != 3 && i != 5) put(i == 1 ? kKeyArena : kOutArena, e, kLinearNames[i], ".y", es.lin[i].y);
    }
    put(kParamArena, e, "ln1.gain", "", es.ln1_g);
    put(kParamArena, e, "ln1.bias", "", es.ln1_b);
    put(kParamArena, e, "ln2.gain", "", es.ln2_g);
    put(kParamArena, e, "ln2.bias", "", es.ln2_b);
    put(kSaved1Arena, e, "attn.P", "", es.P);
    put(kActArena, e, "attn.ctx", "", es.ctx);
    put(kActArena, e, "h1", "", es.h1);
    put(kSaved1Arena, e, "ln1.xhat", "", es.xhat1);
    put(kSaved1Arena, e, "ln1.rstd", "", es.rstd1);
    put(kActArena, e, "gelu", "", es.g);
    put(kActArena, e, "h2", "", es.h2);
    put(kSaved1Arena, e, "ln2.xhat", "", es.xhat2);
    put(kSaved1Arena, e, "ln2.rstd", "", es.rstd2);
  }
  for (int a = 0; a < kFloatArenas; ++a) {
    if (region_start_[static_cast<std::size_t>(a)] < 0) continue;
    put(static_cast<ArenaId>(a), -1, "shared.encoders (every encoder's activations but h2; recomputed)", "",
        region_start_[static_cast<std::size_t>(a)]);
  }
  put(kSaved0Arena, -1, "shared.merges (BTT layers that recompute them)", "", L.merge[0]);
  put(kSaved1Arena, -1, "shared.merges (BTT layers that recompute them)", "", L.merge[1]);
  put(kParamArena, -1, "intent_head.weight", "", L.wi);
  put(kParamArena, -1, "intent_head.bias", "", L.bi);
  put(kParamArena, -1, "slot_head.weight", "", L.ws);
  put(kParamArena, -1, "slot_head.bias", "", L.bs);
  put(kSaved0Arena, -1, "embedding.saved", "", L.emb_saved[0]);
  put(kSaved1Arena, -1, "embedding.saved", "", L.emb_saved[1]);
  // The slots shared by buffers of disjoint lifetimes (make_layout).
  put(kOutArena, -1, "shared.proj (E, every o.y and ffn_out.y; x0, a1, a2 in place)", "", L.proj);
  put(kActArena, -1, "embedding.h0", "", L.h0);
  put(kSaved1Arena, -1, "embedding.ln.xhat", "", L.xhat0);
  put(kSaved1Arena, -1, "embedding.ln.rstd", "", L.rstd0);
  put(kOutArena, -1, "intent_head.logits", "", L.logit_i);
  put(kOutArena, -1, "slot_head.logits", "", L.logit_s);
  put(kBwdAArena, -1, "dA", "", L.dA);
  put(kBwdAArena, -1, "dP", "", L.dP);
  put(kBwdBArena, -1, "dlogits | dB | dctx | dk", "", L.dB);
  put(kBwdCArena, -1, "dv", "", L.dv);
  put(kBwdCArena, -1, "dF | dq", "", L.dF);
  // The linear layers' chain scratch; in chain0 from its word 0 also the embedding's copy of
  // core 1 (its other temporaries use out's and act's words, make_layout chain_scratch).
  put(kChain0Arena, -1, "scratch (TTM core-1 copy, linear layers; partials of the intent head's dX, the TTM scatter)",
      "", L.lin_scratch[0]);
  put(kChain1Arena, -1, "scratch (linear layers)", "", L.lin_scratch[1]);
  put(kChain1Arena, -1, "stat", "", L.stat);
}

/// The buffers of arena `arena` among `slots` into `out` (storage reused): the slots in
/// ascending offset (the layout's order among equal offsets), each extending to the next
/// offset or `end`; zero-word slots are dropped. `suffix` is appended to every name.
void arena_buffers(const ArenaSlots& slots, int arena, std::int64_t end, const char* suffix,
                   std::vector<MemoryBuffer>& out) {
  thread_local std::vector<const ArenaSlots::Slot*> in;
  in.clear();
  for (const ArenaSlots::Slot& s : slots.of_arena(arena)) in.push_back(&s);
  std::stable_sort(in.begin(), in.end(), [](const ArenaSlots::Slot* a, const ArenaSlots::Slot* b) {
    return a->offset < b->offset;
  });
  std::size_t n = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::int64_t next = i + 1 < in.size() ? in[i + 1]->offset : end;
    if (next <= in[i]->offset) continue;
    if (n == out.size()) out.emplace_back();
    MemoryBuffer& b = out[n++];
    b.name = slots.name(in[i]->name);
    b.name += suffix;
    b.offset = in[i]->offset;
    b.words = next - in[i]->offset;
  }
  out.resize(n);
}

/// The slots of the grad arena into `out` (storage reused): each parameter slot's gradient
/// ("<slot>.grad", the slot's words) at its update group's offset in the grad arena
/// (Layout::tensors[].grad; the groups share the arena: their slots overlap in words, not in
/// time). Throws std::logic_error when a parameter slot starts no tensor of the layout.
void grad_arena_buffers(const ArenaSlots& slots, const ttsim_hls::Layout& L, std::vector<MemoryBuffer>& out) {
  arena_buffers(slots, ttsim_hls::kParamArena, L.param_words, ".grad", out);
  int t = 0;
  for (MemoryBuffer& b : out) {
    while (t < L.n_tensors && L.tensors[t].offset < b.offset) ++t;
    if (t == L.n_tensors || L.tensors[t].offset != b.offset) {
      throw std::logic_error("grad_arena_buffers: a parameter slot that starts no tensor");
    }
    b.offset = L.tensors[t].grad;
  }
}

/// The TTM embedding's temporaries use out's (scratch0) and act's (scratch1) words from
/// their offset while it runs (make_layout chain_scratch): for arena `a` out or act, one slot
/// appended to `out` after the slots it overlaps (none for another arena or no temporaries).
/// Where the temporaries are larger than the arena's activations, the words past those
/// extend the arena's last listed slot (arena_buffers) as well.
void ttm_scratch_slot(const HlsDesign& hd, int a, std::vector<MemoryBuffer>& out) {
  if (a != ttsim_hls::kOutArena && a != ttsim_hls::kActArena) return;
  const int p = a == ttsim_hls::kOutArena ? 0 : 1;
  const int words = ttsim_hls::ttm_scratch_words(hd.dims.emb, hd.dims.seq_len, p);
  if (words <= 0) return;
  out.push_back({p == 0 ? "embedding.ttm_scratch0 (TTM temporaries, over these words while it runs)"
                        : "embedding.ttm_scratch1 (TTM temporaries, over these words while it runs)",
                 hd.layout.ttm_scratch[p], words});
}

/// The arrays of the top (see describe_into) and every buffer of `graph` in its array;
/// their partition and storage are left to partition_arenas and choose_storage.
void describe_memories(Machine& m, const TaskGraph& graph, const HlsDesign& hd) {
  const ttsim_hls::Layout& L = hd.layout;
  m.lane_granule.fill(0);
  m.lane_granule[static_cast<int>(UnitKind::kLayerNorm)] = ttsim_hls::layernorm_lane_granule(hd.dims, L);
  m.lane_granule[static_cast<int>(UnitKind::kGelu)] = ttsim_hls::gelu_lane_granule(hd.dims, L);
  m.lane_granule[static_cast<int>(UnitKind::kSoftmax)] = ttsim_hls::softmax_lane_granule(hd.dims, L);
  m.lane_granule[static_cast<int>(UnitKind::kUpdate)] = ttsim_hls::sgd_lane_granule(L);
  m.lane_granule[static_cast<int>(UnitKind::kLoss)] = ttsim_hls::loss_lane_granule(hd.dims, L);
  // The top's static arenas (hls/kernels/top.cc, model_step.h ArenaId).
  m.param_words = L.param_words;
  thread_local ArenaSlots slots;
  slots.fill(hd);
  static const char* const kHolds[ttsim_hls::kFloatArenas] = {
      "parameters",
      "gradients of one update group",
      "layer inputs; K; TTM temps",
      "linear Y, logits; E/o/ffn_out, LN inputs; TTM temps",
      "saved chain steps (even)",
      "odd saved chain steps; P; LN x^, 1/s",
      "act. gradients dA, dP",
      "act. gradients dlogit|dB|dctx|dk",
      "act. gradients dv, dF|dq",
      "chain temps (even); first-core copies",
      "L_d, fwd temps; odd chain temps; stats"};
  m.memories.resize(ttsim_hls::kFloatArenas + 1);
  for (int a = 0; a < ttsim_hls::kFloatArenas; ++a) {
    Memory& mem = m.memories[a];
    if (a == ttsim_hls::kGradArena) {
      grad_arena_buffers(slots, L, mem.buffers);
    } else {
      arena_buffers(slots, a, L.words[a], "", mem.buffers);
    }
    ttm_scratch_slot(hd, a, mem.buffers);
    mem.array = ttsim_hls::kArenaStems[a];
    mem.array += "_mem";
    mem.holds = kHolds[a];
    mem.words = std::max(1, L.words[a]);
    mem.width_bits = 32;
    mem.partition_type = Partition::kCompleteDim2;  // top.cc: every float arena, whatever the lanes
    mem.storage = Storage::kBram;
    mem.buffer_class = a == ttsim_hls::kParamArena  ? BufferClass::kParameter
                       : a == ttsim_hls::kGradArena ? BufferClass::kGradient
                       : a <= ttsim_hls::kSaved1Arena ? BufferClass::kActivation
                                                      : BufferClass::kTemporary;
  }
  {
    const std::int64_t slices = static_cast<std::int64_t>(hd.dims.emb.d) * hd.dims.seq_len;
    Memory& mem = m.memories[ttsim_hls::kFloatArenas];
    mem.array = "index_mem";
    mem.holds = "TTM slice offsets and labels (int32)";
    mem.words = static_cast<std::int64_t>(hd.dims.seq_len) * (hd.dims.emb.d + 1) + 1;
    mem.width_bits = 32;
    mem.partition = 1;
    mem.partition_type = Partition::kNone;
    mem.storage = Storage::kBram;
    mem.buffer_class.reset();
    mem.buffers.resize(2);
    mem.buffers[0].name = "ttm.slices";
    mem.buffers[0].offset = 0;
    mem.buffers[0].words = slices;
    mem.buffers[1].name = "labels";
    mem.buffers[1].offset = slices;
    mem.buffers[1].words = hd.dims.seq_len + 1;
  }
  // Every buffer of the step in the array the arena plan places it in (Buffer::memory, the
  // task graph's binding of each kernel argument, checked against the C simulation).
  m.memory_of_buffer.assign(graph.buffers.size(), -1);
  for (Memory& mem : m.memories) mem.graph_buffers.clear();
  for (const Buffer& b : graph.buffers) {
    const int i = memory_index(b.memory);
    if (i < 0) {
      throw InputError("buffer " + b.name + " of the step has no memory in the kernel tree's arena plan");
    }
    m.memory_of_buffer[b.id] = i;
    m.memories[i].graph_buffers.push_back(b.id);
  }
}

/// The partition of the float arenas (every one completely partitioned in dim 2 by the
/// arch's arena_banks, design_config.h kArenaBanks).
void partition_arenas(Machine& m, const ArchSpec& arch) {
  const int P = arena_banks(arch);
  m.partition = P;
  for (int a = 0; a < ttsim_hls::kFloatArenas; ++a) m.memories[a].partition = P;
}

/// KernelInstance::lane_aligned of every instance from the granules and the partition.
void align_lanes(Machine& m) {
  for (KernelInstance& k : m.instances) {
    const int g = m.lane_granule[static_cast<int>(k.unit)];
    k.lane_aligned = g > 0 && ttsim_hls::lane_alignable(k.lanes, m.partition) && g % k.lanes == 0;
  }
}

}  // namespace

void describe_into(Machine& m, const ArchSpec& arch, const DeviceSpec& device, const TaskGraph& graph,
                   const KernelLatencyModel& bound, const HlsDesign& hd, const TaskClasses& classes) {
  check_buildable(arch);
  describe_instances(m, arch, device, graph, bound, classes, true);
  describe_memories(m, graph, hd);
  partition_arenas(m, arch);
  align_lanes(m);
  choose_storage(m.memories, device);
}

void redescribe_into(Machine& m, const ArchSpec& arch, const DeviceSpec& device, const TaskGraph& graph,
                     const KernelLatencyModel& bound, const TaskClasses& classes) {
  if (m.memories.size() != ttsim_hls::kFloatArenas + 1 || m.memory_of_buffer.size() != graph.buffers.size() ||
      m.schedule.instance.size() != graph.tasks.size()) {
    throw std::invalid_argument("redescribe_into: the machine was not described for this graph");
  }
  check_buildable(arch);
  describe_instances(m, arch, device, graph, bound, classes, false);
  partition_arenas(m, arch);
  align_lanes(m);
  choose_storage(m.memories, device);
}

// Live words over the program order, +words at a buffer's first task, -words after its
// last, the peak taken once every change at a task is applied. The changes are bucketed by
// task (a counting sort), so the pass is linear in tasks + buffers.
std::vector<std::int64_t> peak_live_words(const Machine& m, const TaskGraph& graph) {
  if (m.memory_of_buffer.size() != graph.buffers.size()) {
    throw std::invalid_argument("peak_live_words: the machine was not described for this graph");
  }
  struct Change {
    int memory;
    std::int64_t words;
  };
  const int nt = static_cast<int>(graph.tasks.size());
  const std::size_t nb = graph.buffers.size();
  // Each buffer's live span [from, to] in tasks (from > to: never live).
  thread_local std::vector<int> span_from, span_to;
  // Counting sort: the changes at task t are sorted[at[t] .. at[t + 1]).
  thread_local std::vector<int> at;
  thread_local std::vector<Change> sorted;
  span_from.resize(nb);
  span_to.resize(nb);
  at.assign(nt + 3, 0);
  int* from = span_from.data();
  int* to = span_to.data();
  int* count = at.data();
  for (std::size_t id = 0; id < nb; ++id) {
    const Buffer& b = graph.buffers[id];
    // Parameters live for the whole step; a gradient from its first write to its update.
    const bool whole = b.cls == BufferClass::kParameter || b.first_task < 0;
    int first = whole ? 0 : b.first_task;
    const int last = whole ? nt - 1 : b.last_task;
    // The in-place kernels of the step (softmax over S, its gradient over dP, GELU's
    // gradient over dF: model_step.cc, attention.cc) write their output over their input:
    // the output takes its own words only after that task.
    if (!whole) {
      const TaskOp op = graph.tasks[first].op;
      if (op == TaskOp::kSoftmax || op == TaskOp::kSoftmaxGrad || op == TaskOp::kGeluGrad) ++first;
    }
    from[id] = first;
    to[id] = last;
    if (first > last) continue;
    ++count[first + 2];
    ++count[last + 3];
  }
  for (int t = 2; t < nt + 3; ++t) count[t] += count[t - 1];
  sorted.resize(at[nt + 2]);
  Change* out = sorted.data();
  for (std::size_t id = 0; id < nb; ++id) {
    if (from[id] > to[id]) continue;
    const int memory = m.memory_of_buffer[id];
    const std::int64_t words = graph.buffers[id].words;
    out[count[from[id] + 1]++] = {memory, words};
    out[count[to[id] + 2]++] = {memory, -words};
  }
  // at[t] now starts task t's changes and at[t + 1] ends them.
  std::array<std::int64_t, ttsim_hls::kFloatArenas + 1> live{}, peak{};
  if (m.memories.size() != live.size()) throw std::invalid_argument("peak_live_words: not the top's arrays");
  for (int t = 0; t <= nt; ++t) {
    const int end = count[t + 1];
    if (count[t] == end) continue;
    for (int k = count[t]; k < end; ++k) live[out[k].memory] += out[k].words;
    for (int k = count[t]; k < end; ++k) peak[out[k].memory] = std::max(peak[out[k].memory], live[out[k].memory]);
  }
  return std::vector<std::int64_t>(peak.begin(), peak.end());
}

int memory_index(int id) {
  if (id >= ttsim_spec::kParamMem && id < ttsim_spec::kParamMem + ttsim_hls::kFloatArenas) {
    return id - ttsim_spec::kParamMem;
  }
  return id == ttsim_spec::kIndexMem ? ttsim_hls::kFloatArenas : -1;
}

double card_watts(const Machine& m, double luts, double clock_mhz, const DeviceSpec& device) {
  if (device.card_max_watts <= 0 || !has_power_coefficients(device)) return 0;
  FpgaActivity a;
  a.clock_mhz = clock_mhz;
  a.dsp.units = static_cast<double>(m.dsp());
  a.bram36.units = static_cast<double>(m.bram36());
  a.uram288.units = static_cast<double>(m.uram288());
  a.kilo_lut.units = luts / 1000.0;
  return device.card_idle_watts + fpga_power(device, a).dynamic_watts();
}

ResourceUse machine_use(const Machine& m, double luts, double ffs, double clock_mhz, const DeviceSpec& device) {
  ResourceUse use;
  use.bram36 = static_cast<double>(m.bram36());
  use.uram288 = static_cast<double>(m.uram288());
  use.dsp = static_cast<double>(m.dsp());
  use.lut = luts;
  use.ff = ffs;
  use.card_watts = card_watts(m, luts, clock_mhz, device);
  use.clock_mhz = clock_mhz;
  return use;
}

std::vector<std::string> over_device(const Machine& m, double luts, double ffs, double clock_mhz,
                                     const DeviceSpec& device, double headroom_pct) {
  const ResourceUse use = machine_use(m, luts, ffs, clock_mhz, device);
  std::vector<std::string> out;
  for (const ResourceOverrun& o : resource_overruns(use, device, headroom_pct)) out.push_back(o.line());
  return out;
}

void module_calls_into(const Machine& m, std::vector<ModuleCalls>& out) {
  out.clear();
  for (std::size_t i = 0; i < m.instances.size(); ++i) {
    const KernelInstance& k = m.instances[i];
    if (k.calls == 0) continue;
    // fill_instances lists the modules in kTtsimModules' order: found at its own index (one
    // name compared), else by name.
    if (i < kModules && k.module == kTtsimModules[i].module) {
      out.push_back({kTtsimModules[i].argument_bits, k.call_sites});
      continue;
    }
    for (const TtsimModuleName& t : kTtsimModules) {
      if (k.module == t.module) out.push_back({t.argument_bits, k.call_sites});
    }
  }
}

}  // namespace ttsim::machine
