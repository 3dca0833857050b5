#pragma once
// Whether a design fits a device: the one rule every command applies (`simulate`,
// `memplan`, `emit`, `baseline` through machine::over_device, `explore` through its
// constraint check dse/evaluate/feasibility.h).
//
// A resource fits when the design uses at most floor(total · (100 − headroom) / 100) of
// the device's total: BRAM36, URAM288, DSP48E2, LUTs and FFs (the LUT and FF figures are the
// estimates of sim/schedule_activity.h design_luts and hw/ff_estimate.h, not csynth figures).
// A device file without a LUT (FF) count does not check LUTs (FFs); a device without a block kind fits only designs
// using none of it. Two more limits of the device file complete the rule:
//  - card power: the card's idle draw plus the design's dynamic power (hw/fpga_power.h,
//    clocked scenario) within (100 − headroom) % of the card's maximum (card.max_watts),
//    when the device file states a card;
//  - clock: the design's clock at most the device's achievable clock (clocks.achievable_mhz:
//    the highest post-route kernel clock real builds on the device are known to have
//    closed at — an upper bound, not a prediction for the design), no headroom; a device
//    file that states none checks no clock.

#include <cstdint>
#include <string>
#include <vector>

#include "hw/device_spec.h"

namespace ttsim {

/// Share of each device resource a design leaves free unless a sweep says otherwise
/// (sweep "constraints"/"resource_headroom_pct"), percent: routing and timing closure
/// room for the logic, as the shipped sweeps keep.
inline constexpr double kDefaultResourceHeadroomPct = 5;

/// What one design uses.
struct ResourceUse {
  double bram36 = 0, uram288 = 0, dsp = 0;
  double lut = 0;  ///< estimated LUTs
  double ff = 0;   ///< estimated FFs (hw/ff_estimate.h)
  /// Card-level power, W: DeviceSpec::card_idle_watts + the design's dynamic power; 0: not
  /// known (not checked).
  double card_watts = 0;
  double clock_mhz = 0;  ///< the design's kernel clock, MHz; 0: not checked
};

/// One resource over its limit.
struct ResourceOverrun {
  std::string resource;  ///< "BRAM36", "URAM288", "DSP", "LUT", "FF", "card power", "clock"
  std::string device_pointer;  ///< JSON pointer of its total in the device file, e.g. "/resources/bram36"
  double used = 0;
  double limit = 0;  ///< usable: floor(total · (100 − headroom) / 100)
  double total = 0;  ///< on the device
  double headroom_pct = 0;
  /// "BRAM36 1,345 needed, 1,276 usable (1,344 on the device at /resources/bram36, 5 %
  /// headroom)" ("estimated" for LUTs); "card power 78.4 W needed, 71.2 W usable (75 W on
  /// the device at /card/max_watts, 5 % headroom)"; "clock 300 MHz asked, 250 MHz achievable
  /// (the device at /clocks/achievable_mhz)".
  std::string line() const;
};

/// The resources of `use` over their limits on `device` with `headroom_pct` percent kept
/// free, in the order BRAM36, URAM288, DSP, LUT, FF, card power, clock; empty when the design
/// fits. Throws std::invalid_argument for a headroom outside [0, 100).
std::vector<ResourceOverrun> resource_overruns(const ResourceUse& use, const DeviceSpec& device,
                                               double headroom_pct);

}  // namespace ttsim
