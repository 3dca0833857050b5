#pragma once
// Reads every report in a file or a folder (recursively), dispatching on the file
// name: "*csynth.xml" → csynth reader, "export_impl.xml" → post-route export report,
// "*_cosim.rpt" → co-simulation, "*utilization*.rpt" → report_utilization,
// "*power*.rpt" → report_power. Other files are listed as not read.

#include <string>
#include <vector>

#include "hls/reports/csynth.h"
#include "hls/reports/impl_reports.h"
#include "hls/reports/vivado_rpt.h"

namespace ttsim::hls {

/// Kind of report a file name denotes.
enum class ReportKind { kCsynthXml, kExportImplXml, kCosimRpt, kUtilizationRpt, kPowerRpt, kOther };

/// The kind of report the file name (not its content) denotes.
ReportKind classify_report_file(const std::string& path);

/// All reports found under one path, each list sorted by file path.
struct ReportSet {
  std::vector<CsynthReport> csynth;
  std::vector<ExportImplReport> export_impl;
  std::vector<CosimReport> cosim;
  std::vector<UtilizationReport> utilization;
  std::vector<PowerReport> power;
  std::vector<std::string> not_read;  ///< files of kind kOther
  /// Vivado text reports (report_utilization, report_power) left out because a figure
  /// their reader needs is unknown or malformed: (path, the reader's error, which names
  /// the file, line, row and column). Only a command that needs such a report fails on it.
  std::vector<std::pair<std::string, std::string>> rejected;
  /// Every regular file found, sorted by path, with the kind its name denotes.
  std::vector<std::pair<std::string, ReportKind>> files;
};

/// "csynth.xml", "export_impl.xml", "cosim report", "report_utilization",
/// "report_power" or "not a report kind".
const char* describe(ReportKind kind);

/// Reads `path` (a file or a folder). Throws InputError when the path does not exist,
/// when a single file given directly is of no known kind, or from the csynth, export_impl
/// and cosim readers (the error names the file); a report_utilization / report_power the
/// reader refuses goes to `rejected` instead, so one such file does not cost the folder.
ReportSet read_reports(const std::string& path);

}  // namespace ttsim::hls
