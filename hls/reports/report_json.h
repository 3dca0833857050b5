#pragma once
// JSON form of the reports read by hls/reports (used by `ttsim inspect-report --json`).
// Counts are written as a number when exact, {"min": a, "max": b} when a range (an
// unknown end null: {"min": 1, "max": null}) and null when unknown ("undef", "?", the
// unbounded sentinel); optional scalars absent or unknown in the report are null.

#include <nlohmann/json.hpp>

#include "hls/reports/csynth.h"
#include "hls/reports/impl_reports.h"
#include "hls/reports/report_set.h"
#include "hls/reports/vivado_rpt.h"

namespace ttsim::hls {

/// number | {"min","max"} (either may be null) | null.
nlohmann::json count_json(const Count& c);

/// {"BRAM_18K","DSP","FF","LUT","URAM"}, each a number or null.
nlohmann::json resources_json(const Resources& r);

/// {"name","trip_count","latency","iteration_latency","pipeline_ii","pipeline_depth",
///  "pipelined","instances","loops":[…]} (counts as count_json).
nlohmann::json loop_json(const LoopReport& l);

/// [{"module","field","text","kind"}] of the values a reader read as unknown.
nlohmann::json unknowns_json(const std::vector<UnknownValue>& unknowns);

/// One csynth report: "source","top","part","tool_version","product_family",
/// "flow_target","target_clock_ns","clock_uncertainty_ns","estimated_clock_ns",
/// "latency_best" (lower bound of best case), "latency_average", "latency_worst" (upper
/// bound of worst case), "interval_min", "interval_max" (cycles, null when unknown),
/// "resources", "available", "loops" (tree), "modules" (ModuleInformation, each with
/// its loops and "bind_nodes"), "unknowns" (unknowns_json), "identity_problems"
/// (report_identity.h, strings) and "contradictions" ([{"module","what"}],
/// report_consistency.h).
nlohmann::json csynth_json(const CsynthReport& r);

/// Every report of a ReportSet: {"csynth":[…],"designs":[…],"export_impl":[…],"cosim":[…],
/// "utilization":[…],"power":[…],"not_read":[paths]}; "designs" (report_identity.h
/// group_designs): [{"folder","top","report","same_top":[paths],"modules":[{"report",
/// "module","parent"}],"mismatches":[…]}]; each export_impl entry has its "unknowns".
nlohmann::json report_set_json(const ReportSet& s);

}  // namespace ttsim::hls
