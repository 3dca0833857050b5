#include "sim/memplan/memory_plan.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "core/errors.h"
#include "sim/memplan/precedence.h"

namespace ttsim::memplan {

namespace {

constexpr BufferClass kClasses[] = {BufferClass::kParameter, BufferClass::kGradient,
                                    BufferClass::kActivation, BufferClass::kTemporary};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

Primitive primitive_of(MemoryKind k) {
  return k == MemoryKind::kUram ? Primitive::kUram288 : Primitive::kRamb18;
}

void validate(const TaskGraph& g, const MemoryOptions& o) {
  const int nb = static_cast<int>(g.buffers.size());
  for (int i = 0; i < nb; ++i) {
    const Buffer& b = g.buffers[i];
    if (b.id != i) {
      throw InputError(fmt::format("buffer \"{}\" at index {}: expected id {}, found {}", b.name, i,
                                   i, b.id));
    }
    if (b.words < 0) {
      throw InputError(fmt::format("buffer \"{}\": expected words >= 0, found {}", b.name, b.words));
    }
  }
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    const Task& t = g.tasks[i];
    for (const auto* list : {&t.reads, &t.writes}) {
      for (int b : *list) {
        if (b < 0 || b >= nb) {
          throw InputError(fmt::format("task \"{}\": buffer id {} out of range [0, {})", t.name, b, nb));
        }
      }
    }
    for (int d : t.deps) {
      if (d < 0 || d >= static_cast<int>(i)) {
        throw InputError(fmt::format(
            "task \"{}\" (index {}): dependency {} is not an earlier task", t.name, i, d));
      }
    }
  }
  for (const auto& [k, l] : o.lanes) {
    if (l < 1) throw InputError(fmt::format("lanes of unit \"{}\": expected >= 1, found {}", to_string(k), l));
  }
  if (o.ports < 2) throw InputError(fmt::format("ports per memory: expected >= 2, found {}", o.ports));
  if (o.word_bits < 1) throw InputError(fmt::format("word bits: expected >= 1, found {}", o.word_bits));
  if (o.uram_min_depth < 1) {
    throw InputError(fmt::format("URAM minimum depth: expected >= 1, found {}", o.uram_min_depth));
  }
}

/// Everything strategy-independent about the buffers.
struct Prepared {
  const TaskGraph* graph = nullptr;
  const DeviceSpec* device = nullptr;
  const MemoryOptions* options = nullptr;
  BufferOrder order;
  std::vector<int> width;  ///< W_b: words per address that gives enough port accesses
  /// Per buffer: (task, port accesses per cycle) for every task touching it, in a
  /// memory of 1 partition × width[b] words per address (ascending task).
  std::vector<std::vector<std::pair<int, int>>> access;
  std::vector<char> static_buffer;  ///< is_whole_step, by buffer id
  Occupancy occupancy;

