#include "hls/include/access_probe.h"

#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <utility>
#include <unordered_map>
#include <vector>

namespace ttsim_hls {

bool g_access_probing = false;

namespace {

constexpr std::int64_t kNoDistance = std::numeric_limits<std::int64_t>::max();
// Element-history keys: (element << kTagBits) | tag, tag = kMemoryTag for every array
// word (keyed by its address alone, so a word written through one kernel argument and
// read through another that is the same memory closes a recurrence on the reader) and
// kRegTag + register id for accumulator registers (never 0: 0 marks an empty slot).
constexpr int kTagBits = 10;
constexpr std::uint64_t kMemoryTag = 1;
constexpr std::uint64_t kRegTag = 512;
constexpr int kMaxIds = 511;
// Banks counted per array (bank_count stride).
constexpr std::size_t kMaxProbeBanks = 1024;

/// Names (string literals) → dense ids. Lookup by pointer through a direct-mapped cache,
/// then by content (the same name may come from several literals / call sites).
class NameTable {
 public:
  int id(const char* name) {
    const std::size_t h = (reinterpret_cast<std::uintptr_t>(name) >> 3) & (kCache - 1);
    if (cache_[h].ptr == name) return cache_[h].id;
    int id;
    auto it = by_name_.find(name);
    if (it != by_name_.end()) {
      id = it->second;
    } else {
      id = static_cast<int>(names_.size());
      names_.emplace_back(name);
      by_name_.emplace(names_.back(), id);
    }
    cache_[h] = {name, id};
    return id;
  }
  const std::string& name(int id) const { return names_[id]; }
  int size() const { return static_cast<int>(names_.size()); }

 private:
  static constexpr std::size_t kCache = 256;
  struct Entry {
    const char* ptr = nullptr;
    int id = -1;
  };
  Entry cache_[kCache];
  std::unordered_map<std::string, int> by_name_;
  std::vector<std::string> names_;
};

/// Measurements of one (loop, array or register).
struct VarStat {
  bool touched = false;
  int max_bank = 0;
  std::int64_t min_dist = kNoDistance;
  std::int64_t min_raw = kNoDistance;
  std::int64_t intra_raw = 0;  // reads of an element written earlier in the same iteration
  std::int64_t reads = 0, writes = 0;
};

struct LoopState {
  std::int64_t iterations = 0, invocations = 0;
  std::int64_t lane_start_gcd = 0;  // gcd of every lane access start (probe_lane_start)
  std::vector<VarStat> arrays;    // by array id
  std::vector<VarStat> regs;      // by register id
  std::vector<VarStat> memories;  // by registered memory (AccessProbeScope::add_memory)
  /// Distinct bindings seen, one per invocation: sorted (array id, memory) pairs.
  std::set<std::vector<std::pair<int, int>>> bindings;
};
/// A registered physical memory: word addresses [first, end).
struct MemoryRange {
  std::string name;
  std::uintptr_t first = 0, end = 0;
};

/// Last write of every element touched in the current invocation: open addressing,
/// linear probing. Entries of earlier invocations are stale (ignored, dropped on rebuild).
class History {
 public:
  struct Slot {
    std::uint64_t key;  // 0: empty
    std::uint64_t invocation;
    std::int64_t iteration;
  };
  History() { table_.assign(kMinCap, Slot{0, 0, 0}); }

  /// The slot holding `key`, or the empty slot where it would go.
  Slot* find(std::uint64_t key) {
    const std::size_t mask = table_.size() - 1;
    std::size_t i = hash(key) & mask;
    while (table_[i].key != 0 && table_[i].key != key) i = (i + 1) & mask;
    return &table_[i];
  }
  /// Makes room for one more entry (may rebuild: invalidates Slot pointers).
  void reserve_one(std::uint64_t live_invocation) {
    if (2 * (used_ + 1) <= table_.size()) return;
    std::vector<Slot> old;
    old.swap(table_);
    std::size_t live = 0;
    for (const Slot& s : old) live += s.key != 0 && s.invocation == live_invocation;
    std::size_t cap = kMinCap;
    while (cap < 4 * (live + 1)) cap *= 2;
    table_.assign(cap, Slot{0, 0, 0});
    used_ = 0;
    for (const Slot& s : old) {
      if (s.key == 0 || s.invocation != live_invocation) continue;
      *find(s.key) = s;
      ++used_;
    }
  }
  void occupy() { ++used_; }

