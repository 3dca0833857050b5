#include "sim/sched_graph.h"

#include <stdexcept>

#include <algorithm>
#include <map>
#include <string>

#include "core/errors.h"

namespace ttsim {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_left_merge(const Task& t) { return t.role.find("merge_left") != std::string::npos; }
bool is_right_merge(const Task& t) { return t.role.find("merge_right") != std::string::npos; }

bool is_qkv(const Task& t) {
  return t.encoder >= 0 && t.unit == UnitKind::kContraction &&
         (ends_with(t.layer, ".q") || ends_with(t.layer, ".k") || ends_with(t.layer, ".v"));
}

}  // namespace

std::vector<std::pair<int, int>> policy_edges(const TaskGraph& graph, const ArchSpec& arch) {
  std::vector<std::pair<int, int>> edges;
  const auto& tasks = graph.tasks;
  if (arch.policy == SchedulePolicy::kSequential) {
    for (std::size_t i = 1; i < tasks.size(); ++i) edges.emplace_back(static_cast<int>(i) - 1, static_cast<int>(i));
    return edges;
  }
  if (!arch.parallel_merges) {
    // Merge tasks (left or right chain) of one (layer, stage) run one at a time, in
    // task order: the two chains no longer overlap.
    std::map<std::pair<std::string, int>, int> last;
    for (const Task& t : tasks) {
      if (!is_left_merge(t) && !is_right_merge(t)) continue;
      auto [it, inserted] = last.try_emplace({t.layer, static_cast<int>(t.stage)}, t.id);
      if (!inserted) {
        edges.emplace_back(it->second, t.id);
        it->second = t.id;
      }
    }
  }
  if (arch.qkv_reschedule) {
    // (encoder, stage) -> layer -> its contraction tasks in task order.
    std::map<std::pair<int, int>, std::map<std::string, std::vector<int>>> qkv;
    for (const Task& t : tasks) {
      if (is_qkv(t)) qkv[{t.encoder, static_cast<int>(t.stage)}][t.layer].push_back(t.id);
    }
    for (const auto& [key, layers] : qkv) {
      // The projections in the order they start; the j-th contraction of each waits for
      // the j-th contraction of the previous one (the same kernel of the shared set).
      std::vector<const std::vector<int>*> order;
      for (const auto& [layer, ids] : layers) order.push_back(&ids);
      std::sort(order.begin(), order.end(),
                [](const std::vector<int>* a, const std::vector<int>* b) { return a->front() < b->front(); });
      for (std::size_t p = 1; p < order.size(); ++p) {
        const auto& prev = *order[p - 1];
        const auto& cur = *order[p];
        for (std::size_t j = 0; j < std::min(prev.size(), cur.size()); ++j) {
          if (prev[j] < cur[j]) edges.emplace_back(prev[j], cur[j]);
        }
      }
    }
  }
  return edges;
}

namespace {

bool same_price(const Task& a, const Task& b) {
  return a.unit == b.unit && a.op == b.op && a.shape.batch == b.shape.batch &&
         a.shape.rows == b.shape.rows && a.shape.inner == b.shape.inner &&
         a.shape.cols == b.shape.cols && a.shape.variant == b.shape.variant &&
         a.shape.memories == b.shape.memories;
}

/// Hash of the fields same_price compares (FNV-1a).
std::uint64_t price_hash(const Task& t) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(static_cast<std::uint64_t>(t.unit));
  mix(static_cast<std::uint64_t>(t.op));
  mix(static_cast<std::uint64_t>(t.shape.batch));
  mix(static_cast<std::uint64_t>(t.shape.rows));
  mix(static_cast<std::uint64_t>(t.shape.inner));
  mix(static_cast<std::uint64_t>(t.shape.cols));
  mix(static_cast<std::uint64_t>(t.shape.variant));
  mix(t.shape.memories);
  return h ^ (h >> 29);
}

}  // namespace

// The classes are looked up in an open-addressed table of class numbers (linear probing,
// at most half full) kept per thread: no allocation once it has grown.
void group_price_classes(SchedGraph& sg, const TaskGraph& graph) {
  const std::size_t n = graph.tasks.size();
  std::size_t size = 16;
  while (size < 2 * n) size *= 2;
  thread_local std::vector<int> table;
  table.assign(size, -1);
  const std::size_t mask = size - 1;
  sg.price_class.assign(n, -1);
  sg.price_rep.clear();
  for (const Task& t : graph.tasks) {
    std::size_t i = price_hash(t) & mask;
    while (table[i] >= 0 && !same_price(t, graph.tasks[sg.price_rep[table[i]]])) i = (i + 1) & mask;
    if (table[i] < 0) {
      table[i] = static_cast<int>(sg.price_rep.size());
      sg.price_rep.push_back(t.id);
    }
    sg.price_class[t.id] = table[i];
  }
}