  Prepared(const TaskGraph& g, const DeviceSpec& d, const MemoryOptions& o)
      : graph(&g), device(&d), options(&o), order(g) {
    const std::size_t nb = g.buffers.size();
    width.assign(nb, 1);
    access.assign(nb, {});
    static_buffer.assign(nb, 0);
    std::vector<int> task_lanes(g.tasks.size());
    for (std::size_t t = 0; t < g.tasks.size(); ++t) task_lanes[t] = o.lanes_of(g.tasks[t].unit);
    for (std::size_t b = 0; b < nb; ++b) {
      const auto& touch = order.touching(static_cast<int>(b));
      static_buffer[b] = whole_step(g.buffers[b]) || touch.empty();
      // Reads / writes of b by each touching task; ceil(P / W) accesses per direction.
      auto& acc = access[b];
      acc.reserve(touch.size());
      std::vector<std::pair<bool, bool>> rw;
      rw.reserve(touch.size());
      for (int t : touch) {
        const Task& task = g.tasks[t];
        const int id = static_cast<int>(b);
        rw.emplace_back(std::find(task.reads.begin(), task.reads.end(), id) != task.reads.end(),
                        std::find(task.writes.begin(), task.writes.end(), id) != task.writes.end());
      }
      auto accesses = [&](std::size_t i, int w) {
        const int one = static_cast<int>(ceil_div(task_lanes[touch[i]], w));
        return (rw[i].first ? one : 0) + (rw[i].second ? one : 0);
      };
      // Smallest W whose accesses fit the ports in every touching task.
      int w = 1;
      for (;;) {
        bool ok = true;
        for (std::size_t i = 0; i < touch.size(); ++i) {
          if (accesses(i, w) > o.ports) {
            ok = false;
            break;
          }
        }
        if (ok) break;
        ++w;
      }
      width[b] = w;
      for (std::size_t i = 0; i < touch.size(); ++i) acc.emplace_back(touch[i], accesses(i, w));
    }
    occupancy = compute_occupancy(g, o.word_bits / 8 > 0 ? o.word_bits / 8 : 1);
  }
  int lanes(int task) const { return options->lanes_of(graph->tasks[task].unit); }
  bool is_whole_step(int b) const { return static_buffer[b] != 0; }
};

void fill_memory_counts(MemoryInstance& m, int word_bits) {
  m.bram18 = m.uram = 0;
  m.allocated_bits = 0;
  if (m.depth < 1) return;
  if (m.kind == MemoryKind::kBram || m.kind == MemoryKind::kUram) {
    m.layout = best_layout(primitive_of(m.kind), m.depth, m.width_bits(word_bits));
    const std::int64_t blocks = m.layout.blocks() * m.partitions;
    (m.kind == MemoryKind::kBram ? m.bram18 : m.uram) = blocks;
    m.allocated_bits = blocks * block_bits(primitive_of(m.kind));
  } else {
    m.allocated_bits = m.depth * m.width_bits(word_bits) * m.partitions;
  }
}

/// Peak live words of each memory over the task index (whole-step buffers always live):
/// +words at a buffer's first task, -words after its last, summed in task order.
void fill_used_bits(MemoryPlan& plan, const Prepared& p) {
  const int n = static_cast<int>(p.graph->tasks.size());
  std::vector<std::pair<int, std::int64_t>> events;
  for (MemoryInstance& m : plan.memories) {
    std::int64_t always = 0;
    events.clear();
    for (int b : m.buffers) {
      const Placement& pl = plan.placements[b];
      const std::int64_t w = p.graph->buffers[b].words;
      if (pl.whole_step) {
        always += w;
      } else {
        events.emplace_back(pl.first_task, w);
        events.emplace_back(pl.last_task + 1, -w);
      }
    }
    std::sort(events.begin(), events.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    // The running sum after all changes at one task index, for indices below n.
    std::int64_t peak = always, run = always;
    for (std::size_t i = 0; i < events.size();) {
      const int t = events[i].first;
      for (; i < events.size() && events[i].first == t; ++i) run += events[i].second;
      if (t < n) peak = std::max(peak, run);
    }
    m.used_bits = peak * p.options->word_bits;
  }
}

Placement make_placement(const Prepared& p, int b, int memory, std::int64_t offset,
                         std::int64_t addresses) {
  Placement pl;
  pl.buffer = b;
  pl.memory = memory;
  pl.offset = offset;
  pl.addresses = addresses;
  pl.whole_step = p.is_whole_step(b);
  const auto& touch = p.order.touching(b);
  pl.first_task = touch.empty() ? -1 : touch.front();
  pl.last_task = touch.empty() ? -1 : touch.back();
  if (pl.whole_step) {
    pl.first_task = 0;
    pl.last_task = static_cast<int>(p.graph->tasks.size()) - 1;
  }
  return pl;
}

MemoryKind block_kind(std::int64_t depth, std::int64_t uram_min_depth) {
  return depth >= uram_min_depth ? MemoryKind::kUram : MemoryKind::kBram;
}

// ---- naive -------------------------------------------------------------------------

void plan_naive(MemoryPlan& plan, const Prepared& p) {
  const MemoryOptions& o = *p.options;
  const auto& buffers = p.graph->buffers;
  plan.placements.resize(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    if (b.words == 0) {
      plan.placements[i] = make_placement(p, static_cast<int>(i), -1, 0, 0);
      continue;
    }
    MemoryInstance m;
    m.id = static_cast<int>(plan.memories.size());
    m.name = "naive:" + b.name;
    m.partitions = p.width[i];
    m.words_per_address = 1;
    m.ports = o.ports;
    m.depth = ceil_div(b.words, m.partitions);
    if (b.words < o.hls.complete_partition_threshold) {
      m.kind = MemoryKind::kRegisters;
    } else if (m.depth * o.word_bits <= o.hls.lutram_max_bits) {
      m.kind = MemoryKind::kLutram;
    } else {
      m.kind = block_kind(m.depth, o.uram_min_depth);
    }
    m.buffers.push_back(static_cast<int>(i));
    fill_memory_counts(m, o.word_bits);
    plan.placements[i] = make_placement(p, static_cast<int>(i), m.id, 0, m.depth);
    plan.memories.push_back(std::move(m));
  }
}

// ---- grouped -----------------------------------------------------------------------

/// Fewest blocks of a `depth` × `width_bits` memory of `kind`:
/// best_layout(primitive, depth, width_bits).blocks() (0 for depth < 1), with the
/// columns of every aspect mode precomputed for one width and the rows taken by a
/// shift (every mode depth is a power of two; others fall back to a division).
class BlockCost {
 public:
  BlockCost(MemoryKind kind, std::int64_t width_bits) {
    for (const BlockMode& m : block_modes(primitive_of(kind))) {
      Mode x;
      x.columns = ceil_div(width_bits, m.width_bits);
      x.depth = m.depth;
      x.shift = (m.depth & (m.depth - 1)) == 0 ? __builtin_ctzll(static_cast<unsigned long long>(m.depth)) : -1;
      modes_.push_back(x);
    }
  }
  std::int64_t operator()(std::int64_t depth) const {
    if (depth < 1) return 0;
    std::int64_t best = -1;
    for (const Mode& m : modes_) {
      const std::int64_t rows = m.shift >= 0 ? (depth + m.depth - 1) >> m.shift : ceil_div(depth, m.depth);
      const std::int64_t b = m.columns * rows;
      if (best < 0 || b < best) best = b;
    }
    return best;
  }

 private:
  struct Mode {
    std::int64_t columns = 0, depth = 1;
    int shift = -1;
  };
  std::vector<Mode> modes_;
};

/// A buffer placed in an open memory: addresses [lo, hi).
struct PlacedRange {
  std::int64_t lo = 0, hi = 0;
  int buffer = -1;
  bool whole_step = false;
};

struct OpenMemory {
  MemoryInstance mem;
  /// Port accesses already used, by task (block memories only; sized to the task count).
  std::vector<int> slots;
  /// Buffers placed here, sorted by (lo, hi): the address-ordered sweep of
  /// lowest_offset needs no per-query sort.
  std::vector<PlacedRange> placed;
  std::int64_t blocks = 0;
};

/// True when `a` and `b` can never be live at the same time. Tasks only depend on
/// earlier tasks, so a buffer whose last access is not before the other's first cannot
/// precede it; only the ordered pair with disjoint task-index spans needs the ancestry
/// test of BufferOrder::precedes.
bool never_live_together(const Prepared& p, int a, int b) {
  const auto& ta = p.order.touching(a);
  const auto& tb = p.order.touching(b);
  if (ta.empty() || tb.empty()) return false;
  if (ta.back() < tb.front()) return p.order.precedes(a, b);
  if (tb.back() < ta.front()) return p.order.precedes(b, a);
  return false;
}

/// Lowest offset in `m` where `b` (occupying `addr` addresses) does not overlap any
/// placed buffer that can be live at the same time: first fit over the placed ranges
/// in address order, skipping buffers whose lifetime is disjoint from b's (a whole-step
/// buffer conflicts with everything).
std::int64_t lowest_offset(const OpenMemory& m, const Prepared& p, int b, std::int64_t addr) {
  const bool b_static = p.is_whole_step(b);
  std::int64_t off = 0;
  for (const PlacedRange& r : m.placed) {
    if (r.lo >= off + addr) break;
    if (r.hi <= off) continue;  // cannot move the offset
    if (!b_static && !r.whole_step && never_live_together(p, b, r.buffer)) continue;
    off = r.hi;
  }
  return off;
}

/// The open block memories of one (kind, W) and their block cost.
struct Pool {
  std::vector<int> members;  ///< indices into the open memories
  BlockCost blocks;
};

/// The grouped planner's placement order: whole-step buffers first, then by decreasing
/// words (stable: ties keep the buffer order).
std::vector<int> grouped_order(const Prepared& p) {
  const auto& buffers = p.graph->buffers;
  const int nb = static_cast<int>(buffers.size());
  std::vector<int> order(nb);
  for (int i = 0; i < nb; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const bool sa = p.is_whole_step(a), sb = p.is_whole_step(b);
    if (sa != sb) return sa;
    return buffers[a].words > buffers[b].words;
  });
  return order;
}

/// A register memory of its own for the small buffer `b` (completely partitioned).
OpenMemory register_memory(const Buffer& buf, int b, int ports) {
  OpenMemory m;
  m.mem.kind = MemoryKind::kRegisters;
  m.mem.name = "reg." + buf.name;
  m.mem.partitions = static_cast<int>(buf.words);
  m.mem.words_per_address = 1;
  m.mem.ports = ports;
  m.mem.depth = 1;
  m.mem.buffers.push_back(b);
  return m;
}

/// Where a buffer goes in an open memory of a pool: its index in the open memories (-1:
/// none fits), the offset, and the blocks and addresses the memory grows by.
struct PoolFit {
  int memory = -1;
  std::int64_t offset = 0, cost = 0, growth = 0;
};

/// The cheapest open memory of `pool` for buffer `b` of `addr` addresses and port accesses
/// `acc`: fewest added blocks, then fewest added addresses, then pool order; memories
/// whose ports it would overrun, or URAM it would cascade beyond `uram_cap`, are skipped.
PoolFit best_pool_fit(const std::vector<OpenMemory>& open, const Pool& pool, const Prepared& p, int b,
                      std::int64_t addr, MemoryKind kind, std::int64_t uram_cap,
                      const std::vector<std::pair<int, int>>& acc) {
  const int ports = p.options->ports;
  PoolFit best;
  for (int idx : pool.members) {
    const OpenMemory& m = open[idx];
    bool ports_ok = true;
    for (const auto& [t, a] : acc) {
      if (m.slots[t] + a > ports) {
        ports_ok = false;
        break;
      }
    }
    if (!ports_ok) continue;
    const std::int64_t off = lowest_offset(m, p, b, addr);
    const std::int64_t end = std::max(m.mem.depth, off + addr);
    if (kind == MemoryKind::kUram && uram_cap > 0 && end > uram_cap) continue;
    const std::int64_t growth = end - m.mem.depth;
    const std::int64_t cost = growth == 0 ? 0 : pool.blocks(end) - m.blocks;
    if (best.memory < 0 || std::tie(cost, growth) < std::tie(best.cost, best.growth)) {
      best.memory = idx;
      best.offset = off;
      best.cost = cost;
      best.growth = growth;
      // Cost and growth are never negative: no later memory (nor a fresh one, whose
      // growth is addr >= 1) can beat a free fit.
      if (cost == 0 && growth == 0) break;
    }
  }
  return best;
}

/// Opens a fresh block memory of `kind` and W = `w` in `pool`; returns its index.
int open_block_memory(std::vector<OpenMemory>& open, std::vector<int>& pool, MemoryKind kind, int w, int ports,
                      std::size_t n_tasks) {
  OpenMemory m;
  m.mem.kind = kind;
  m.mem.words_per_address = w;
  m.mem.partitions = 1;
  m.mem.ports = ports;
  m.mem.name = fmt::format("grp.{}.w{}.{}", to_string(kind), w, pool.size());
  m.slots.assign(n_tasks, 0);
  const int idx = static_cast<int>(open.size());
  open.push_back(std::move(m));
  pool.push_back(idx);
  return idx;
}

/// Places buffer `b` at addresses [off, off + addr) of `m`, taking its port accesses `acc`.
void place_in(OpenMemory& m, const Prepared& p, int b, std::int64_t off, std::int64_t addr,
              const std::vector<std::pair<int, int>>& acc, const BlockCost& blocks_at) {
  m.mem.buffers.push_back(b);
  m.mem.depth = std::max(m.mem.depth, off + addr);
  m.blocks = blocks_at(m.mem.depth);
  for (const auto& [t, a] : acc) m.slots[t] += a;
  const PlacedRange range{off, off + addr, b, p.is_whole_step(b)};
  m.placed.insert(std::upper_bound(m.placed.begin(), m.placed.end(), range,
                                   [](const PlacedRange& x, const PlacedRange& y) {
                                     return std::tie(x.lo, x.hi) < std::tie(y.lo, y.hi);
                                   }),
                  range);
}

/// Numbers the open memories in order, counts their blocks and moves them into `plan`.
void close_memories(MemoryPlan& plan, std::vector<OpenMemory>& open, int word_bits) {
  for (std::size_t i = 0; i < open.size(); ++i) {
    MemoryInstance& m = open[i].mem;
    m.id = static_cast<int>(i);
    if (m.kind == MemoryKind::kRegisters) {
      m.allocated_bits = m.partitions * std::int64_t{word_bits};
    } else {
      fill_memory_counts(m, word_bits);
    }
    for (int b : m.buffers) plan.placements[b].memory = m.id;
    plan.memories.push_back(std::move(m));
  }
}

void plan_grouped(MemoryPlan& plan, const Prepared& p, std::int64_t uram_min_depth) {
  const MemoryOptions& o = *p.options;
  const auto& buffers = p.graph->buffers;
  const std::size_t n_tasks = p.graph->tasks.size();
  plan.placements.assign(buffers.size(), Placement{});
  const std::int64_t uram_cap =
      p.device->uram_cascade_height > 0 ? std::int64_t{p.device->uram_cascade_height} * 4096 : 0;

  std::vector<OpenMemory> open;
  std::map<std::pair<int, int>, Pool> pools;  // (kind, W)
  for (int b : grouped_order(p)) {
    const Buffer& buf = buffers[b];
    const int w = p.width[b];
    if (buf.words == 0) {
      plan.placements[b] = make_placement(p, b, -1, 0, 0);
      continue;
    }
    if (buf.words < o.hls.complete_partition_threshold) {
      plan.placements[b] = make_placement(p, b, -1, 0, 1);
      open.push_back(register_memory(buf, b, o.ports));
      continue;
    }
    const std::int64_t addr = ceil_div(buf.words, w);
    const MemoryKind kind = block_kind(addr, uram_min_depth);
    const auto& acc = p.access[b];
    auto pool_it = pools.find({static_cast<int>(kind), w});
    if (pool_it == pools.end()) {
      const std::int64_t width_bits = std::int64_t{w} * o.word_bits;
      pool_it = pools.emplace(std::make_pair(static_cast<int>(kind), w), Pool{{}, BlockCost(kind, width_bits)}).first;
    }
    Pool& pool = pool_it->second;
    PoolFit fit = best_pool_fit(open, pool, p, b, addr, kind, uram_cap, acc);
    // A fresh memory is a candidate too; existing memories win ties.
    const std::int64_t fresh_cost = pool.blocks(addr);
    const bool fresh_too_deep = kind == MemoryKind::kUram && uram_cap > 0 && addr > uram_cap;
    if (fit.memory >= 0 && !fresh_too_deep && std::tie(fresh_cost, addr) < std::tie(fit.cost, fit.growth)) {
      fit.memory = -1;
    }
    if (fit.memory < 0) {
      fit.memory = open_block_memory(open, pool.members, kind, w, o.ports, n_tasks);
      fit.offset = 0;
    }
    place_in(open[fit.memory], p, b, fit.offset, addr, acc, pool.blocks);
    plan.placements[b] = make_placement(p, b, fit.memory, fit.offset, addr);
  }
  // Registers first-class memories keep their order; renumber everything.
  close_memories(plan, open, o.word_bits);
}

// ---- ideal -------------------------------------------------------------------------

void plan_ideal(MemoryPlan& plan, const Prepared& p, std::int64_t uram_min_depth,
                std::vector<MemoryKind>& kind_of) {
  const MemoryOptions& o = *p.options;
  const auto& buffers = p.graph->buffers;
  const int n = static_cast<int>(p.graph->tasks.size());
  plan.realizable = false;
  kind_of.assign(buffers.size(), MemoryKind::kBram);
  std::map<MemoryKind, std::vector<std::int64_t>> delta;
  std::map<MemoryKind, std::int64_t> always;
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    const Buffer& buf = buffers[b];
    if (buf.words == 0) continue;
    MemoryKind k;
    if (buf.words < o.hls.complete_partition_threshold) {
      k = MemoryKind::kRegisters;
    } else {
      k = block_kind(ceil_div(buf.words, p.width[b]), uram_min_depth);
    }
    kind_of[b] = k;
    const std::int64_t bits = buf.words * o.word_bits;
    if (p.is_whole_step(static_cast<int>(b))) {
      always[k] += bits;
    } else {
      auto& d = delta[k];
      d.resize(n + 1, 0);
      const auto& touch = p.order.touching(static_cast<int>(b));
      d[touch.front()] += bits;
      d[touch.back() + 1] -= bits;
    }
  }
  std::map<MemoryKind, std::int64_t> peak;
  for (MemoryKind k : {MemoryKind::kRegisters, MemoryKind::kBram, MemoryKind::kUram}) {
    std::int64_t run = always[k], pk = run;
    auto it = delta.find(k);
    if (it != delta.end()) {
      for (int t = 0; t < n; ++t) {
        run += it->second[t];
        pk = std::max(pk, run);
      }
    }
    peak[k] = pk;
  }
  plan.register_bits = peak[MemoryKind::kRegisters];
  plan.bram18_blocks = ceil_div(peak[MemoryKind::kBram], block_bits(Primitive::kRamb18));
  plan.uram_blocks = ceil_div(peak[MemoryKind::kUram], block_bits(Primitive::kUram288));
  plan.used_bits = peak[MemoryKind::kBram] + peak[MemoryKind::kUram];
}