 private:
  static constexpr std::size_t kMinCap = 1024;
  static std::size_t hash(std::uint64_t k) {
    return static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ull) >> 20);
  }
  std::vector<Slot> table_;
  std::size_t used_ = 0;
};

}  // namespace

struct ProbeState {
  explicit ProbeState(int p) : partition(p) {}
  const int partition;
  NameTable loop_names, array_names, reg_names;
  std::vector<int> sequence;                  // loop id of every invocation, in program order
  std::vector<std::int64_t> sequence_trips;   // its iterations
  std::vector<std::vector<std::pair<int, int>>> sequence_bindings;  // its (array id, memory) pairs
  std::vector<std::string> sequence_shapes;   // its call's shape (probe_call_shape), or empty
  std::string pending_shape;                  // set by probe_call_shape for the next begin
  std::vector<std::unique_ptr<LoopState>> loops;  // by loop id
  LoopState* cur = nullptr;  // loop of the invocation in progress, or null
  int cur_id = -1;
  bool in_iteration = false;
  std::int64_t iteration = -1;      // index within the invocation
  std::uint64_t invocation = 0;     // serial of the invocation in progress
  std::uint64_t iteration_serial = 0;  // serial over every iteration (bank-count epochs)
  std::vector<int> bank_count;              // [array id · kMaxProbeBanks + bank]
  std::vector<std::uint64_t> bank_epoch;    // iteration_serial of bank_count
  std::vector<MemoryRange> memories;        // registered physical memories
  std::vector<int> mem_count;               // [memory · kMaxProbeBanks + bank]
  std::vector<std::uint64_t> mem_epoch;     // iteration_serial of mem_count
  std::vector<std::pair<int, int>> binding; // (array id, memory) of the invocation in progress
  /// Files the binding of the invocation in progress with its loop.
  void flush_binding() {
    if (cur && !binding.empty()) {
      std::sort(binding.begin(), binding.end());
      binding.erase(std::unique(binding.begin(), binding.end()), binding.end());
      cur->bindings.insert(binding);
      if (!sequence_bindings.empty()) sequence_bindings.back() = binding;
    }
    binding.clear();
  }
  History history;

  void begin(int loop_id) {
    flush_binding();
    if (loop_id >= static_cast<int>(loops.size())) loops.resize(loop_id + 1);
    if (!loops[loop_id]) loops[loop_id].reset(new LoopState);
    cur = loops[loop_id].get();
    cur_id = loop_id;
    sequence.push_back(loop_id);
    sequence_trips.push_back(0);
    sequence_bindings.emplace_back();
    sequence_shapes.push_back(pending_shape);
    pending_shape.clear();
    ++cur->invocations;
    ++invocation;
    iteration = -1;
    in_iteration = false;
  }

  /// Records the element history of `key` for stat `st` (current loop, iteration).
  void touch(std::uint64_t key, bool write, VarStat& st) {
    if (write) history.reserve_one(invocation);
    History::Slot* s = history.find(key);
    if (s->key == key && s->invocation == invocation && s->iteration < iteration) {
      const std::int64_t d = iteration - s->iteration;
      if (d < st.min_dist) st.min_dist = d;
      if (!write && d < st.min_raw) st.min_raw = d;
    } else if (!write && s->key == key && s->invocation == invocation && s->iteration == iteration) {
      ++st.intra_raw;
    }
    if (write) {
      if (s->key != key) {
        s->key = key;
        history.occupy();
      }
      s->invocation = invocation;
      s->iteration = iteration;
    }
  }
};

namespace {
ProbeState* g_state = nullptr;

VarStat& stat_of(std::vector<VarStat>& v, int id) {
  if (id >= static_cast<int>(v.size())) v.resize(id + 1);
  return v[id];
}

void fill(MeasuredLoop& m, const std::string& name, const VarStat& st, bool is_array) {
  if (!st.touched) return;
  if (is_array) {
    int& b = m.max_bank_accesses[name];
    if (st.max_bank > b) b = st.max_bank;
  }
  auto keep_min = [&](std::map<std::string, std::int64_t>& into, std::int64_t d) {
    if (d == kNoDistance) return;
    auto it = into.find(name);
    if (it == into.end() || d < it->second) into[name] = d;
  };
  keep_min(m.min_distance, st.min_dist);
  keep_min(m.min_raw_distance, st.min_raw);
  if (st.intra_raw > 0) m.intra_raw_reads[name] += st.intra_raw;
  m.reads[name] += st.reads;
  m.writes[name] += st.writes;
}
}  // namespace

