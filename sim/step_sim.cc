#include "sim/step_sim.h"

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

StepResult simulate_step(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                         std::int64_t tokens, EngineOptions options) {
  StepResult r;
  r.tokens = tokens > 0 ? tokens : model.tokens();
  r.graph = build_training_graph(model, graph_options(arch, tokens));
  const KernelLatencyModel latency(arch, device);
  r.sched = make_sched_graph(r.graph, arch, latency);
  r.fused = fused_buffers(r.graph, arch.fusion);
  r.footprint = buffer_footprints(r.graph, r.fused);
  r.plan = plan_step_memory(r.graph, arch, device, r.footprint);
  r.banks = bank_map_from_plan(r.plan);
  options.port_contention = options.port_contention && arch.port_contention;
  const auto traffic = task_bank_traffic(r.graph, r.banks, r.footprint);
  r.run = run_systemc(r.sched, r.banks, traffic, options);
  r.occupancy = compute_occupancy(r.graph, r.run.schedule, r.footprint);
  r.analytic_cycles = options.unlimited_units ? critical_path_cycles(r.sched)
                                              : list_schedule(r.sched).makespan;
  return r;
}

}  // namespace ttsim