// ---- totals, classes, fit ------------------------------------------------------------

void fill_totals(MemoryPlan& plan, const Prepared& p, const std::vector<MemoryKind>& ideal_kind) {
  const auto& buffers = p.graph->buffers;
  if (plan.realizable) {
    plan.bram18_blocks = plan.uram_blocks = plan.lutram_bits = plan.register_bits = 0;
    plan.used_bits = 0;
    for (const MemoryInstance& m : plan.memories) {
      plan.bram18_blocks += m.bram18;
      plan.uram_blocks += m.uram;
      if (m.kind == MemoryKind::kLutram) plan.lutram_bits += m.allocated_bits;
      if (m.kind == MemoryKind::kRegisters) plan.register_bits += m.allocated_bits;
      if (m.kind == MemoryKind::kBram || m.kind == MemoryKind::kUram) plan.used_bits += m.used_bits;
    }
  }
  plan.bram36_blocks = bram36_tiles(plan.bram18_blocks);
  plan.allocated_bits = plan.bram18_blocks * block_bits(Primitive::kRamb18) +
                        plan.uram_blocks * block_bits(Primitive::kUram288);
  plan.efficiency =
      plan.allocated_bits > 0 ? static_cast<double>(plan.used_bits) / plan.allocated_bits : 0.0;

  plan.by_class.clear();
  for (BufferClass c : kClasses) {
    ClassUsage u;
    u.cls = c;
    u.peak_live_bytes = plan.occupancy.peak_by_class.of(c);
    plan.by_class.push_back(u);
  }
  auto usage = [&](BufferClass c) -> ClassUsage& { return plan.by_class[static_cast<int>(c)]; };
  for (const Buffer& b : buffers) {
    usage(b.cls).buffers += 1;
    usage(b.cls).words += b.words;
  }
  if (plan.realizable) {
    for (const MemoryInstance& m : plan.memories) {
      std::int64_t total = 0;
      for (int b : m.buffers) total += buffers[b].words;
      if (total == 0) continue;
      for (int b : m.buffers) {
        const double share = static_cast<double>(buffers[b].words) / total;
        usage(buffers[b].cls).bram36 += share * m.bram18 / 2.0;
        usage(buffers[b].cls).uram += share * m.uram;
      }
    }
  } else {
    std::int64_t bram_words = 0, uram_words = 0;
    for (std::size_t b = 0; b < buffers.size(); ++b) {
      if (ideal_kind[b] == MemoryKind::kBram) bram_words += buffers[b].words;
      if (ideal_kind[b] == MemoryKind::kUram) uram_words += buffers[b].words;
    }
    for (std::size_t b = 0; b < buffers.size(); ++b) {
      if (ideal_kind[b] == MemoryKind::kBram && bram_words > 0) {
        usage(buffers[b].cls).bram36 +=
            static_cast<double>(buffers[b].words) / bram_words * plan.bram18_blocks / 2.0;
      }
      if (ideal_kind[b] == MemoryKind::kUram && uram_words > 0) {
        usage(buffers[b].cls).uram +=
            static_cast<double>(buffers[b].words) / uram_words * plan.uram_blocks;
      }
    }
  }
}

