#pragma once
// Calibration files (configs/calibration/*.json): kernel latency parameters and power
// coefficients fitted by `ttsim calibrate` from synthesis reports, with their
// provenance. `ttsim simulate --calibration` loads one and applies it to the arch (kernel
// parameters, hw/kernel_params.h) and the device (power coefficients), refusing a
// calibration made for another part or clock.
//
// Format (version 2; every key below is required unless marked optional):
//   {
//     "format": "ttsim-calibration", "version": 2,
//     "provenance": {
//       "tool_version": "2023.2",               // csynth ReportVersion
//       "part": "xcu50-fsvh2104-2-e",            // csynth UserAssignments/Part
//       "target_clock_ns": 10.0,                 // csynth TargetClockPeriod
//       "achievable_clock_ns": 12.755,           // optional: estimated period above the target
//       "notes": ["..."],                        // optional
//       "arch": "u50_paper", "device": "u50", "model": "atis_2enc",
//       "reports": ["<csynth.xml path>", ...]    // every file a fit used
//     },
//     "kernels": {                               // key: TaskOp name (models/task_graph.h)
//       "contraction": {
//         "module": "ttsim_contraction",         // HLS module (hls/kernels/modules.h)
//         "lanes": 64,                           // unit lanes the model II/depth were taken at
//         "overhead": 7.0,                       // cycles per invocation
//         "samples": 4, "max_abs_residual_cycles": 0.0,
//         "reports": ["..."],
//         "loops": {                             // key: loop class (kernel_spec.h loop name)
//           "contract_column": {
//             "depth_adjust": 2.0,               // cycles added to the model depth
//             "samples": 4,
//             "model_ii": 1, "model_depth": 13,  // derived from the specification (cycles)
//             "report_ii": 1,                    // optional: PipelineII when every sample agrees
//             "report_depth": 16.0,              // optional: mean PipelineDepth
//             "max_abs_residual_cycles": 0.0     // |calibrated − reported loop latency|
//           }, ...
//         }
//       }, ...
//     },
//     "op_latency": {"fadd": 4, "fmul": 3},       // cycles, from csynth BindNodes (may be {})
//     "power": {                                 // optional: only with report_power files
//       "static_watts": 2.216, "dsp_watts_per_mhz": 8.5e-6, ...   // each key optional
//       "reports": ["<report_power path>", ...]
//     }
//   }
// There is no II in a calibration: every loop's II is derived from the kernel
// specification (hls/include/kernel_spec.h) and the operator latencies. Version 1 files,
// which carried a fitted flat "ii" per kernel, are refused (ConfigError at /version, or
// at /kernels/<op>/ii for a kernel that has one).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "models/task_graph.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "hw/kernel_params.h"

namespace ttsim {

/// The fit of one loop class (one kernel_spec.h loop) of a kernel; its depth adjustment
/// is KernelParams::depth_adjust[name].
struct LoopFitRecord {
  int samples = 0;      ///< loop observations used (one per sample containing the loop)
  int model_ii = 1;     ///< II derived from the specification at the fit's lanes, cycles
  int model_depth = 1;  ///< model depth (Σ chain latencies) at the fit's lanes, cycles
  std::optional<int> report_ii;        ///< PipelineII when every observation agrees
  std::optional<double> report_depth;  ///< mean reported PipelineDepth, cycles
  double max_abs_residual_cycles = 0;  ///< |calibrated − reported loop latency| over samples
};

/// The fit of one kernel.
struct KernelFitRecord {
  std::string module;      ///< HLS module name the reports showed
  int lanes = 1;           ///< lanes of the kernel's unit in the fitting arch
  KernelParams params;     ///< cycles: per-loop depth adjustments and the overhead
  std::map<std::string, LoopFitRecord> loops;  ///< by loop class; keys = params.depth_adjust keys
  int samples = 0;         ///< module latencies used (one per report and bound)
  double max_abs_residual_cycles = 0;  ///< |calibrated − reported module latency|
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
  /// Set when a report's estimated clock period exceeds the target (timing not met): the
  /// largest estimated period, ns; apply_calibration runs the arch at 1000 / this MHz.
  std::optional<double> achievable_clock_ns;
  std::vector<std::string> notes;  ///< provenance notes (e.g. why the achievable clock)
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
/// unknown keys, wrong types, unknown kernel or loop names, a non-positive clock, an
/// achievable clock below the target, a depth adjustment that makes a loop's depth
/// (model_depth + depth_adjust) less than 1 cycle, negative power coefficients, a
/// version other than 2, or a kernel with the old fitted "ii": the II is derived from
/// the kernel specification, hls/include/kernel_spec.h, and the operator latencies).
Calibration parse_calibration(const Json& doc, const std::string& file);
/// Loads a calibration file (InputError when unreadable, ConfigError when invalid).
Calibration load_calibration(const std::string& path);
/// Writes `c` to `path` with write_file_atomic.
void write_calibration(const std::string& path, const Calibration& c);

/// Throws InputError when `c` was made for another part than `device.part` or another
/// clock than `arch.clock_mhz` (periods more than 0.01 ns apart), naming both.
void check_calibration_matches(const Calibration& c, const ArchSpec& arch, const DeviceSpec& device);

/// The clock, MHz, a design calibrated by `c` runs at when its arch asks for `arch_mhz`:
/// the achievable clock (1000 / achievable_clock_ns) when timing was not met, else `arch_mhz`.
double calibrated_clock_mhz(const Calibration& c, double arch_mhz);

/// check_calibration_matches, then sets arch.calibration, lowers arch.clock_mhz to the
/// achievable clock when the calibration has one (timing not met), and replaces the power
/// coefficients of `device` that the calibration fitted (device.power.source notes it).
void apply_calibration(const Calibration& c, ArchSpec& arch, DeviceSpec& device);

}  // namespace ttsim
