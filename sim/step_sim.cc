#include "sim/step_sim.h"

#include <stdexcept>

#include "models/training_graph.h"
#include "sim/analytic.h"
#include "sim/kernel_latency.h"
#include "sim/plan_banks.h"

namespace ttsim {

GraphOptions graph_options(const ArchSpec& arch, std::int64_t tokens) {
  GraphOptions g;
  g.flow_by_kind = arch.flow_by_kind;
  g.tokens = tokens;
  return g;
}

namespace {

// Graph, schedule graph and footprints of `tokens` tokens.
StepResult prepare(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                   std::int64_t tokens) {
  StepResult r;
  r.tokens = tokens > 0 ? tokens : model.tokens();
  r.graph = build_training_graph(model, graph_options(arch, tokens));
  KernelLatencyModel latency(arch, device);
  latency.bind_instances(r.graph);  // one static schedule per module instance
  r.sched = make_sched_graph(r.graph, arch, latency);
  r.fused = fused_buffers(r.graph, arch.fusion);
  r.footprint = buffer_footprints(r.graph, r.fused);
  return r;
}

void execute(StepResult& r, const ArchSpec& arch, EngineOptions options) {
  options.port_contention = options.port_contention && arch.port_contention;
  const auto traffic = task_bank_traffic(r.graph, r.banks, r.footprint);
  r.run = run_systemc(r.sched, r.banks, traffic, options);
  r.occupancy = compute_occupancy(r.graph, r.run.schedule, r.footprint);
  r.analytic_cycles = options.unlimited_units ? critical_path_cycles(r.sched)
                                              : list_schedule(r.sched).makespan;
}

}  // namespace

StepResult simulate_step(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                         std::int64_t tokens, EngineOptions options) {
  StepResult r = prepare(model, arch, device, tokens);
  r.plan = std::make_shared<const memplan::MemoryPlan>(plan_step_memory(r.graph, arch, device, r.footprint));
  r.banks = bank_map_from_plan(*r.plan);
  execute(r, arch, options);
  return r;
}

StepResult simulate_step_on(const StepResult& hardware, const ModelSpec& model, const ArchSpec& arch,
                            const DeviceSpec& device, std::int64_t tokens, EngineOptions options) {
  StepResult r = prepare(model, arch, device, tokens);
  bool same = r.graph.buffers.size() == hardware.graph.buffers.size();
  for (std::size_t b = 0; same && b < r.graph.buffers.size(); ++b) {
    same = r.graph.buffers[b].name == hardware.graph.buffers[b].name;
  }
  if (!same) {
    throw std::invalid_argument("simulate_step_on: the step's buffers differ from the planned hardware's");
  }
  r.plan = hardware.plan;
  r.banks = hardware.banks;
  execute(r, arch, options);
  return r;
}

}  // namespace ttsim
