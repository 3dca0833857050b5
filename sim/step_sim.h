#pragma once
// One training step of a model on an architecture, end to end: build the task graph,
// apply the scheduling policy, price every task from its loop nest, map buffers to
// banks, run the SystemC engine and account occupancy.

#include <cstdint>
#include <memory>
#include <vector>

#include "models/model_spec.h"
#include "models/task_graph.h"
#include "models/training_graph.h"
#include "sim/arch_spec.h"
#include "sim/bank_map.h"
#include "sim/device_spec.h"
#include "sim/memplan/memory_plan.h"
#include "sim/occupancy.h"
#include "sim/sc_engine.h"
#include "sim/sched_graph.h"

namespace ttsim {

/// Everything a simulated step produced.
struct StepResult {
  std::int64_t tokens = 0;                ///< tokens processed (batch × sequence length)
  TaskGraph graph;
  SchedGraph sched;
  std::vector<bool> fused;                ///< by buffer id (arch.fusion)
  std::vector<std::int64_t> footprint;    ///< on-chip words by buffer id
  /// On-chip memory plan (arch.memory strategy); shared by steps run on the same hardware.
  std::shared_ptr<const memplan::MemoryPlan> plan;
  BankMap banks;                          ///< bank instances of `plan`
  EngineResult run;                       ///< SystemC schedule, bank slices
  Occupancy occupancy;
  /// Cycles of the same step from the analytic list scheduler (no port contention,
  /// same unit counts): a lower bound of run.schedule.makespan.
  std::int64_t analytic_cycles = 0;
};

/// The graph options the arch implies (flow per layer kind) for `tokens` tokens
/// (0 = the model's padded batch × seq_len).
GraphOptions graph_options(const ArchSpec& arch, std::int64_t tokens);

/// Simulates one step with `tokens` tokens (0 = padded). `options.port_contention` is
/// and-ed with the arch's port_contention. Throws InputError for inconsistent inputs.
StepResult simulate_step(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                         std::int64_t tokens, EngineOptions options = {});

/// Simulates a step of `tokens` tokens on the hardware of `hardware` (a step of the same
/// model and arch, normally the padded one): the memories are planned for the largest
/// length and shorter samples reuse them, so the plan and bank map are reused; the
/// graph, latencies, traffic and occupancy are those of `tokens`. Throws
/// std::invalid_argument when the two graphs do not have the same buffers.
StepResult simulate_step_on(const StepResult& hardware, const ModelSpec& model, const ArchSpec& arch,
                            const DeviceSpec& device, std::int64_t tokens, EngineOptions options = {});

}  // namespace ttsim
