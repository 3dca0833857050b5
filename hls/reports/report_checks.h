#pragma once
// Checks and cross-references across the reports of one folder tree that every report
// command applies the same way: timing violations (estimated clock above the target)
// and co-simulation latency as ground truth where csynth latency is undef.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "hls/reports/csynth.h"
#include "hls/reports/impl_reports.h"

namespace ttsim::hls {

/// A missed timing target: HLS estimated a clock period above the target period.
struct TimingViolation {
  std::string source;    ///< report file
  std::string module;    ///< module whose estimate misses (the report's top or a module)
  double target_ns = 0;      ///< TargetClockPeriod, ns
  double estimated_ns = 0;   ///< EstimatedClockPeriod, ns (the achievable period)
  /// "<source>: <module>: estimated clock 12.755 ns above the 10.000 ns target (timing
  /// not met; achievable 78.4 MHz instead of 100.0 MHz)".
  std::string message() const;
};

/// The violation of the report's top (its own target and estimate), or std::nullopt when
/// the estimate is unknown or at most the target.
std::optional<TimingViolation> timing_violation(const CsynthReport& r);

/// The violation of module `name` of `r` (ModuleInformation figures, else the top's),
/// or std::nullopt.
std::optional<TimingViolation> module_timing_violation(const CsynthReport& r, const std::string& name);

/// One "warning: <TimingViolation::message()>" line per report of `csynth` whose top
/// misses timing (timing_violation), in report order; "" when none does. What `compare`,
/// `calibrate` and `compare-rules` print before their tables.
std::string timing_warnings(const std::vector<CsynthReport>& csynth);

/// The same violations as JSON: [{report, module, target_clock_ns, estimated_clock_ns}].
Json timing_violations_json(const std::vector<CsynthReport>& csynth);

/// Latency measured by C/RTL co-simulation for a report's top module.
struct CosimLatency {
  std::string source;   ///< the *_cosim.rpt file
  std::string rtl;      ///< "Verilog" / "VHDL"
  Count latency;        ///< min .. max of the passed run, cycles
};

/// The co-simulation latency of `r`'s top: a passed run of "<top>_cosim.rpt" in the same
/// folder as `r`, or in the sibling sim/report folder of a Vitis solution
/// (<solution>/syn/report/csynth.xml, <solution>/sim/report/<top>_cosim.rpt).
/// std::nullopt when there is none or its latency is NA.
std::optional<CosimLatency> cosim_latency_for(const CsynthReport& r, const std::vector<CosimReport>& cosim);

}  // namespace ttsim::hls