std::string mib(std::int64_t bytes) { return fmt::format("{:.2f} MiB", bytes / 1048576.0); }

void fill_fit(MemoryPlan& plan, const DeviceSpec& d) {
  FitReport& f = plan.fit;
  f.bram36_needed = plan.bram36_blocks;
  f.bram36_available = d.bram36;
  f.uram_needed = plan.uram_blocks;
  f.uram_available = d.uram288;
  f.bram36_short = std::max<std::int64_t>(0, f.bram36_needed - f.bram36_available);
  f.uram_short = std::max<std::int64_t>(0, f.uram_needed - f.uram_available);
  f.bytes_short = f.bram36_short * (block_bits(Primitive::kRamb36) / 8) +
                  f.uram_short * (block_bits(Primitive::kUram288) / 8);
  f.ideal_bytes_short = std::max<std::int64_t>(0, plan.occupancy.peak_total - d.onchip_bits() / 8);
  f.fits = f.bram36_short == 0 && f.uram_short == 0;
  std::string s = fmt::format("{} plan on {}: BRAM36 {} of {}, URAM288 {} of {}",
                              to_string(plan.strategy), d.name, f.bram36_needed,
                              f.bram36_available, f.uram_needed, f.uram_available);
  if (f.fits) {
    s += " - fits.";
  } else {
    s += " - does not fit:";
    if (f.bram36_short > 0) {
      s += fmt::format(" short by {} BRAM36 ({});", f.bram36_short,
                       mib(f.bram36_short * block_bits(Primitive::kRamb36) / 8));
    }
    if (f.uram_short > 0) {
      s += fmt::format(" short by {} URAM288 ({});", f.uram_short,
                       mib(f.uram_short * block_bits(Primitive::kUram288) / 8));
    }
    s += fmt::format(" {} missing in total.", mib(f.bytes_short));
    // Largest consumers, so the user knows what to shrink.
    std::vector<const ClassUsage*> cls;
    for (const ClassUsage& u : plan.by_class) cls.push_back(&u);
    std::sort(cls.begin(), cls.end(), [](const ClassUsage* a, const ClassUsage* b) {
      return a->bram36 * 36864 + a->uram * 294912 > b->bram36 * 36864 + b->uram * 294912;
    });
    s += " Largest classes:";
    for (std::size_t i = 0; i < cls.size() && i < 2; ++i) {
      s += fmt::format(" {} {:.0f} BRAM36 + {:.0f} URAM288 ({} words){}", to_string(cls[i]->cls),
                       cls[i]->bram36, cls[i]->uram, cls[i]->words, i == 0 ? "," : ".");
    }
    if (f.ideal_bytes_short > 0) {
      s += fmt::format(
          " Even a perfect packing cannot fit: peak live data {} exceeds the {} of on-chip "
          "BRAM + URAM by {}.",
          mib(plan.occupancy.peak_total), mib(d.onchip_bits() / 8), mib(f.ideal_bytes_short));
    }
  }
  f.explanation = s;
}

