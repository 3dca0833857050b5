#pragma once
// One training step of a model on an architecture, end to end: build the task graph,
// describe the machine the emitted build is (machine/machine.h), price every task from its
// loop nest at its instance's II, run the SystemC engine on the machine's kernel instances
// and arrays (their ports), and account occupancy.

#include <cstdint>
#include <memory>
#include <vector>

#include "models/model_spec.h"
#include "models/task_graph.h"
#include "models/training_graph.h"
#include "hw/arch_spec.h"
#include "sim/bank_map.h"
#include "hw/device_spec.h"
#include "machine/machine.h"
#include "sim/occupancy.h"
#include "sim/sc_engine.h"
#include "sim/sched_graph.h"

namespace ttsim {

/// Everything a simulated step produced.
struct StepResult {
  std::int64_t tokens = 0;                ///< tokens processed (batch × sequence length)
  /// The step's task graph, shared rather than copied: the analytic fast path
  /// (sim/design_eval.h) re-derives one graph per model structure for every rank assignment.
  std::shared_ptr<const TaskGraph> graph_ptr;
  const TaskGraph& graph() const { return *graph_ptr; }
  SchedGraph sched;
  std::vector<bool> fused;                ///< by buffer id (arch.fusion)
  std::vector<std::int64_t> footprint;    ///< on-chip words by buffer id
  /// The machine the step runs on (described from the padded step); shared by the steps
  /// of every length run on the same hardware.
  std::shared_ptr<const machine::Machine> machine;
  BankMap banks;                          ///< the machine's arrays (machine_bank_map)
  /// The banks of `banks` each task moves words through (task_banks_into; kept by
  /// reprice_step, whose graph, footprints and placement do not change).
  TaskBanks task_banks;
  EngineResult run;                       ///< SystemC schedule and bank slices (EngineOptions::analytic: the list schedule)
  Occupancy occupancy;                    ///< empty when EngineOptions::occupancy is false
  /// Cycles of the same step from the analytic list scheduler (no port contention,
  /// same unit counts): a lower bound of run.schedule.makespan.
  std::int64_t analytic_cycles = 0;
};

/// The graph options the arch implies (flow per layer kind) for `tokens` tokens
/// (0 = the model's padded batch × seq_len).
GraphOptions graph_options(const ArchSpec& arch, std::int64_t tokens);

/// Simulates one step with `tokens` tokens (0 = padded) on the machine of (model, arch,
/// device) (machine::describe of the padded step). `options.port_contention` is and-ed with
/// the arch's port_contention. Throws ConfigError for an arch the emitted top cannot carry
/// out (machine::check_buildable) and InputError for inconsistent inputs.
StepResult simulate_step(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                         std::int64_t tokens, EngineOptions options = {});

/// simulate_step of the padded step (tokens 0) on `padded_graph`, which must equal
/// build_training_graph(model, graph_options(arch, 0)) (as a graph reshaped for the model's
/// ranks does, models/graph_reshape.h): the analytic fast path's entry, which saves the
/// graph's construction. Throws as simulate_step, and std::invalid_argument for a null graph.
StepResult simulate_step(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                         std::shared_ptr<const TaskGraph> padded_graph, EngineOptions options = {});

/// The analytic fast path's re-simulation: `step` is a padded step on `device` from
/// simulate_step, or from an earlier call, for a model of the same structure as `model`
/// (models/graph_reshape.h) whose graph has since been reshaped in place to `model`'s ranks,
/// and an arch with `arch`'s flows, scheduling policy and refinements and fusion (the
/// graph, the policy's dependency edges and the fused buffers; lanes, clock, overheads,
/// calibration may differ); it runs on `machine` (step.machine points to it). Both are simulated
/// again for `model`, their storage reused: the instances' IIs (latency, a
/// KernelLatencyModel of (arch, device), rebound to the graph), the task latencies on the
/// schedule graph the step keeps (its dependencies do not change with ranks), footprints,
/// the machine (machine::describe_into with `hd` = hls_design(model, arch)), bank map,
/// schedule and occupancy. The result equals simulate_step(model, arch, device, graph,
/// options). Throws as simulate_step, and std::invalid_argument when `step` does not run
/// on `machine` or is not a padded step of `model`.
void resimulate_step(StepResult& step, machine::Machine& machine, const ModelSpec& model, const ArchSpec& arch,
                     const DeviceSpec& device, KernelLatencyModel& latency, const machine::HlsDesign& hd,
                     EngineOptions options = {});

/// resimulate_step when only prices change: `step` was simulated (simulate_step,
/// resimulate_step or reprice_step) for the model it is re-simulated for — its graph, latency
/// classes, footprints and the machine's arrays and buffer placement hold — and `arch`
/// differs from that simulation's at most in lanes, clock, unit overheads, calibration and
/// the other settings same_step_structure (sim/design_eval.cc) lets differ. Redoes the
/// instances' IIs (`latency`, a KernelLatencyModel of (arch, device)), task latencies, the
/// machine's instances, partition and storage (machine::redescribe_into), bank map, schedule
/// and occupancy. The result equals simulate_step(model, arch, device, graph, options).
/// Throws as resimulate_step.
void reprice_step(StepResult& step, machine::Machine& machine, const ArchSpec& arch, const DeviceSpec& device,
                  KernelLatencyModel& latency, EngineOptions options = {});

/// A what-if step for the engine's own studies: `arch` may ask for what the emitted top
/// does not build (several engines, the parallel policy and its refinements, fusion); the
/// units and dispatch are the arch's, the arrays those of the machine of the same model and
/// lanes built one call at a time. Not a design `emit` can build: no command prices one.
StepResult simulate_what_if(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                            std::int64_t tokens, EngineOptions options = {});

/// Simulates a step of `tokens` tokens on the hardware of `hardware` (a step of the same
/// model and arch, normally the padded one): the arrays are sized for the largest length
/// and shorter samples reuse them, so the machine and bank map are reused; the
/// graph, latencies, traffic and occupancy are those of `tokens`. Throws
/// std::invalid_argument when the two graphs do not have the same buffers.
StepResult simulate_step_on(const StepResult& hardware, const ModelSpec& model, const ArchSpec& arch,
                            const DeviceSpec& device, std::int64_t tokens, EngineOptions options = {});

}  // namespace ttsim
