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

/// How simulate_step builds and runs one step. The default is the padded step on the
/// machine of (model, arch, device), the one the emitted build is.
struct StepOptions {
  /// Tokens of the step (batch × sequence length); 0 = the model's padded batch × seq_len.
  /// A shorter step runs on the hardware described from the padded step (the arrays are
  /// sized for the longest sample).
  std::int64_t tokens = 0;
  /// The padded step's graph when the caller already has it: must equal
  /// build_training_graph(model, graph_options(arch, 0)) (as a graph reshaped for the
  /// model's ranks does, models/graph_reshape.h); saves its construction. Tokens 0 only.
  std::shared_ptr<const TaskGraph> padded_graph;
  /// Run on this step's hardware (machine, bank map and unit counts) — a step of the same
  /// model and arch, normally the padded one — instead of describing the machine again:
  /// what an epoch does for every sample length. Its graph must have the same buffers.
  const StepResult* hardware = nullptr;
  /// A what-if study for the engine's own tests: `arch` may ask for what the emitted top
  /// does not build (several engines, the parallel policy and its refinements, fusion); the
  /// units and dispatch are the arch's, the arrays those of the machine of the same model
  /// and lanes built one call at a time. Not a design `emit` can build: no command prices one.
  bool what_if = false;
  /// Engine settings; `engine.port_contention` is and-ed with the arch's port_contention.
  EngineOptions engine;

  /// The padded step with `engine` settings.
  static StepOptions with_engine(EngineOptions engine);
  /// A step of `tokens` tokens on `hardware`'s machine (see `hardware`).
  static StepOptions on_hardware(const StepResult& hardware, std::int64_t tokens, EngineOptions engine = {});
  /// A what-if study of the padded step (see `what_if`).
  static StepOptions what_if_study(EngineOptions engine = {});
};

/// Simulates one training step of (model, arch, device) as `options` say: builds the task
/// graph, describes the machine (machine::describe of the padded step), prices every task at
/// its instance's II and runs the engine (SystemC, or the analytic list schedule with
/// `engine.analytic`). The one entry point of a fresh step; the analytic fast path
/// re-simulates its templates in place (sim/step_reuse.h). Throws ConfigError for an arch
/// the emitted top cannot carry out (machine::check_buildable; not for what_if),
/// InputError for inconsistent inputs, std::invalid_argument for a padded_graph with tokens,
/// a padded_graph or what_if with hardware, or a step whose buffers differ from its hardware's.
StepResult simulate_step(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                         const StepOptions& options = {});

/// Runs `r` on its machine: its arrays (bank map) and, with `machine_units`, its instances
/// — per unit class, the most instances of one of its modules (the top calls one module at
/// a time, so the modules of a class, e.g. ttsim_softmax and ttsim_softmax_grad, never run
/// together) — instead of the arch's unit counts (the what-if studies). `same_placement`:
/// the graph, footprints and buffer placement are those of r's last run, whose task banks
/// are kept.
void run_on_machine(StepResult& r, const ArchSpec& arch, const EngineOptions& options, bool machine_units,
                    bool same_placement = false);

}  // namespace ttsim