MemoryPlan plan_once(const Prepared& p, std::int64_t uram_min_depth) {
  MemoryPlan plan;
  plan.strategy = p.options->strategy;
  plan.device = p.device->name;
  plan.uram_min_depth = uram_min_depth;
  plan.occupancy = p.occupancy;
  std::vector<MemoryKind> ideal_kind;
  switch (p.options->strategy) {
    case Strategy::kNaive: plan_naive(plan, p); break;
    case Strategy::kGrouped: plan_grouped(plan, p, uram_min_depth); break;
    case Strategy::kIdeal: plan_ideal(plan, p, uram_min_depth, ideal_kind); break;
  }
  if (plan.realizable) fill_used_bits(plan, p);
  fill_totals(plan, p, ideal_kind);
  fill_fit(plan, *p.device);
  return plan;
}

}  // namespace

const char* to_string(Strategy s) {
  switch (s) {
    case Strategy::kNaive: return "naive";
    case Strategy::kGrouped: return "grouped";
    case Strategy::kIdeal: return "ideal";
  }
  return "?";
}

Strategy parse_strategy(const std::string& s) {
  if (s == "naive") return Strategy::kNaive;
  if (s == "grouped") return Strategy::kGrouped;
  if (s == "ideal") return Strategy::kIdeal;
  throw InputError(fmt::format("memory strategy: expected one of naive, grouped, ideal, found \"{}\"", s));
}

