#pragma once
// Activity of a simulated training step, for the power model (sim/power/fpga_power.h).

#include "sim/arch_spec.h"
#include "sim/device_spec.h"
#include "sim/power/fpga_power.h"
#include "sim/step_sim.h"

namespace ttsim {

/// Resource counts and busy fractions of one simulated step:
///  - DSP: units = arch_dsp(arch, device); busy = Σ_instances busy_cycles · lanes ·
///    dsp_per_lane / (units · step cycles).
///  - BRAM36 / URAM288: units = the bank map's blocks of that kind; busy = Σ over the
///    SystemC bank occupations of (end − start) · blocks of the bank / (units · step cycles).
///  - Logic: units = estimate_luts(Σ count · lanes over every unit kind, 2,000 LUTs of
///    control per unit instance + 500 per bank) / 1,000; busy = the DSP busy fraction
///    (the datapath logic toggles with the arithmetic it feeds).
/// Fractions are clamped to [0, 1]. A zero-cycle step gives zero busy fractions.
FpgaActivity step_activity(const StepResult& step, const ArchSpec& arch, const DeviceSpec& device);

}  // namespace ttsim
