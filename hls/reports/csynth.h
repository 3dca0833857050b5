#pragma once
// Reader of HLS C-synthesis XML reports: `csynth.xml` and per-module
// `<module>_csynth.xml`, as written by Vivado HLS 2018.2-2019.2 and Vitis HLS
// 2020.1-2023.2 (schema notes: shared/reference/hls-reports.md §1.2). Root <profile>.
//
// Version differences handled: DSP48E (<=2019.2) and DSP (2020.1+) are the same
// resource; loop elements are named after the loop label (dotted, repeated, nested
// names are kept as they are); <ModuleInformation> (2021.1+) gives per-module latency,
// loops, resources and <BindNode> operator bindings; loop fields absent in a version
// (Slack, AbsoluteTimeLatency, InstanceList) are simply empty. "undef", "?", ranges and
// "a ~ b" strings are kept as Count / TimeSpan values: unknown is never 0. Vitis HLS
// 2024.x's unbounded sentinel (2^60 and above, values.h) is unknown too, in every numeric
// field; each value read as unknown is listed in CsynthReport::unknowns (per module and
// field) and the rest of the report is read.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hls/reports/values.h"

namespace ttsim::hls {

/// One loop of a latency summary (<SummaryOfLoopLatency>), with its nested loops.
/// Counts in clock cycles (latency, iteration latency, II, depth) or iterations (trip).
struct LoopReport {
  std::string name;               ///< loop label, e.g. "VITIS_LOOP_35_2.2", "Loop3.1"
  Count trip_count;               ///< iterations
  Count latency;                  ///< cycles of the whole loop
  std::optional<Count> iteration_latency;  ///< cycles of one iteration (when reported)
  std::optional<Count> pipeline_ii;        ///< initiation interval (pipelined loops)
  std::optional<Count> pipeline_depth;     ///< pipeline depth (pipelined loops; in
                                           ///< ModuleInformation also = iteration latency)
  std::string pipeline_type;      ///< "yes", "no", ... ; empty when not reported (<=2020.x)
  std::optional<TimeSpan> absolute_time;   ///< AbsoluteTimeLatency (2020.2+)
  std::vector<std::string> instances;      ///< InstanceList entries (2022.1+)
  std::vector<LoopReport> loops;           ///< nested loops in report order

  /// True when the loop is pipelined: it reports PipelineII and its PipelineType is
  /// not "no" (any pipeline style: "yes", "frp", "flp", ...; the kernel samples and the
  /// composition rule model only "yes" and skip the others, naming the style).
  bool pipelined() const { return pipeline_ii.has_value() && pipeline_type != "no"; }
};

/// Resource counts of <Resources> / <AvailableResources> (units: BRAM_18K blocks, DSP
/// slices, flip-flops, LUTs, URAM288 blocks). Empty when the element is absent.
struct Resources {
  std::optional<std::int64_t> bram_18k, dsp, ff, lut, uram;
};

/// One <BindNode> (operator or storage binding), ModuleInformation 2021.1+.
struct BindNode {
  std::string bind_type;  ///< "op" or "storage"
  std::string op_type;    ///< OPTYPE: "fadd", "mul", "ram_2p", ...
  std::string impl;       ///< IMPL: "fulldsp", "maxdsp", "fabric", "bram", "uram", ...
  std::string rtl_name;   ///< RTLNAME
  std::string variable;   ///< VARIABLE
  std::string source;     ///< SOURCE "file:line"
  std::string loop;       ///< LOOP
  std::optional<std::int64_t> latency;  ///< LATENCY, cycles
  std::optional<std::int64_t> dsp, bram, uram;  ///< DSP / BRAM / URAM attributes
  /// STORAGESIZE "<width bits> <depth words> <banks>" of a storage binding (Vitis HLS
  /// 2022+; empty when absent or not three non-negative integers).
  std::optional<std::int64_t> storage_width, storage_depth, storage_banks;

  /// Declared storage bits: width × depth × banks; empty without a STORAGESIZE.
  std::optional<std::int64_t> storage_bits() const;
};

/// One <ModuleInformation>/<Module>: an RTL module (a function or an outlined
/// "<func>_Pipeline_<loop>" module).
struct ModuleReport {
  std::string name;
  std::optional<double> target_clock_ns, clock_uncertainty_ns, estimated_clock_ns;
  Count latency_best, latency_average, latency_worst;  ///< cycles
  Count interval;                 ///< PipelineInitiationInterval, cycles
  std::string pipeline_type;      ///< "no", "yes", "dataflow", ...
  std::vector<LoopReport> loops;
  Resources resources, available;
  std::vector<BindNode> bind_nodes;
};

/// One RTL instance in <RTLDesignHierarchy> (2021.1+).
struct InstanceNode {
  std::string instance_name;  ///< InstName (the TopModule itself has none)
  std::string module_name;
  std::vector<InstanceNode> instances;
};

/// Everything read from one csynth XML file.
struct CsynthReport {
  std::string source;            ///< file path or name given to the reader
  std::string tool_version;      ///< ReportVersion/Version, e.g. "2019.2", "2021.1.1"
  std::string product_family;
  std::string part;              ///< e.g. "xcu50-fsvh2104-2-e"
  std::string top;               ///< TopModelName (the module this file reports)
  std::string flow_target;       ///< "vivado" / "vitis"; empty before 2020.1
  std::optional<double> target_clock_ns, clock_uncertainty_ns, estimated_clock_ns;
  std::string pipeline_type;     ///< PerformanceEstimates/PipelineType
  Count latency_best, latency_average, latency_worst;  ///< cycles
  std::optional<TimeSpan> latency_best_time, latency_worst_time;  ///< RealTimeLatency
  Count interval_min, interval_max;  ///< cycles
  std::vector<LoopReport> loops;     ///< top-level SummaryOfLoopLatency (may be empty)
  Resources resources, available;
  std::vector<ModuleReport> modules;  ///< ModuleInformation (2021.1+; else empty)
  std::optional<InstanceNode> hierarchy;  ///< RTLDesignHierarchy/TopModule
  /// Every numeric value printed as unknown ("undef", "?", a range where one number is
  /// expected, the unbounded sentinel family), in document order; each field it stands
  /// for is read as unknown (an empty optional, or a Count end).
  std::vector<UnknownValue> unknowns;

  /// The ModuleInformation entry named `name`, or nullptr.
  const ModuleReport* module(const std::string& name) const;
};

/// Parses the text of a csynth XML report; `source` names it in errors and is stored.
/// Throws InputError "<source>: <element path>: <what>" for malformed XML (including
/// truncation), a root other than <profile>, missing required elements (ReportVersion/
/// Version, UserAssignments/{Part,TopModelName,TargetClockPeriod}, PerformanceEstimates/
/// {SummaryOfTimingAnalysis,SummaryOfOverallLatency}, AreaEstimates/Resources; in a
/// loop TripCount and Latency; in a module Name) and values that are neither numbers nor
/// one of the unknown forms above (those are read as unknown and listed).
CsynthReport parse_csynth_xml(const std::string& text, const std::string& source);

/// Reads and parses the csynth XML file at `path`. Throws InputError as above, or when
/// the file cannot be read.
CsynthReport read_csynth_xml(const std::string& path);

}  // namespace ttsim::hls
