#pragma once
// Activity of a simulated training step, for the power model (hw/fpga_power.h).

#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "hw/fpga_power.h"
#include "hw/lut_estimate.h"
#include "sim/step_sim.h"

namespace ttsim {

/// Resource counts and busy fractions of one simulated step: schedule_activity
/// (sim/schedule_activity.h) of the SystemC schedule on the elaborated unit
/// instances and the step's bank map. Per resource:
///  - DSP: units = Σ instances · unit_dsp(kind, lanes) (= arch_dsp(arch, device));
///    busy = Σ_tasks (end − start) · unit_dsp(kind, lanes) / (units · step cycles).
///  - BRAM36 / URAM288: units = the bank map's blocks of that kind; busy = Σ_tasks
///    (end − start) · blocks of the banks the task moves words through / (units · step
///    cycles) — under port contention exactly the SystemC bank occupations.
///  - Logic: units = design_luts (operator cores, bank networks, control per pipelined
///    loop, binding multiplexers, the kernels' LUTRAM, the top's argument multiplexers over
///    the machine's call sites: sim/schedule_activity.h) / 1,000; busy = the DSP busy
///    fraction.
/// Fractions are clamped to [0, 1]. A zero-cycle step gives zero busy fractions. `luts`,
/// when given, receives the LUT estimate by term. Throws std::invalid_argument for a step
/// without a machine (StepResult::machine) or whose task banks do not cover its tasks.
FpgaActivity step_activity(const StepResult& step, const ArchSpec& arch, const DeviceSpec& device,
                           LutTerms* luts = nullptr);

}  // namespace ttsim
