#pragma once
// FPGA power and energy: device static power plus dynamic power per resource kind.
//
// Scenario kClocked (the default): every clocked resource is charged per cycle,
//   P_dyn = Σ_kind coefficient_kind [W / (unit · MHz)] · units_kind · f_MHz
//         + clock_watts_per_kilolut_mhz · kLUT · f_MHz
// — the figure Vivado report_power gives for the design at its default toggle rates, which
// is where the coefficients (DeviceSpec::power) come from: block RAM and DSP power is
// charged per clocked cycle while their enables are held (a Vivado estimate of an
// UltraScale+ HBM design kept 0.31 W in BRAM and 0.16 W in DSPs at zero toggle;
// shared/reference/baseline-facts.md), and the kernels of the emitted top hold them.
// Scenario kBusyScaled (named, not the default): each term but the clock tree scaled by
// the simulated busy fraction of its resource — what a design that gates the clock
// enables of idle resources would draw; it is not what the emitted build does.
//   P = P_static + P_dyn,   E = P · t

#include "hw/device_spec.h"

namespace ttsim {

/// One resource kind used by a design: how many units and how busy they are.
struct ResourceActivity {
  double units = 0;          ///< DSP slices, BRAM36 blocks, URAM288 blocks or thousands of LUTs
  double busy_fraction = 0;  ///< in [0, 1]: busy cycles / total cycles, averaged over the units
};

/// Activity of one design over a run, as produced by the simulator.
struct FpgaActivity {
  double clock_mhz = 0;
  ResourceActivity dsp, bram36, uram288, kilo_lut;
};

/// Power in watts, by component.
struct PowerBreakdown {
  double static_watts = 0;
  double dsp_watts = 0, bram_watts = 0, uram_watts = 0, logic_watts = 0, clock_watts = 0;
  double dynamic_watts() const {
    return dsp_watts + bram_watts + uram_watts + logic_watts + clock_watts;
  }
  double total_watts() const { return static_watts + dynamic_watts(); }
};

/// True when `device` has power coefficients: a positive static power, DSP or logic
/// coefficient (the condition fpga_power checks).
bool has_power_coefficients(const DeviceSpec& device);

/// How dynamic power is charged (see the file comment).
enum class PowerScenario { kClocked, kBusyScaled };
/// "clocked" or "busy_scaled".
const char* to_string(PowerScenario s);

/// Power of a design on `device` (coefficients from device.power) under `scenario`.
/// Throws InputError when the device file has no power coefficients
/// (!has_power_coefficients), when the clock is not positive, or a busy fraction is
/// outside [0, 1] — never silently reports zero power.
PowerBreakdown fpga_power(const DeviceSpec& device, const FpgaActivity& activity,
                          PowerScenario scenario = PowerScenario::kClocked);

}  // namespace ttsim