void probe_loop_begin(const char* loop) {
  if (g_state) g_state->begin(g_state->loop_names.id(loop));
}

void probe_call_shape(int variant, int batch, int rows, int inner, int cols) {
  if (!g_state) return;
  g_state->pending_shape = "v" + std::to_string(variant) + " " + std::to_string(batch) + "x" + std::to_string(rows) +
                           "x" + std::to_string(inner) + "x" + std::to_string(cols);
}

void probe_loop_iter(const char* loop) {
  ProbeState* p = g_state;
  if (!p) return;
  const int id = p->loop_names.id(loop);
  if (p->cur == nullptr || id != p->cur_id) p->begin(id);
  ++p->iteration;
  ++p->iteration_serial;
  p->in_iteration = true;
  ++p->cur->iterations;
  ++p->sequence_trips.back();
}

namespace {
/// Greatest common divisor of a and |b| (a >= 0; gcd64(0, b) = |b|). This file is compiled
/// as C++14 in an emitted build's C simulation (run_hls.tcl), which has no std::gcd.
std::int64_t gcd64(std::int64_t a, std::int64_t b) {
  if (b < 0) b = -b;
  while (b != 0) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}
}  // namespace

void probe_lane_start(int start) {
  ProbeState* p = g_state;
  if (!p || !p->in_iteration) return;
  p->cur->lane_start_gcd = gcd64(p->cur->lane_start_gcd, start);
}

void probe_loop_end(const char*) {
  ProbeState* p = g_state;
  if (!p) return;
  p->flush_binding();
  p->cur = nullptr;
  p->cur_id = -1;
  p->in_iteration = false;
}

namespace {
/// Counts one access of bank `bank` of array `id` in the current iteration.
void count_bank(ProbeState* p, VarStat& st, int id, std::size_t bank) {
  if (bank >= kMaxProbeBanks) std::abort();  // more banks than the probe counts
  const std::size_t need = static_cast<std::size_t>(id + 1) * kMaxProbeBanks;
  if (p->bank_count.size() < need) {
    p->bank_count.resize(need, 0);
    p->bank_epoch.resize(need, 0);
  }
  const std::size_t b = static_cast<std::size_t>(id) * kMaxProbeBanks + bank;
  if (p->bank_epoch[b] != p->iteration_serial) {
    p->bank_epoch[b] = p->iteration_serial;
    p->bank_count[b] = 0;
  }
  const int c = ++p->bank_count[b];
  if (c > st.max_bank) st.max_bank = c;
}

/// Counts one access of bank `bank` of the registered memory holding `word_address`
/// (none: not counted), pooled over every kernel argument bound to it.
void count_memory_bank(ProbeState* p, int array_id, std::uintptr_t word_address, std::size_t bank) {
  for (std::size_t m = 0; m < p->memories.size(); ++m) {
    const MemoryRange& r = p->memories[m];
    if (word_address < r.first || word_address >= r.end) continue;
    if (p->binding.empty() || p->binding.back() != std::make_pair(array_id, static_cast<int>(m))) {
      p->binding.emplace_back(array_id, static_cast<int>(m));
    }
    const std::size_t need = (m + 1) * kMaxProbeBanks;
    if (p->mem_count.size() < need) {
      p->mem_count.resize(need, 0);
      p->mem_epoch.resize(need, 0);
    }
    const std::size_t b = m * kMaxProbeBanks + bank;
    if (p->mem_epoch[b] != p->iteration_serial) {
      p->mem_epoch[b] = p->iteration_serial;
      p->mem_count[b] = 0;
    }
    VarStat& st = stat_of(p->cur->memories, static_cast<int>(m));
    st.touched = true;
    const int c = ++p->mem_count[b];
    if (c > st.max_bank) st.max_bank = c;
    return;
  }
}

/// The stat of array `array` in the current iteration, with the access counted; null
/// when no iteration is in progress.
VarStat* array_stat(ProbeState* p, const char* array, bool write, int* id_out) {
  if (!p || !p->in_iteration) return nullptr;
  const int id = p->array_names.id(array);
  if (id >= kMaxIds) std::abort();  // more distinct array names than the key has tags
  VarStat& st = stat_of(p->cur->arrays, id);
  st.touched = true;
  ++(write ? st.writes : st.reads);
  *id_out = id;
  return &st;
}
}  // namespace

