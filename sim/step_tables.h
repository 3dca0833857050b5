#pragma once
// The per-kernel and per-layer tables of a simulated step, as `ttsim simulate` prints
// them: the text form of step_json's "kernels" and "layers" (sim/step_report.h), from the
// same breakdowns and totals. Counts with thousands separators; cycles at the arch clock.

#include <string>

#include "hw/arch_spec.h"
#include "sim/step_sim.h"

namespace ttsim {

/// Header "kernel lanes tasks busy cycles utilization" and one row per elaborated unit
/// instance (kernel_breakdown, idle ones included), then the "total" row (kernel_total:
/// lanes blank, utilization the mean). Utilization in %. Each line ends with "\n".
std::string kernel_table(const StepResult& r, const ArchSpec& arch);

/// Header "layer tasks MACs busy cycles contr. cycles MACs/cycle lane eff. start end" and
/// one row per layer (layer_breakdown, in order of first appearance), then the "total" row
/// (layer_total). MACs/cycle = MACs / the layer's contraction cycles; lane eff. = that /
/// the arch's contraction lanes (lane_efficiency), in %; the three blank without
/// contractions.
std::string layer_table(const StepResult& r, const ArchSpec& arch);

/// Title, header "role shape form calls cycles MACs/cycle lane eff." and one row per
/// product_breakdown entry (contraction tasks of one role and shape, by cycles
/// descending). Shape "rows x inner x cols" ("rows x cols" for a transpose), prefixed by
/// "batch x" when batch > 1.
std::string product_table(const StepResult& r, const ArchSpec& arch);

}  // namespace ttsim
