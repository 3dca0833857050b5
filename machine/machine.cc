#include "machine/machine.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "core/errors.h"
#include "hls/include/kernel_spec.h"
#include "hls/kernels/modules.h"
#include "hls/loop_nest.h"
#include "sim/kernel_latency.h"
#include "sim/memplan/block_arith.h"

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
  if (module == "ttsim_add") return ttsim_spec::kAddPlain;
  if (module == "ttsim_add_accumulate") return ttsim_spec::kAddAccumulate;
  if (module == "ttsim_column_sum") return ttsim_spec::kAddColumnSum;
  return -1;
}

/// DSPs of one instance of `module`: Σ loop_dsp over the spec loops it runs.
std::int64_t module_dsp(TaskOp op, int variant, int lanes, const DeviceSpec& device) {
  const ttsim_spec::KernelSpec& ks = kernel_spec(op);
  std::int64_t d = 0;
  for (int i = 0; i < ks.n_loops; ++i) {
    if (variant >= 0 && ks.loops[i].variant != variant) continue;
    d += loop_dsp(ks.loops[i], lanes, device);
  }
  return d;
}

void fill_blocks(Memory& m) {
  const std::int64_t depth = std::max<std::int64_t>(1, m.bank_words());
  m.bram36 = m.uram288 = 0;
  if (m.storage == Storage::kUram) {
    m.uram288 = m.partition * memplan::uram_blocks(depth, m.width_bits);
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
  std::vector<std::size_t> deep;
  std::int64_t base_bram = 0;
  // Blocks of each deep array in BRAM and in URAM, computed once; the masks only add them.
  std::vector<std::int64_t> deep_bram, deep_uram;
  for (std::size_t i = 0; i < mems.size(); ++i) {
    mems[i].storage = Storage::kBram;
    fill_blocks(mems[i]);
    if (mems[i].bank_words() >= 2048) {
      deep.push_back(i);
      deep_bram.push_back(mems[i].bram36);
      Memory u = mems[i];
      u.buffers.clear();
      u.graph_buffers.clear();
      u.storage = Storage::kUram;
      fill_blocks(u);
      deep_uram.push_back(u.uram288);
    } else {
      base_bram += mems[i].bram36;
    }
  }
  const double bram_cap = std::max<std::int64_t>(1, device.bram36);
  const double uram_cap = std::max<std::int64_t>(1, device.uram288);
  // Every mask in Gray-code order (one array changes storage per step, so the totals are
  // updated, not summed again); among equal utilisation and blocks the lowest mask wins,
  // as in ascending order.
  std::uint32_t best_mask = 0;
  double best_util = 0;
  std::int64_t best_blocks = -1;
  std::int64_t bram = base_bram, uram = 0;
  for (std::int64_t b : deep_bram) bram += b;
  const std::uint32_t masks = 1u << deep.size();
  for (std::uint32_t step = 0; step < masks; ++step) {
    const std::uint32_t mask = step ^ (step >> 1);
    if (step > 0) {
      const std::uint32_t changed = mask ^ ((step - 1) ^ ((step - 1) >> 1));
      std::size_t b = 0;
      while (!(changed & (1u << b))) ++b;
      if (mask & changed) {
        bram -= deep_bram[b];
        uram += deep_uram[b];
      } else {
        bram += deep_bram[b];
        uram -= deep_uram[b];
      }
    }
    const double util = std::max(bram / bram_cap, uram / uram_cap);
    const std::int64_t blocks = bram + uram;
    if (best_blocks < 0 || util < best_util - 1e-12 ||
        (std::abs(util - best_util) <= 1e-12 && (blocks < best_blocks || (blocks == best_blocks && mask < best_mask)))) {
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

/// Buffers of an arena from (name, offset) pairs allocated in order; each extends to the
/// next offset (or the arena's end). Zero-word slots are dropped.
std::vector<MemoryBuffer> buffers_of(std::vector<std::pair<std::string, std::int64_t>> slots,
                                     std::int64_t end) {
  std::stable_sort(slots.begin(), slots.end(), [](auto& a, auto& b) { return a.second < b.second; });
  std::vector<MemoryBuffer> out;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::int64_t next = i + 1 < slots.size() ? slots[i + 1].second : end;
    if (next > slots[i].second) out.push_back({slots[i].first, slots[i].second, next - slots[i].second});
  }
  return out;
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
  const std::string file = arch.source_file.empty() ? arch.name : arch.source_file;
  const HlsDesign hd = hls_design(model, arch, file);
  const ttsim_hls::Layout& L = hd.layout;
  Machine m;

  // Kernel instances: one per module of hls/kernels/modules.h.
  for (const TtsimModuleName& mod : kTtsimModules) {
    KernelInstance k;
    k.module = mod.module;
    k.op = op_named(mod.task_op);
    k.unit = unit_of(k.op);
    k.variant = module_variant(k.module);
    k.count = 1;
    k.lanes = arch.unit(k.unit).lanes;
    k.dsp = module_dsp(k.op, k.variant, k.lanes, device);
    m.instances.push_back(k);
  }

  // Schedule: program order, one task at a time.
  m.schedule.instance.assign(graph.tasks.size(), -1);
  m.schedule.order.reserve(graph.tasks.size());
  std::vector<std::vector<int>> loop_at(m.instances.size());  // by instance, kernel loop: its LoopTrips
  for (const Task& t : graph.tasks) {
    int idx = -1;
    for (std::size_t i = 0; i < m.instances.size(); ++i) {
      const KernelInstance& k = m.instances[i];
      if (k.op == t.op && (k.variant < 0 || k.variant == t.shape.variant)) {
        idx = static_cast<int>(i);
        break;
      }
    }
    if (idx < 0) {
      throw InputError("task " + t.name + " (" + ttsim::to_string(t.op) + ", variant " +
                       std::to_string(t.shape.variant) + ") has no kernel module in hls/kernels/modules.h");
    }
    m.schedule.order.push_back(t.id);
    m.schedule.instance[t.id] = idx;
    KernelInstance& inst = m.instances[idx];
    ++inst.call_sites;
    // The trips of the loops kernel_loops(t.op, t.shape, inst.lanes) runs, without building
    // their specifications; that function raises the error of a shape it refuses.
    const ttsim_spec::KernelSpec& ks = kernel_spec(t.op);
    std::vector<int>& at = loop_at[idx];
    at.resize(ks.n_loops, -1);
    const TaskShape& s = t.shape;
    bool runs = inst.lanes >= 1 && s.batch >= 1 && s.rows >= 1 && s.inner >= 1 && s.cols >= 1 && s.variant >= 0;
    bool any = false;
    for (int i = 0; runs && i < ks.n_loops; ++i) {
      const std::int64_t trip = loop_trip(ks.loops[i], s, inst.lanes);
      if (trip <= 0) continue;
      any = true;
      if (at[i] < 0) {
        at[i] = static_cast<int>(inst.loops.size());
        inst.loops.push_back({ks.loops[i].name, trip, trip});
      } else {
        LoopTrips& l = inst.loops[at[i]];
        l.min = std::min(l.min, trip);
        l.max = std::max(l.max, trip);
      }
    }
    if (!any) kernel_loops(t.op, t.shape, inst.lanes);  // throws why no loop runs
  }
  // Loops in specification order (the order of kernel_spec.h).
  for (KernelInstance& k : m.instances) {
    const ttsim_spec::KernelSpec& ks = kernel_spec(k.op);
    auto rank = [&](const std::string& name) {
      for (int i = 0; i < ks.n_loops; ++i) {
        if (name == ks.loops[i].name) return i;
      }
      return ks.n_loops;
    };
    std::stable_sort(k.loops.begin(), k.loops.end(),
                     [&](const LoopTrips& a, const LoopTrips& b) { return rank(a.loop) < rank(b.loop); });
  }
  // The II of every loop: one static schedule per instance, at its worst call.
  {
    for (KernelInstance& k : m.instances) {
      const std::vector<LoopLatency> classes = lat.loop_classes(k.unit, k.op);
      for (LoopTrips& t : k.loops) {
        for (const LoopLatency& c : classes) {
          if (c.name == t.loop) t.ii = c.ii;
        }
      }
    }
  }

  // Memories: the top's static arenas (hls/kernels/top.cc, model_step.h ArenaId),
  // partitioned by the largest lane count (design_config.h kArenaBanks).
  int P = 1;
  for (const UnitSpec& u : arch.units) P = std::max(P, u.lanes);
  m.partition = P;
  m.param_words = L.param_words;
  using ttsim_hls::ArenaId;
  std::vector<std::pair<std::string, std::int64_t>> slots[ttsim_hls::kFloatArenas];
  auto put = [&](ArenaId a, std::string name, std::int64_t off) { slots[a].push_back({std::move(name), off}); };
  put(ttsim_hls::kParamArena, "embedding.cores", L.emb_cores);
  put(ttsim_hls::kParamArena, "embedding.position", L.pos);
  put(ttsim_hls::kParamArena, "embedding.ln.gain", L.lne_g);
  put(ttsim_hls::kParamArena, "embedding.ln.bias", L.lne_b);
  for (int e = 0; e < hd.dims.encoders; ++e) {
    const ttsim_hls::EncoderSlots& es = L.enc[e];
    const std::string p = "enc" + std::to_string(e) + ".";
    for (int i = 0; i < ttsim_hls::kLinearsPerEncoder; ++i) {
      put(ttsim_hls::kParamArena, p + kLinearNames[i] + ".cores", es.lin[i].w);
      put(ttsim_hls::kParamArena, p + kLinearNames[i] + ".bias", es.lin[i].b);
      put(ttsim_hls::kSaved0Arena, p + kLinearNames[i] + ".saved", es.lin[i].saved[0]);
      put(ttsim_hls::kSaved1Arena, p + kLinearNames[i] + ".saved", es.lin[i].saved[1]);
      put(ttsim_hls::kOutArena, p + kLinearNames[i] + ".y", es.lin[i].y);
    }
    put(ttsim_hls::kParamArena, p + "ln1.gain", es.ln1_g);
    put(ttsim_hls::kParamArena, p + "ln1.bias", es.ln1_b);
    put(ttsim_hls::kParamArena, p + "ln2.gain", es.ln2_g);
    put(ttsim_hls::kParamArena, p + "ln2.bias", es.ln2_b);
    put(ttsim_hls::kSaved0Arena, p + "attn.P", es.P);
    put(ttsim_hls::kActArena, p + "attn.ctx", es.ctx);
    put(ttsim_hls::kActArena, p + "a1", es.a1);
    put(ttsim_hls::kActArena, p + "h1", es.h1);
    put(ttsim_hls::kSaved1Arena, p + "ln1.xhat", es.xhat1);
    put(ttsim_hls::kSaved1Arena, p + "ln1.rstd", es.rstd1);
    put(ttsim_hls::kActArena, p + "gelu", es.g);
    put(ttsim_hls::kActArena, p + "a2", es.a2);
    put(ttsim_hls::kActArena, p + "h2", es.h2);
    put(ttsim_hls::kSaved1Arena, p + "ln2.xhat", es.xhat2);
    put(ttsim_hls::kSaved1Arena, p + "ln2.rstd", es.rstd2);
  }
  put(ttsim_hls::kParamArena, "intent_head.weight", L.wi);
  put(ttsim_hls::kParamArena, "intent_head.bias", L.bi);
  put(ttsim_hls::kParamArena, "slot_head.weight", L.ws);
  put(ttsim_hls::kParamArena, "slot_head.bias", L.bs);
  put(ttsim_hls::kSaved0Arena, "embedding.saved", L.emb_saved[0]);
  put(ttsim_hls::kSaved1Arena, "embedding.saved", L.emb_saved[1]);
  put(ttsim_hls::kOutArena, "embedding.E", L.E);
  put(ttsim_hls::kActArena, "embedding.x0", L.x0);
  put(ttsim_hls::kActArena, "embedding.h0", L.h0);
  put(ttsim_hls::kSaved1Arena, "embedding.ln.xhat", L.xhat0);
  put(ttsim_hls::kSaved1Arena, "embedding.ln.rstd", L.rstd0);
  put(ttsim_hls::kOutArena, "intent_head.logits", L.logit_i);
  put(ttsim_hls::kOutArena, "slot_head.logits", L.logit_s);
  put(ttsim_hls::kBwdAArena, "dA", L.dA);
  put(ttsim_hls::kBwdAArena, "dP", L.dP);
  put(ttsim_hls::kBwdBArena, "dB", L.dB);
  put(ttsim_hls::kBwdBArena, "dctx", L.dctx);
  put(ttsim_hls::kBwdBArena, "dq", L.dq);
  put(ttsim_hls::kBwdBArena, "dk", L.dk);
  put(ttsim_hls::kBwdBArena, "dlogits.intent", L.dlogit_i);
  put(ttsim_hls::kBwdBArena, "dlogits.slot", L.dlogit_s);
  put(ttsim_hls::kBwdCArena, "dv", L.dv);
  put(ttsim_hls::kBwdCArena, "dF", L.dF);
  put(ttsim_hls::kStatArena, "stat", L.stat);
  put(ttsim_hls::kChain0Arena, "linear.scratch", L.lin_scratch[0]);
  put(ttsim_hls::kChain1Arena, "linear.scratch", L.lin_scratch[1]);
  put(ttsim_hls::kChain0Arena, "ttm.scratch", L.ttm_scratch[0]);
  put(ttsim_hls::kChain1Arena, "ttm.scratch", L.ttm_scratch[1]);
  static const char* const kHolds[ttsim_hls::kFloatArenas] = {
      "parameters",
      "gradients",
      "layer inputs, residual sums",
      "layer outputs: linear Y, E, logits",
      "saved chain steps (even), attn P",
      "saved chain steps (odd), LN x^, 1/s",
      "act. gradients dA, dP",
      "act. gradients dB, dctx, dq, dk, dlogit",
      "act. gradients dv, dF",
      "backward chain temporaries (even)",
      "backward chain temporaries (odd)",
      "row statistics"};
  for (int a = 0; a < ttsim_hls::kFloatArenas; ++a) {
    const std::int64_t words = std::max(1, L.words[a]);
    std::vector<MemoryBuffer> buffers = buffers_of(slots[a], L.words[a]);
    if (a == ttsim_hls::kGradArena) {
      buffers = buffers_of(slots[ttsim_hls::kParamArena], L.param_words);
      for (auto& b : buffers) b.name += ".grad";
    }
    Memory mem;
    mem.array = std::string(ttsim_hls::kArenaStems[a]) + "_mem";
    mem.holds = kHolds[a];
    mem.words = words;
    mem.width_bits = 32;
    mem.partition = P;
    mem.partition_type = Partition::kCompleteDim2;  // top.cc: every float arena, whatever P
    mem.storage = Storage::kBram;
    mem.buffers = std::move(buffers);
    mem.buffer_class = a == ttsim_hls::kParamArena  ? BufferClass::kParameter
                       : a == ttsim_hls::kGradArena ? BufferClass::kGradient
                       : a <= ttsim_hls::kSaved1Arena ? BufferClass::kActivation
                                                      : BufferClass::kTemporary;
    fill_blocks(mem);
    m.memories.push_back(std::move(mem));
  }
  {
    const std::int64_t index_words = static_cast<std::int64_t>(hd.dims.seq_len) * (hd.dims.emb.d + 1) + 1;
    Memory mem;
    mem.array = "index_mem";
    mem.holds = "TTM slice offsets and labels (int32)";
    mem.words = index_words;
    mem.partition = 1;
    mem.partition_type = Partition::kNone;
    mem.buffers = {{"ttm.slices", 0, static_cast<std::int64_t>(hd.dims.emb.d) * hd.dims.seq_len},
                   {"labels", static_cast<std::int64_t>(hd.dims.emb.d) * hd.dims.seq_len, hd.dims.seq_len + 1}};
    fill_blocks(mem);
    m.memories.push_back(std::move(mem));
  }
  // Every buffer of the step in the array the arena plan places it in (Buffer::memory, the
  // task graph's binding of each kernel argument, checked against the C simulation).
  m.memory_of_buffer.assign(graph.buffers.size(), -1);
  for (const Buffer& b : graph.buffers) {
    const int i = memory_index(b.memory);
    if (i < 0) {
      throw InputError("buffer " + b.name + " of the step has no memory in the kernel tree's arena plan");
    }
    m.memory_of_buffer[b.id] = i;
    m.memories[i].graph_buffers.push_back(b.id);
  }
  // Live words per array over the program order: +words at a buffer's first task, −words
  // after its last.
  for (Memory& mem : m.memories) {
    std::vector<std::int64_t> delta(graph.tasks.size() + 1, 0);
    for (int id : mem.graph_buffers) {
      const Buffer& b = graph.buffers[id];
      const bool whole = b.cls == BufferClass::kParameter || b.cls == BufferClass::kGradient || b.first_task < 0;
      int first = whole ? 0 : b.first_task;
      const int last = whole ? static_cast<int>(graph.tasks.size()) - 1 : b.last_task;
      // The in-place kernels of the step (softmax over S, its gradient over dP, GELU's
      // gradient over dF: model_step.cc, attention.cc) write their output over their input:
      // the output takes its own words only after that task.
      if (!whole) {
        const TaskOp op = graph.tasks[first].op;
        if (op == TaskOp::kSoftmax || op == TaskOp::kSoftmaxGrad || op == TaskOp::kGeluGrad) ++first;
      }
      if (first > last) continue;
      delta[first] += b.words;
      delta[last + 1] -= b.words;
    }
    std::int64_t live = 0;
    for (std::int64_t d : delta) {
      live += d;
      mem.peak_live_words = std::max(mem.peak_live_words, live);
    }
  }
  choose_storage(m.memories, device);
  return m;
}

int memory_index(int id) {
  if (id >= ttsim_spec::kParamMem && id < ttsim_spec::kParamMem + ttsim_hls::kFloatArenas) {
    return id - ttsim_spec::kParamMem;
  }
  return id == ttsim_spec::kIndexMem ? ttsim_hls::kFloatArenas : -1;
}

std::vector<std::string> over_device(const Machine& m, const DeviceSpec& device) {
  std::vector<std::string> out;
  auto check = [&](const char* what, std::int64_t need, std::int64_t have) {
    if (need > have) out.push_back(fmt::format("{} {} needed, {} available", what, need, have));
  };
  check("DSP", m.dsp(), device.dsp);
  check("BRAM36", m.bram36(), device.bram36);
  check("URAM288", m.uram288(), device.uram288);
  return out;
}

}  // namespace ttsim::machine
