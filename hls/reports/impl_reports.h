#pragma once
// Readers of the post-implementation HLS export report `impl/report/verilog/
// export_impl.xml` (Vivado run inside HLS export_design -flow impl) and of the C/RTL
// co-simulation report `sim/report/<top>_cosim.rpt`. Layouts: shared/reference/
// hls-reports.md §1.3 and §1.4(c).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hls/reports/values.h"

namespace ttsim::hls {

/// Post-route resources (export_impl.xml AreaReport; note BRAM is in 18 Kb units here,
/// named "BRAM") and achieved clock.
struct ExportImplReport {
  std::string source;
  std::string vivado_version;         ///< RunData/VIVADO_VERSION, e.g. "v.2023.2"
  std::string run_type;               ///< "impl" or "syn"
  std::optional<double> target_clock_ns, achieved_clock_ns;
  std::optional<bool> timing_met;     ///< TIMING_MET TRUE/FALSE
  std::optional<std::int64_t> bram_18k, dsp, ff, lut, uram, clb, srl, latch;   ///< used
  std::optional<std::int64_t> avail_bram_18k, avail_dsp, avail_ff, avail_lut, avail_uram;
  /// Values printed as unknown ("undef", "?", ranges, the unbounded sentinel family, values.h),
  /// each read as an empty optional.
  std::vector<UnknownValue> unknowns;
};

/// Parses export_impl.xml text. Throws InputError "<source>: <element path>: …" for
/// malformed XML, a root other than <profile>, a missing TimingReport or
/// AreaReport/Resources, or values neither numeric nor of the unknown forms.
ExportImplReport parse_export_impl_xml(const std::string& text, const std::string& source);
ExportImplReport read_export_impl_xml(const std::string& path);

/// One RTL row ("VHDL" / "Verilog") of a co-simulation report; cycles.
struct CosimRun {
  std::string rtl;     ///< "VHDL" or "Verilog"
  std::string status;  ///< "Pass", "Fail" or "NA" (not run)
  Count latency_min, latency_avg, latency_max;     ///< unknown when "NA"
  Count interval_min, interval_avg, interval_max;  ///< unknown when "NA"
  Count total_execution;                           ///< unknown when "NA"
};

/// A C/RTL co-simulation report.
struct CosimReport {
  std::string source;
  std::string solution, simulation_tool;
  std::vector<CosimRun> runs;
  /// The first run whose status is "Pass", or nullptr.
  const CosimRun* passed() const;
};

/// Parses <top>_cosim.rpt text. Cells "NA", "?", "undef" and the unbounded sentinel family
/// (values.h) are unknown. Throws InputError "<source>: …" when no VHDL/Verilog row exists,
/// a row has fewer than 9 cells, or a cell is none of these nor an integer.
CosimReport parse_cosim_rpt(const std::string& text, const std::string& source);
CosimReport read_cosim_rpt(const std::string& path);

}  // namespace ttsim::hls
