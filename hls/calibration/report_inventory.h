#pragma once
// What `calibrate` and `compare` did with every file under the reports folder (used,
// skipped or rejected, and why), and which report_power files belong to the design
// whose latency reports are fitted.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hls/calibration/kernel_samples.h"
#include "hls/reports/report_set.h"

namespace ttsim::hls {

/// How one file was used.
struct FileUse {
  std::string path;
  std::string status;  ///< "used", "skipped" (read, not used) , "rejected" or "not read"
  std::string reason;  ///< what it gave or why not
};

/// True when `r` reports a ttsim design: it holds ttsim modules (holds_ttsim_module) and
/// its top is one of ttsim's (ttsim_identity_problems finds nothing).
bool is_ttsim_report(const CsynthReport& r);

/// The report_power files a power fit may use and the utilization reports to pair them
/// with (power_fit.h power_samples), and the power files refused.
struct PowerSelection {
  ReportSet pairs;                ///< selected power reports + candidate utilization reports
  std::vector<FileUse> rejected;  ///< power reports of another design, with the reason
};

/// Selects the report_power files of `set` that belong to the design of the latency
/// reports: walking up from the power file's folder, stopping below `root` (a sibling
/// folder's build is not its design), the first folder whose tree holds csynth reports
/// must hold exactly one build (one folder of csynth reports), of a ttsim design
/// (is_ttsim_report). Any other report_power is rejected with the reason, which points to
/// `calibrate --power FILE`. Each path in `explicit_power` (named on the command line) is
/// read and selected regardless, with the utilization reports of its own folder.
/// A report_power (not named explicitly) whose device is not `part` (when given) is
/// rejected naming both. A report_power (not named explicitly) whose build holds a csynth
/// report in `refused` (KernelSampleSet::refused: rejected by the screening, not kept with
/// --keep) is rejected with it, naming why. Throws InputError naming the file when an
/// explicit file cannot be read.
PowerSelection select_power_reports(const ReportSet& set, const std::string& root,
                                    const std::vector<std::string>& explicit_power, const std::string& part = "",
                                    const std::vector<ReportRefusal>& refused = {});

/// One entry per file of `set.files` (read_reports order): csynth reports with the kernel
/// samples taken or why none, timing violations; cosim reports used as ground truth;
/// power / utilization reports used for the power fit or why not (`power` null: the
/// command fits no power); other files not read.
std::vector<FileUse> report_inventory(const ReportSet& set, const KernelSampleSet& samples,
                                      const PowerSelection* power);

/// Text lines "  <status>  <path relative to root>: <reason>", one per file, with a
/// heading "files under <root>: N used, N skipped, N rejected, N not read".
std::string format_inventory(const std::vector<FileUse>& files, const std::string& root);

/// [{"path", "status", "reason"}, ...].
nlohmann::json inventory_json(const std::vector<FileUse>& files);

}  // namespace ttsim::hls
