#pragma once
// One evaluated design (sim/design_eval.h) as `ttsim simulate` reports it: the summary
// lines (step and stage cycles, epoch, power, on-chip peak, what was built and whether it
// fits) and the JSON document around the step's (sim/step_report.h step_json). The
// per-kernel, per-layer and loop tables are in sim/step_tables.h and sim/loop_report.h,
// the machine's tables in machine/machine_report.h.

#include <string>

#include "core/json_view.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"
#include "sim/design_eval.h"
#include "hw/device_spec.h"

namespace ttsim {

/// The summary `simulate` prints after its calibration line: "model .. on arch .. (MHz)
/// <clock_note>, device ..", step cycles and ms with the forward / backward / update
/// stages, the analytic cycles, the epoch over `split` (or how to get one), power and
/// energy (or why there is none), the on-chip peak by buffer class, the build's blocks and
/// DSPs and LUT estimate on `device` (machine::built_line; `e` must fit by the one fit
/// rule). `clock_note` is "" or " (why the clock differs)".
std::string design_summary(const DesignEvaluation& e, const ModelSpec& model, const ArchSpec& arch,
                           const DeviceSpec& device, const std::string& split, const std::string& clock_note);

/// The `simulate --json` document of `e` without its run keys (calibration, defaults_used,
/// loops): step_json, model, arch (resolved JSON), device, bram36_blocks, uram_blocks, dsp,
/// fits, lut_estimate, lut_terms (LutTerms::to_json), ff_estimate, ff_terms (FfTerms::to_json), resource_headroom_pct, over_device, card_watts (machine::card_watts; null without a card), clock {mhz, achievable_mhz, max_mhz, operator_latencies {op: cycles}}, machine (machine::machine_json), epoch {split, samples, by_length
/// [{length, samples, step_cycles}]}, epoch_cycles, epoch_seconds (null without an epoch),
/// power_watts {static, dynamic, total, by_component {dsp, bram, uram, logic, clock}}
/// (null without power coefficients), energy_joules_per_step, energy_joules_per_epoch
/// (null when unknown). Cycles at arch.clock_mhz, seconds, watts, joules.
Json design_json(const DesignEvaluation& e, const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                 const std::string& split);

}  // namespace ttsim
