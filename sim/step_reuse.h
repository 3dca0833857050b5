#pragma once
// The analytic fast path's in-place re-simulation (sim/design_eval.cc keeps one padded step
// per model structure as a template and re-simulates it for the next design point instead
// of building a step from scratch). A fresh step is sim/step_sim.h simulate_step; these two
// give the same figures as it, on storage that is reused. Both run the step through
// run_on_machine (sim/step_sim.h).

#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "hw/kernel_latency.h"
#include "machine/hls_dims.h"
#include "machine/machine.h"
#include "models/model_spec.h"
#include "sim/step_sim.h"

namespace ttsim {

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
/// {padded_graph = graph, engine = options}). Throws as simulate_step, and std::invalid_argument when `step` does not run
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
/// and occupancy. The result equals simulate_step(model, arch, device) with that graph and options.
/// Throws as resimulate_step.
void reprice_step(StepResult& step, machine::Machine& machine, const ArchSpec& arch, const DeviceSpec& device,
                  KernelLatencyModel& latency, EngineOptions options = {});

}  // namespace ttsim