void probe_access(const char* array, std::uintptr_t word_address, bool write) {
  ProbeState* p = g_state;
  int id = 0;
  VarStat* st = array_stat(p, array, write, &id);
  if (!st) return;
  count_bank(p, *st, id, word_address % static_cast<std::size_t>(p->partition));
  count_memory_bank(p, id, word_address, word_address % static_cast<std::size_t>(p->partition));
  p->touch((static_cast<std::uint64_t>(word_address) << kTagBits) | kMemoryTag, write, *st);
}

void probe_bank_access(const char* array, std::uintptr_t word_address, int bank, int banks,
                       bool write) {
  ProbeState* p = g_state;
  int id = 0;
  VarStat* st = array_stat(p, array, write, &id);
  if (!st) return;
  if (bank >= 0) {
    count_bank(p, *st, id, static_cast<std::size_t>(bank));
    count_memory_bank(p, id, word_address, static_cast<std::size_t>(bank));
  } else {
    for (int b = 0; b < banks; ++b) {
      count_bank(p, *st, id, static_cast<std::size_t>(b));
      count_memory_bank(p, id, word_address, static_cast<std::size_t>(b));
    }
  }
  p->touch((static_cast<std::uint64_t>(word_address) << kTagBits) | kMemoryTag, write, *st);
}

void probe_reg(const char* var, long slot, bool write) {
  ProbeState* p = g_state;
  if (!p || !p->in_iteration) return;
  const int id = p->reg_names.id(var);
  if (id >= kMaxIds) std::abort();
  VarStat& st = stat_of(p->cur->regs, id);
  st.touched = true;
  ++(write ? st.writes : st.reads);
  p->touch((static_cast<std::uint64_t>(slot) << kTagBits) | (kRegTag + id), write, st);
}

AccessProbeScope::AccessProbeScope(int partition)
    : partition_(partition < 1 ? 1 : partition),
      state_(new ProbeState(partition_)),
      outer_(g_state) {
  g_state = state_;
  g_access_probing = true;
}

void AccessProbeScope::add_memory(const std::string& name, const void* first, std::size_t bytes,
                                  std::size_t element_bytes) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(first) / element_bytes;
  state_->memories.push_back({name, a, a + bytes / element_bytes});
}

AccessProbeScope::~AccessProbeScope() {
  g_state = outer_;
  if (outer_) probe_loop_end(nullptr);
  g_access_probing = outer_ != nullptr;
  delete state_;
}

std::vector<LoopInvocation> AccessProbeScope::sequence() const {
  state_->flush_binding();
  const ProbeState& p = *state_;
  std::vector<LoopInvocation> out;
  out.reserve(p.sequence.size());
  for (std::size_t i = 0; i < p.sequence.size(); ++i) {
    LoopInvocation v{p.loop_names.name(p.sequence[i]), p.sequence_trips[i], {}, p.sequence_shapes[i]};
    for (const auto& [array, memory] : p.sequence_bindings[i]) {
      v.binding[p.array_names.name(array)] = p.memories[memory].name;
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::map<std::string, MeasuredLoop> AccessProbeScope::loops() const {
  std::map<std::string, MeasuredLoop> out;
  state_->flush_binding();
  const ProbeState& p = *state_;
  for (std::size_t l = 0; l < p.loops.size(); ++l) {
    const LoopState* ls = p.loops[l].get();
    if (!ls || ls->invocations == 0) continue;
    MeasuredLoop& m = out[p.loop_names.name(static_cast<int>(l))];
    m.iterations += ls->iterations;
    m.invocations += ls->invocations;
    m.lane_start_gcd = gcd64(m.lane_start_gcd, ls->lane_start_gcd);
    for (std::size_t a = 0; a < ls->arrays.size(); ++a) {
      fill(m, p.array_names.name(static_cast<int>(a)), ls->arrays[a], true);
    }
    for (std::size_t r = 0; r < ls->regs.size(); ++r) {
      fill(m, p.reg_names.name(static_cast<int>(r)), ls->regs[r], false);
    }
    for (const auto& b : ls->bindings) {
      std::map<std::string, std::string> named;
      for (const auto& [array, memory] : b) named[p.array_names.name(array)] = p.memories[memory].name;
      m.bindings.insert(named);
    }
    for (std::size_t k = 0; k < ls->memories.size(); ++k) {
      if (!ls->memories[k].touched) continue;
      int& b = m.max_memory_bank_accesses[p.memories[k].name];
      if (ls->memories[k].max_bank > b) b = ls->memories[k].max_bank;
    }
  }
  return out;
}

}  // namespace ttsim_hls

#endif
