#pragma once
// Fitting the power model's coefficients (hw/fpga_power.h, DeviceSpec::power)
// from Vivado report_power / report_utilization pairs of routed designs.
//
// Each pair (same folder) gives, at the design's clock f (MHz, from report_power
// "2.2 Clock Constraints", ap_clk or the first clock), the power of each component
// ("1.1 On-Chip Components") and the resources used (report_utilization):
//   DSPs [W]                 = dsp_watts_per_mhz            · DSP slices · f
//   Block RAM [W]            = bram36_watts_per_mhz         · Block RAM tiles · f
//   URAM [W]                 = uram_watts_per_mhz           · URAM288 · f
//   CLB Logic + Signals [W]  = logic_watts_per_kilolut_mhz  · kLUT · f
//   Clocks [W]               = clock_watts_per_kilolut_mhz  · kLUT · f
//   Device Static [W]        = static_watts
// at Vivado's default toggle rates (busy fraction 1). Each coefficient is the least-
// squares slope through the origin over the pairs that use that resource
// (Σ x·y / Σ x², x = units · f); static power is the mean. A coefficient no pair
// exercises (e.g. URAM in a design without URAM) is left unfitted.

#include <string>
#include <vector>

#include "hls/reports/report_set.h"
#include "hw/calibration.h"

namespace ttsim::hls {

/// One report_power / report_utilization pair.
struct PowerSample {
  std::string power_source, utilization_source, device;
  double clock_mhz = 0;
  double dsp = 0, bram36 = 0, uram = 0, kilo_lut = 0;          ///< units used
  double dsp_w = 0, bram_w = 0, uram_w = 0, logic_w = 0, clock_w = 0, static_w = 0;  ///< watts
};

/// Pairs every power report of `set` with the utilization report of its folder.
/// Throws InputError naming the file when a power report has no utilization report
/// beside it, no clock constraint, or the two reports name different devices.
std::vector<PowerSample> power_samples(const ReportSet& set);

/// The file name of `path` before "_<kind>" (Vivado's `<top>_power_routed.rpt` beside
/// `<top>_utilization_placed.rpt`: stem `<top>` for kinds "power" and "utilization"), or the
/// whole file name when it has no "_<kind>".
std::string report_file_stem(const std::string& path, const std::string& kind);

/// The report_utilization of the build report_power `p` is of, among `utilization`: the one in
/// its folder; where the folder holds several, narrowed step by step — those of its file stem
/// (`<top>_power_routed.rpt` beside `<top>_utilization_placed.rpt`), then those after
/// placement (not "Design State : Synthesized"), then those of its Design — each step kept
/// only when some candidate passes it. Throws InputError naming the candidates when none or
/// more than one remains.
const UtilizationReport* utilization_for(const PowerReport& p, const std::vector<UtilizationReport>& utilization);

/// Fits the coefficients over `samples` (see above). Throws InputError when empty.
PowerFitRecord fit_power(const std::vector<PowerSample>& samples);

}  // namespace ttsim::hls