namespace {

/// True when sg's latency classes group `graph`'s tasks by equal (unit, op, shape, variant).
bool price_classes_match(const SchedGraph& sg, const TaskGraph& graph) {
  const std::size_t n = graph.tasks.size();
  if (sg.price_class.size() != n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const int c = sg.price_class[i];
    if (c < 0 || c >= static_cast<int>(sg.price_rep.size())) return false;
    const int rep = sg.price_rep[c];
    if (rep < 0 || rep >= static_cast<int>(n) ||
        !same_price(graph.tasks[i], graph.tasks[rep])) {
      return false;
    }
  }
  return true;
}

}  // namespace

void match_price_classes(SchedGraph& sg, const TaskGraph& graph) {
  if (!price_classes_match(sg, graph)) group_price_classes(sg, graph);
}

void update_latencies(SchedGraph& sg, const TaskGraph& graph, const KernelLatencyModel& latency) {
  match_price_classes(sg, graph);
  price_classes(sg, graph, latency);
}

void price_classes(SchedGraph& sg, const TaskGraph& graph, const KernelLatencyModel& latency) {
  if (sg.price_class.size() != graph.tasks.size() || sg.tasks.size() != graph.tasks.size()) {
    throw std::invalid_argument("price_classes: the latency classes do not cover the graph's tasks");
  }
  thread_local std::vector<std::int64_t> cycles;
  cycles.resize(sg.price_rep.size());
  for (std::size_t c = 0; c < cycles.size(); ++c) {
    cycles[c] = latency.task_cycles(graph.tasks[sg.price_rep[c]]);
  }
  price_classes(sg, graph, cycles);
}

void price_classes(SchedGraph& sg, const TaskGraph& graph, const std::vector<std::int64_t>& class_cycles) {
  if (sg.price_class.size() != graph.tasks.size() || sg.tasks.size() != graph.tasks.size()) {
    throw std::invalid_argument("price_classes: the latency classes do not cover the graph's tasks");
  }
  if (class_cycles.size() != sg.price_rep.size()) {
    throw std::invalid_argument("price_classes: " + std::to_string(class_cycles.size()) + " cycle counts for " +
                                std::to_string(sg.price_rep.size()) + " latency classes");
  }
  for (const Task& t : graph.tasks) sg.tasks[t.id].cycles = class_cycles[sg.price_class[t.id]];
}

SchedGraph make_sched_graph(const TaskGraph& graph, const ArchSpec& arch,
                            const KernelLatencyModel& latency) {
  SchedGraph sg;
  const int n = static_cast<int>(graph.tasks.size());
  sg.tasks.resize(n);
  for (int i = 0; i < n; ++i) {
    const Task& t = graph.tasks[i];
    if (t.id != i) throw InputError("task graph: task " + t.name + " has id " + std::to_string(t.id) +
                                    ", expected " + std::to_string(i));
    for (int d : t.deps) {
      if (d < 0 || d >= i) {
        throw InputError("task graph: task " + t.name + " depends on task " + std::to_string(d) +
                         ", which is not an earlier task");
      }
    }
    sg.tasks[i].unit = static_cast<int>(t.unit);
    sg.tasks[i].deps = t.deps;
  }
  for (auto [from, to] : policy_edges(graph, arch)) {
    auto& d = sg.tasks[to].deps;
    if (std::find(d.begin(), d.end(), from) == d.end()) {
      d.push_back(from);
      ++sg.policy_edges;
    }
  }
  std::vector<int> count(n + 1, 0);
  for (auto& t : sg.tasks) {
    std::sort(t.deps.begin(), t.deps.end());
    t.deps.erase(std::unique(t.deps.begin(), t.deps.end()), t.deps.end());
    for (int d : t.deps) ++count[d + 1];
  }
  sg.succ_begin.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) sg.succ_begin[i + 1] = sg.succ_begin[i] + count[i + 1];
  sg.succ.resize(sg.succ_begin[n]);
  std::vector<int> fill(sg.succ_begin.begin(), sg.succ_begin.end() - 1);
  for (int i = 0; i < n; ++i) {
    for (int d : sg.tasks[i].deps) sg.succ[fill[d]++] = i;
  }
  for (int k = 0; k < kUnitKinds; ++k) sg.unit_count[k] = arch.units[k].count;
  update_latencies(sg, graph, latency);
  return sg;
}

}  // namespace ttsim
