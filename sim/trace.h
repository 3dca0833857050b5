#pragma once
// Chrome / Perfetto trace-event JSON of a simulated step (opens in ui.perfetto.dev and
// chrome://tracing): process 1 "kernels" with one track per unit instance and one
// complete ("X") slice per task (args: id, layer, role, op, MACs, start/end cycle, deps,
// and for a contraction its lane_efficiency = MACs / (cycles · lanes)); process 2 "banks" with one track per BRAM36/URAM288
// bank and one slice per port reservation; counters ("C") of on-chip occupancy bytes per
// buffer class. Timestamps are microseconds at the arch clock (cycles / clock_mhz).

#include <string>

#include "hw/arch_spec.h"
#include "sim/step_sim.h"

namespace ttsim {

/// The trace document as a JSON string.
std::string chrome_trace_json(const StepResult& r, const ArchSpec& arch);

}  // namespace ttsim
