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
//  - clock: the design's clock at most its achievable clock (achievable_clock below) less the
//    same headroom — the multi-SLR figure is an average over designs, some of which did not
//    route; a device file that states no achievable clock checks no clock.

#include <cstdint>
#include <optional>
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

/// Percent of each SLR's resources the platform's infrastructure may take from the kernel:
/// "10% of the available resources can be used by system infrastructure" (UG1393, Vitis
/// Application Acceleration, "Determining Where to Place the Kernels"; the U50 shell's own
/// per-SLR figures are not known here).
inline constexpr double kSlrInfrastructurePct = 10;

/// What one SLR holds for a kernel of a resource with `total` on a device of `slrs` SLRs,
/// keeping `headroom_pct` free: floor(total / slrs · max(0, 100 − headroom_pct −
/// kSlrInfrastructurePct) / 100).
double one_slr_usable(std::int64_t total, int slrs, double headroom_pct);

/// A design's achievable kernel clock (MHz) and what sets it: the lower of
///  - the device's clocks.achievable_mhz, the highest post-route kernel clock real builds on
///    the device are known to have closed at (the U50: 250 MHz, DGN_compute_one_graph; an
///    upper bound, not a prediction), and
///  - when the design does not fit one SLR — some resource above one_slr_usable: its share
///    of the device (total / slrs), less the fit rule's headroom and the
///    kSlrInfrastructurePct the platform's infrastructure may take (the emitted link pins no
///    SLR and the kernel has no floorplan) — the device's clocks.multi_slr_mhz: the average
///    clock of HLS designs spread over the dies of a multi-die Alveo card without
///    floorplanning (147 MHz over 43 designs on U250 and U280, 16 of which did not route at
///    all; AutoBridge, Guo et al., FPGA'21, doi 10.1145/3431920.3439289, whose floorplanning
///    and pipelining raised them to 297 MHz).
/// The logic depth of the bank networks the kernels build is below both: a 64-bank lane
/// rotator (3 LUT levels), an array select among at most 16 arrays (2) and the block-RAM
/// start (counted as one level) are 6 levels, 1.8 ns at report_failfast's 0.300 ns per
/// LUT and net for UltraScale+ -2 (Xilinx/XilinxTclStore designutils/report_failfast.tcl), so
/// no depth term is priced.
struct ClockEstimate {
  double mhz = 0;  ///< 0: the device states no achievable clock (no clock is checked)
  /// The device file's figure that sets it: "/clocks/achievable_mhz" or "/clocks/multi_slr_mhz".
  const char* device_pointer = "";
  int slrs = 1;                        ///< the device's SLRs
  const char* slr_resource = nullptr;  ///< the resource furthest above its one-SLR share, or null
  double slr_used = 0, slr_share = 0;  ///< its use and what one SLR holds of it (one_slr_usable)
  /// Why, when the multi-SLR figure sets it: "spans 2 SLRs: BRAM36 769 > 571 usable in one
  /// SLR"; "" otherwise.
  std::string basis() const;
};

/// One resource over its limit.
struct ResourceOverrun {
  std::string resource;  ///< "BRAM36", "URAM288", "DSP", "LUT", "FF", "card power", "clock"
  std::string device_pointer;  ///< JSON pointer of its total in the device file, e.g. "/resources/bram36"
  double used = 0;
  double limit = 0;  ///< usable: floor(total · (100 − headroom) / 100)
  double total = 0;  ///< on the device
  double headroom_pct = 0;
  std::string basis;  ///< the clock's: ClockEstimate::basis
  /// "BRAM36 1,345 needed, 1,276 usable (1,344 on the device at /resources/bram36, 5 %
  /// headroom)" ("estimated" for LUTs); "card power 78.4 W needed, 71.2 W usable (75 W on
  /// the device at /card/max_watts, 5 % headroom)"; "clock 300 MHz asked, 237.5 MHz usable (250
  /// MHz achievable; the device at /clocks/achievable_mhz, 5 % headroom)"; "clock 200 MHz asked,
  /// 139.65 MHz usable (147 MHz achievable: spans 2 SLRs: BRAM36 769 > 571 usable in one SLR;
  /// the device at /clocks/multi_slr_mhz, 5 % headroom)".
  std::string line() const;
};

/// The achievable clock of a design using `use` on `device` with `headroom_pct` percent of
/// each resource kept free (the rule above; use.clock_mhz is not read).
ClockEstimate achievable_clock(const ResourceUse& use, const DeviceSpec& device, double headroom_pct);

/// BRAM36, URAM288, DSP, LUT and FF of `use` with their limits on `device` with `headroom_pct`
/// percent kept free (floor(total · (100 − headroom) / 100)), in that order; LUT and FF only
/// where the device file gives their totals. Whether each is over its limit or not. Throws
/// std::invalid_argument for a headroom outside [0, 100).
std::vector<ResourceOverrun> resource_limits(const ResourceUse& use, const DeviceSpec& device, double headroom_pct);

/// Of resource_limits, the one closest to (or furthest over) its limit: the largest used /
/// limit; nullopt when no limit is positive.
std::optional<ResourceOverrun> tightest_resource(const ResourceUse& use, const DeviceSpec& device,
                                                 double headroom_pct);

/// The resources of `use` over their limits on `device` with `headroom_pct` percent kept
/// free, in the order BRAM36, URAM288, DSP, LUT, FF, card power, clock; empty when the design
/// fits. Throws std::invalid_argument for a headroom outside [0, 100).
std::vector<ResourceOverrun> resource_overruns(const ResourceUse& use, const DeviceSpec& device,
                                               double headroom_pct);

}  // namespace ttsim
