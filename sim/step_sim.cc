#include "sim/step_sim.h"

#include <algorithm>
#include <array>
#include <list>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include "models/graph_reshape.h"
#include "models/training_graph.h"
#include "sim/analytic.h"
#include "hw/kernel_latency.h"
#include "sim/machine_banks.h"

namespace ttsim {

GraphOptions graph_options(const ArchSpec& arch, std::int64_t tokens) {
  GraphOptions g;
  g.flow_by_kind = arch.flow_by_kind;
  g.recompute_merges = arch.recompute_merges;
  g.recompute_encoders = arch.recompute_encoders;
  if (arch.accumulate_by_add) {
    g.by_add.contraction_lanes = arch.unit(UnitKind::kContraction).lanes;
    g.by_add.arena_banks = arena_banks(arch);
  }
  g.tokens = tokens;
  return g;
}

namespace {

// Graph (`graph`, or built when null), schedule graph and footprints of `tokens` tokens.
// `latency`: the latency model of (arch, device), bound here to the graph's instances.
StepResult prepare(const ModelSpec& model, const ArchSpec& arch, KernelLatencyModel& latency, std::int64_t tokens,
                   std::shared_ptr<const TaskGraph> graph = nullptr) {
  StepResult r;
  r.tokens = tokens > 0 ? tokens : model.tokens();
  r.graph_ptr = graph ? std::move(graph)
                      : std::make_shared<const TaskGraph>(build_training_graph(model, graph_options(arch, tokens)));
  latency.bind_instances(r.graph());  // one static schedule per module instance
  r.sched = make_sched_graph(r.graph(), arch, latency);
  r.fused = fused_buffers(r.graph(), arch.fusion);
  r.footprint = buffer_footprints(r.graph(), r.fused);
  return r;
}

void execute(StepResult& r, const ArchSpec& arch, EngineOptions options) {
  options.port_contention = options.port_contention && arch.port_contention;
  if (options.analytic) {
    if (options.unlimited_units || !options.extra_cycles.empty()) {
      throw std::invalid_argument("simulate_step: the analytic fidelity takes the arch's units and no extra cycles");
    }
    r.run = EngineResult{};
    r.run.schedule = list_schedule(r.sched);
    r.run.instances = r.sched.unit_count;
    r.analytic_cycles = r.run.schedule.makespan;
  } else {
    const auto traffic = task_bank_traffic(r.graph(), r.banks, r.footprint);
    r.run = run_systemc(r.sched, r.banks, traffic, options);
    r.analytic_cycles = options.unlimited_units ? critical_path_cycles(r.sched)
                                                : list_schedule(r.sched).makespan;
  }
  if (options.occupancy) {
    compute_occupancy_into(r.graph(), r.run.schedule, r.footprint, r.occupancy);
  } else {
    r.occupancy = Occupancy{};
  }
}

}  // namespace

namespace {

/// Throws std::invalid_argument (naming `who`) unless `step` has the buffers of `hardware`,
/// by id and name: the machine described for one carries the other's placement.
void require_same_buffers(const TaskGraph& step, const TaskGraph& hardware, const char* who) {
  bool same = step.buffers.size() == hardware.buffers.size();
  for (std::size_t b = 0; same && b < step.buffers.size(); ++b) same = step.buffers[b].name == hardware.buffers[b].name;
  if (!same) throw std::invalid_argument(std::string(who) + ": the step's buffers differ from its hardware's");
}

/// The step of `tokens` tokens on the machine of (model, `built`): described from the
/// padded step's graph (the hardware is sized for the longest sample). `machine_units`:
/// as run_on_machine.
StepResult step_on_machine(const ModelSpec& model, const ArchSpec& arch, const ArchSpec& built,
                           const DeviceSpec& device, std::int64_t tokens, const EngineOptions& options,
                           bool machine_units, std::shared_ptr<const TaskGraph> graph = nullptr) {
  KernelLatencyModel latency(arch, device);
  StepResult r = prepare(model, arch, latency, tokens, std::move(graph));
  if (r.tokens == model.tokens() && &arch == &built) {
    // The instances' IIs from the latency model the step was priced with.
    r.machine = std::make_shared<const machine::Machine>(machine::describe(model, built, device, r.graph(), latency));
  } else if (r.tokens == model.tokens()) {
    r.machine = std::make_shared<const machine::Machine>(machine::describe(model, built, device, r.graph()));
  } else {
    // Buffers keep their names and ids at every length: the padded step's placement holds.
    const TaskGraph padded = build_training_graph(model, graph_options(built, 0));
    require_same_buffers(r.graph(), padded, "simulate_step");
    r.machine = std::make_shared<const machine::Machine>(machine::describe(model, built, device, padded));
  }
  run_on_machine(r, arch, options, machine_units);
  return r;
}

/// Bytes `g` holds, roughly: its tasks and buffers with their strings and lists.
std::size_t graph_bytes(const TaskGraph& g) {
  std::size_t n = sizeof(TaskGraph) + g.tasks.capacity() * sizeof(Task) + g.buffers.capacity() * sizeof(Buffer);
  for (const Task& t : g.tasks) {
    n += t.name.capacity() + t.layer.capacity() + t.role.capacity() +
         (t.reads.capacity() + t.writes.capacity() + t.deps.capacity()) * sizeof(int);
  }
  for (const Buffer& b : g.buffers) {
    n += b.name.capacity() + b.layer.capacity() + b.shape.capacity() * sizeof(std::int64_t);
  }
  return n;
}

/// Bytes each thread's length_graph table may hold: 160 MB (four 6-encoder epochs of 31
/// lengths, 124 graphs of 1.2 MB), less where an eighth of the machine's memory shared out
/// over its hardware threads is less, at least 16 MB.
std::size_t length_graph_bytes() {
  constexpr std::size_t kMost = std::size_t{160} << 20, kLeast = std::size_t{16} << 20;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  const std::size_t memory = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                                                   : kMost * 8;
  const std::size_t share = memory / 8 / std::max(1u, std::thread::hardware_concurrency());
  return std::clamp(share, kLeast, kMost);
}

/// A hash of what a training graph depends on besides the model's structure: its rank
/// signature, accumulate_by_add choices, flows, recomputation and tokens (length_graph's
/// table of requests; equal graphs have equal hashes).
std::size_t graph_request_hash(const std::vector<std::int64_t>& ranks, const std::vector<char>& by_add,
                               const GraphOptions& options) {
  std::size_t h = std::hash<std::string>{}(std::string(reinterpret_cast<const char*>(ranks.data()),
                                                       ranks.size() * sizeof(std::int64_t)) +
                                           std::string(by_add.begin(), by_add.end()));
  for (const auto& [kind, flow] : options.flow_by_kind) {
    h = h * 31 + std::hash<std::string>{}(kind) + static_cast<std::size_t>(flow);
  }
  return (h * 4 + (options.recompute_merges ? 2 : 0) + (options.recompute_encoders ? 1 : 0)) * 1000003 +
         static_cast<std::size_t>(options.tokens);
}

/// build_training_graph(model, graph_options(arch, tokens)): this thread's when it built one
/// among its recent ones (at most kRecentGraphs, length_graph_bytes()) for a model of the same
/// structure and ranks (same_graph_structure, rank_signature) and the same graph (flows,
/// recomputation, tokens, accumulate_by_add choices), else built and kept. An epoch at the
/// samples' own lengths runs a step per length on every design, and a sweep's neighbouring
/// designs differ mostly in what does not change the graph (lanes, nonlinear lanes); the
/// shipped sweep cycles through its four recomputation choices fastest, so the table holds
/// four epochs' graphs (31 lengths each) where they fit.
std::shared_ptr<const TaskGraph> length_graph(const ModelSpec& model, const ArchSpec& arch, std::int64_t tokens) {
  constexpr std::size_t kRecentGraphs = 128;
  static const std::size_t kRecentBytes = length_graph_bytes();
  /// A model and its rank signature, shared by the entries of its graphs (an epoch's
  /// lengths), so an entry costs no copy of the model.
  struct ModelKey {
    ModelSpec model;
    std::vector<std::int64_t> ranks;
  };
  struct Entry {
    std::shared_ptr<const ModelKey> key;
    GraphOptions options;
    std::vector<char> by_add;
    std::shared_ptr<const TaskGraph> graph;
    std::size_t bytes = 0;
  };
  thread_local std::list<Entry> recent;  // most recent first
  thread_local std::size_t recent_bytes = 0;
  thread_local std::shared_ptr<const ModelKey> last;  // the key of the model last looked up
  constexpr int kAdmissionWindow = 256;                 // graphs kept, per admission decision
  thread_local bool keep_all = true;
  thread_local int kept_in_window = 0, found_in_window = 0;
  thread_local std::vector<std::int64_t> ranks;
  thread_local std::vector<char> by_add;
  const GraphOptions options = graph_options(arch, tokens);
  rank_signature(model, ranks);
  accumulate_by_add_choices(model, options, by_add);
  if (!last || last->ranks != ranks || !same_graph_structure(last->model, model)) last.reset();
  for (auto it = recent.begin(); it != recent.end(); ++it) {
    if (it->options.tokens != options.tokens || it->by_add != by_add ||
        it->options.flow_by_kind != options.flow_by_kind || it->options.recompute_merges != options.recompute_merges ||
        it->options.recompute_encoders != options.recompute_encoders) {
      continue;
    }
    if (it->key != last && (it->key->ranks != ranks || !same_graph_structure(it->key->model, model))) continue;
    last = it->key;
    ++found_in_window;
    recent.splice(recent.begin(), recent, it);
    return recent.front().graph;
  }
  auto graph = std::make_shared<const TaskGraph>(build_training_graph(model, options));
  // Whether to keep it. While the table pays (an eighth or more of the last
  // kAdmissionWindow graphs kept were found again), every graph is kept; otherwise only one
  // this thread asked for before (its hash in a small direct-mapped table of requests): a
  // sweep whose designs never come back to a graph (other ranks at every point) would only
  // pay for holding them. A hash: a collision keeps a graph, never returns a wrong one.
  const std::size_t h = graph_request_hash(ranks, by_add, options);
  thread_local std::array<std::size_t, 1024> requested{};
  std::size_t& slot = requested[(h * 0x9E3779B97F4A7C15ULL) >> 54];
  const bool asked_before = slot == h;
  slot = h;
  if (!keep_all && !asked_before) return graph;
  if (++kept_in_window == kAdmissionWindow) {
    keep_all = found_in_window * 8 >= kAdmissionWindow;
    kept_in_window = found_in_window = 0;
  }
  if (!last) last = std::make_shared<const ModelKey>(ModelKey{model, ranks});
  const std::size_t bytes = graph_bytes(*graph);
  recent.push_front(Entry{last, options, by_add, graph, bytes});
  recent_bytes += bytes;
  while (recent.size() > 1 && (recent.size() > kRecentGraphs || recent_bytes > kRecentBytes)) {
    recent_bytes -= recent.back().bytes;
    recent.pop_back();
  }
  return graph;
}

/// The step of `tokens` tokens on `hardware`'s machine, bank map and unit counts.
StepResult step_on_hardware(const StepResult& hardware, const ModelSpec& model, const ArchSpec& arch,
                            const DeviceSpec& device, std::int64_t tokens, EngineOptions options) {
  KernelLatencyModel latency(arch, device);
  StepResult r = prepare(model, arch, latency, tokens, length_graph(model, arch, tokens));
  require_same_buffers(r.graph(), hardware.graph(), "simulate_step");
  r.machine = hardware.machine;
  r.banks = hardware.banks;
  task_banks_into(r.graph(), r.banks, r.footprint, r.task_banks);
  r.sched.unit_count = hardware.sched.unit_count;  // the same hardware dispatches to the same units
  execute(r, arch, options);
  return r;
}

}  // namespace

void run_on_machine(StepResult& r, const ArchSpec& arch, const EngineOptions& options, bool machine_units,
                    bool same_placement) {
  machine_bank_map_into(*r.machine, r.banks);
  if (!same_placement) task_banks_into(r.graph(), r.banks, r.footprint, r.task_banks);
  if (machine_units) {
    std::array<int, kUnitKinds> units{};
    for (const machine::KernelInstance& k : r.machine->instances) {
      int& u = units[static_cast<int>(k.unit)];
      u = std::max(u, k.count);
    }
    for (int k = 0; k < kUnitKinds; ++k) r.sched.unit_count[k] = std::max(1, units[k]);
  }
  execute(r, arch, options);
}

StepOptions StepOptions::with_engine(EngineOptions engine) {
  StepOptions o;
  o.engine = engine;
  return o;
}

StepOptions StepOptions::on_hardware(const StepResult& hardware, std::int64_t tokens, EngineOptions engine) {
  StepOptions o;
  o.hardware = &hardware;
  o.tokens = tokens;
  o.engine = engine;
  return o;
}

StepOptions StepOptions::what_if_study(EngineOptions engine) {
  StepOptions o;
  o.what_if = true;
  o.engine = engine;
  return o;
}

StepResult simulate_step(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                         const StepOptions& options) {
  if (options.padded_graph && options.tokens != 0) {
    throw std::invalid_argument("simulate_step: a padded graph is the padded step's (tokens 0)");
  }
  if (options.hardware) {
    if (options.padded_graph || options.what_if) {
      throw std::invalid_argument("simulate_step: a step on another step's hardware takes no graph and no what-if");
    }
    return step_on_hardware(*options.hardware, model, arch, device, options.tokens, options.engine);
  }
  if (options.what_if) {
    ArchSpec built = arch;
    for (UnitSpec& u : built.units) u.count = 1;
    built.policy = SchedulePolicy::kSequential;
    built.fusion = false;
    return step_on_machine(model, arch, built, device, options.tokens, options.engine, false, options.padded_graph);
  }
  return step_on_machine(model, arch, arch, device, options.tokens, options.engine, true, options.padded_graph);
}

}  // namespace ttsim
