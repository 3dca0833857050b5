#pragma once
// The LUT estimate of a described machine without simulating its step: what `emit` and
// the fit rule need before (or without) a schedule. Same figure as the simulated step's
// (sim/step_power.h step_activity), from the same rule (sim/schedule_activity.h
// design_lut_terms) on the same bank map and task banks.

#include "hw/arch_spec.h"
#include "hw/lut_estimate.h"
#include "machine/machine.h"
#include "models/task_graph.h"

namespace ttsim {

/// design_lut_terms of `m` (described for `graph` under `arch`): the arch's unit counts,
/// the machine's bank map (sim/machine_banks.h), the banks each task of `graph` touches
/// with the buffers' footprints (no buffer is fused in a buildable design). Throws
/// std::invalid_argument when `m` does not place `graph`'s buffers.
LutTerms machine_lut_terms(const machine::Machine& m, const TaskGraph& graph, const ArchSpec& arch);

}  // namespace ttsim
