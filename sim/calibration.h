#pragma once
// Calibration files (configs/calibration/*.json): kernel latency parameters and power
// coefficients fitted by `ttsim calibrate` from synthesis reports, with their
// provenance. `ttsim simulate --calibration` loads one and applies it to the arch (kernel
// parameters, sim/kernel_params.h) and the device (power coefficients), refusing a
// calibration made for another part or clock.
//
// Format (version 1; every key below is required unless marked optional):
//   {
//     "format": "ttsim-calibration", "version": 1,
//     "provenance": {
//       "tool_version": "2023.2",               // csynth ReportVersion
//       "part": "xcu50-fsvh2104-2-e",            // csynth UserAssignments/Part
//       "target_clock_ns": 10.0,                 // csynth TargetClockPeriod
//       "arch": "u50_paper", "device": "u50", "model": "atis_2enc",
//       "reports": ["<csynth.xml path>", ...]    // every file a fit used
//     },
//     "kernels": {                               // key: TaskOp name (models/task_graph.h)
//       "contraction": {
//         "module": "ttsim_contraction",         // HLS module (hls/kernels/modules.h)
//         "ii": 1.0, "depth_adjust": -1.0, "overhead": 7.0,   // cycles
//         "samples": 4, "max_abs_residual_cycles": 0.0,
//         "reports": ["..."]
//       }, ...
//     },
//     "op_latency": {"fadd": 4, "fmul": 3},       // cycles, from csynth BindNodes (may be {})
//     "power": {                                 // optional: only with report_power files
//       "static_watts": 2.216, "dsp_watts_per_mhz": 8.5e-6, ...   // each key optional
//       "reports": ["<report_power path>", ...]
//     }
//   }

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "models/task_graph.h"
#include "sim/arch_spec.h"
#include "sim/device_spec.h"
#include "sim/kernel_params.h"

namespace ttsim {

/// The fit of one kernel.
struct KernelFitRecord {
  std::string module;      ///< HLS module name the reports showed
  KernelParams params;     ///< cycles
  int samples = 0;         ///< module latencies used (one per report and bound)
  double max_abs_residual_cycles = 0;
  std::vector<std::string> reports;
};

/// Fitted power coefficients (DeviceSpec::power units); absent = not fitted (no report
/// used that resource), the device file's value applies.
struct PowerFitRecord {
  std::optional<double> static_watts, dsp_watts_per_mhz, bram36_watts_per_mhz, uram_watts_per_mhz,
      logic_watts_per_kilolut_mhz, clock_watts_per_kilolut_mhz;
  std::vector<std::string> reports;  ///< report_power files
};

/// A whole calibration file.
struct Calibration {
  std::string file;  ///< where it was loaded from / written to
  std::string tool_version, part;
  double target_clock_ns = 0;
  std::string arch, device, model;
  std::vector<std::string> reports;
  std::map<TaskOp, KernelFitRecord> kernels;
  std::map<std::string, int> op_latency;
  std::optional<PowerFitRecord> power;

  /// 1000 / target_clock_ns.
  double clock_mhz() const { return 1000.0 / target_clock_ns; }
  /// The values the latency model applies.
  KernelCalibration kernel_calibration() const;
};

/// The TaskOp whose to_string() is `name`, or std::nullopt.
std::optional<TaskOp> task_op_from_string(const std::string& name);

/// The JSON document of the format above.
Json calibration_to_json(const Calibration& c);
/// Validates a calibration document (ConfigError naming file and JSON pointer for
/// unknown keys, wrong types, unknown kernel names, non-positive II or clock).
Calibration parse_calibration(const Json& doc, const std::string& file);
/// Loads a calibration file (InputError when unreadable, ConfigError when invalid).
Calibration load_calibration(const std::string& path);
/// Writes `c` to `path` with write_file_atomic.
void write_calibration(const std::string& path, const Calibration& c);

/// Throws InputError when `c` was made for another part than `device.part` or another
/// clock than `arch.clock_mhz` (periods more than 0.01 ns apart), naming both.
void check_calibration_matches(const Calibration& c, const ArchSpec& arch, const DeviceSpec& device);

/// check_calibration_matches, then sets arch.calibration and replaces the power
/// coefficients of `device` that the calibration fitted (device.power.source notes it).
void apply_calibration(const Calibration& c, ArchSpec& arch, DeviceSpec& device);

}  // namespace ttsim
