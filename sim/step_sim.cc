#include "sim/step_sim.h"

#include <algorithm>
#include <array>
#include <list>
#include <thread>
#include <stdexcept>

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

/// build_training_graph(model, graph_options(arch, tokens)): this thread's when it built one
/// among its recent ones (at most kRecentGraphs, and kAllThreadsBytes shared out over the
/// machine's hardware threads, at least kThreadBytesFloor) for a model of the same
/// structure and ranks (same_graph_structure, rank_signature) and the same graph (flows,
/// recomputation, tokens, accumulate_by_add choices), else built and kept. An epoch at the
/// samples' own lengths runs a step per length on every design, and a sweep's neighbouring
/// designs differ mostly in what does not change the graph (lanes, nonlinear lanes); the
/// shipped sweep cycles through its four recomputation choices fastest, so the table holds
/// four epochs' graphs (31 lengths each) where they fit: on two hardware threads, four
/// 6-encoder epochs (124 graphs of 1.2 MB) each.
std::shared_ptr<const TaskGraph> length_graph(const ModelSpec& model, const ArchSpec& arch, std::int64_t tokens) {
  constexpr std::size_t kRecentGraphs = 128;
  constexpr std::size_t kAllThreadsBytes = std::size_t{384} << 20, kThreadBytesFloor = std::size_t{16} << 20;
  static const std::size_t kRecentBytes =
      std::max(kThreadBytesFloor, kAllThreadsBytes / std::max(1u, std::thread::hardware_concurrency()));
  struct Entry {
    ModelSpec model;
    std::vector<std::int64_t> ranks;
    GraphOptions options;
    std::vector<char> by_add;
    std::shared_ptr<const TaskGraph> graph;
    std::size_t bytes = 0;
  };
  thread_local std::list<Entry> recent;  // most recent first
  thread_local std::size_t recent_bytes = 0;
  thread_local std::vector<std::int64_t> ranks;
  thread_local std::vector<char> by_add;
  const GraphOptions options = graph_options(arch, tokens);
  rank_signature(model, ranks);
  accumulate_by_add_choices(model, options, by_add);
  for (auto it = recent.begin(); it != recent.end(); ++it) {
    if (it->options.tokens == options.tokens && it->ranks == ranks && it->by_add == by_add &&
        it->options.flow_by_kind == options.flow_by_kind && it->options.recompute_merges == options.recompute_merges &&
        it->options.recompute_encoders == options.recompute_encoders && same_graph_structure(it->model, model)) {
      recent.splice(recent.begin(), recent, it);
      return recent.front().graph;
    }
  }
  auto graph = std::make_shared<const TaskGraph>(build_training_graph(model, options));
  const std::size_t bytes = graph_bytes(*graph);
  recent.push_front(Entry{model, ranks, options, by_add, graph, bytes});
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
