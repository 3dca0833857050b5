#pragma once
// FPGA power and energy: device static power plus dynamic power per resource kind,
// scaled by clock and by the simulated activity (busy fraction) of each resource.
//
//   P_dyn = Σ_kind coefficient_kind [W / (unit · MHz)] · units_kind · f_MHz · busy_kind
//         + clock_watts_per_kilolut_mhz · kLUT · f_MHz        (clock tree, always toggling)
//   P     = P_static + P_dyn,   E = P · t
//
// The coefficients (DeviceSpec::power) were derived from the "On-Chip Components"
// tables of real routed Vivado report_power files at Vivado's default toggle rates;
// `busy` scales them by the fraction of time the resource does work in the simulation.

#include "sim/device_spec.h"

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

/// Power of a design on `device` (coefficients from device.power).
/// Throws InputError when the device file has no power coefficients
/// (!has_power_coefficients), when the clock is not positive, or a busy fraction is
/// outside [0, 1] — never silently reports zero power.
PowerBreakdown fpga_power(const DeviceSpec& device, const FpgaActivity& activity);

/// Estimated LUTs of the arithmetic datapath: `fp_lanes` FP32 multiply-add lanes at
/// about 300 LUTs each (fadd full_dsp 220 + fmul max_dsp 78, hls-reports.md §2.6) plus
/// `control_luts` for control, address generation and the nonlinear units.
/// An estimate from operator figures, not a csynth or place-and-route count.
double estimate_luts(double fp_lanes, double control_luts);

/// LUTs per FP32 multiply-add lane of the estimate (fadd full_dsp 220 + fmul max_dsp 78,
/// rounded; hls-reports.md §2.6).
inline constexpr double kLutsPerFp32Lane = 300.0;

/// Assumed control logic (loop FSMs, address generation, handshakes) per elaborated
/// unit instance and per on-chip bank, LUTs. A modelling assumption, not a csynth figure.
inline constexpr double kControlLutsPerUnitInstance = 2000.0;
inline constexpr double kControlLutsPerBank = 500.0;

/// Control LUTs of a design with `unit_instances` kernel / nonlinear unit instances and
/// `banks` BRAM36/URAM288 banks: kControlLutsPerUnitInstance · instances +
/// kControlLutsPerBank · banks. The one rule used by the power model's logic units and
/// the explorer's LUT headroom check.
double control_luts(double unit_instances, double banks);

}  // namespace ttsim