int MemoryOptions::lanes_of(UnitKind k) const {
  auto it = lanes.find(k);
  return it == lanes.end() ? 1 : it->second;
}

const char* MemoryInstance::impl() const {
  switch (kind) {
    case MemoryKind::kBram: return "bram";
    case MemoryKind::kUram: return "uram";
    case MemoryKind::kLutram: return "lutram";
    case MemoryKind::kRegisters: return "";
  }
  return "";
}

const Placement& MemoryPlan::placement_of(int buffer_id) const {
  if (!realizable) throw std::out_of_range("the ideal memory bound has no placements");
  return placements.at(static_cast<std::size_t>(buffer_id));
}

int port_accesses(const Task& task, int buffer_id, int lanes, int partitions,
                  int words_per_address) {
  const std::int64_t per_access = std::int64_t{partitions} * words_per_address;
  const bool reads = std::find(task.reads.begin(), task.reads.end(), buffer_id) != task.reads.end();
  const bool writes =
      std::find(task.writes.begin(), task.writes.end(), buffer_id) != task.writes.end();
  const int one = static_cast<int>(ceil_div(lanes, per_access));
  return (reads ? one : 0) + (writes ? one : 0);
}

MemoryPlan plan_memory(const TaskGraph& graph, const DeviceSpec& device,
                       const MemoryOptions& options) {
  validate(graph, options);
  const Prepared p(graph, device, options);
  MemoryPlan plan = plan_once(p, options.uram_min_depth);
  if (options.strategy == Strategy::kNaive || plan.fit.fits) return plan;
  // BRAM vs URAM rebalance: move shallower buffers to URAM while BRAM is short and URAM
  // has room, or deeper ones back to BRAM while URAM is short and BRAM has room. Returns
  // the first plan that fits, else the one with the smallest shortfall.
  FitReport last = plan.fit;
  MemoryPlan best = std::move(plan);
  std::int64_t depth = options.uram_min_depth;
  for (int step = 0; step < 24 && !last.fits; ++step) {
    const bool bram_short = last.bram36_short > 0 && last.uram_needed < last.uram_available;
    const bool uram_short = last.uram_short > 0 && last.bram36_needed < last.bram36_available;
    if (bram_short && depth > 1) {
      depth /= 2;
    } else if (uram_short && depth < (std::int64_t{1} << 24)) {
      depth *= 2;
    } else {
      break;
    }
    MemoryPlan next = plan_once(p, depth);
    last = next.fit;
    if (last.fits || last.bytes_short < best.fit.bytes_short) best = std::move(next);
  }
  return best;
}

}  // namespace ttsim::memplan
