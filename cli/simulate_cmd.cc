// `ttsim simulate`: one training step of a model on an accelerator architecture and a
// device, executed by the SystemC engine on the machine the emitted build is
// (evaluate_design); step, stage, layer and kernel cycles, the kernel instances, every
// on-chip array with its storage, partition, blocks and buffers, occupancy, fit, power and
// the epoch latency over a dataset length histogram. With
// --loops, a table of every kernel loop the step runs (hls/include/kernel_spec.h loop
// classes): tasks, total trips, the derived II with its RecMII / ResMII bounds, depth and
// cycles (hw/kernel_latency.h).

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/output_files.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "machine/machine.h"
#include "sim/design_eval.h"
#include "models/dataset/dataset_lengths.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"
#include "hw/calibration.h"
#include "sim/run_defaults.h"
#include "hw/device_spec.h"
#include "sim/epoch.h"
#include "hw/kernel_latency.h"
#include "hw/fpga_power.h"
#include "sim/step_power.h"
#include "sim/step_report.h"
#include "sim/step_sim.h"
#include "sim/trace.h"
#include "machine/machine_report.h"
#include "sim/design_report.h"
#include "sim/loop_report.h"
#include "sim/step_tables.h"

namespace ttsim::cli {
namespace {

/// The options of `simulate`.
struct SimulateOptions {
  std::string model_path, arch_path, device_path, lengths_path, calibration, json_out, trace_out;
  std::string split = "train";
  bool loops = false;
};

/// Parses `args` into `o`; false when --help was given (usage printed). Throws InputError
/// for a bad or missing option.
bool parse_simulate_options(const std::vector<std::string>& args, SimulateOptions& o) {
  po::options_description options("options");
  options.add_options()
      ("model", po::value<std::string>(&o.model_path)->required(), "model config (configs/models/*.json)")
      ("arch", po::value<std::string>(&o.arch_path)->required(), "architecture config (configs/arch/*.json)")
      ("device", po::value<std::string>(&o.device_path)->required(), "device config (configs/devices/*.json)")
      ("dataset-lengths", po::value<std::string>(&o.lengths_path),
       "token-length histogram (configs/datasets/*_lengths.json); enables the epoch latency")
      ("split", po::value<std::string>(&o.split)->default_value("train"), "split of the histogram to sum over")
      ("calibration", po::value<std::string>(&o.calibration),
       "calibration file from `ttsim calibrate` (configs/calibration/*.json): fitted per-loop depth "
       "adjustments and kernel overheads, operator latencies and power coefficients (the II stays the one "
       "derived from the kernel specification); refused for another part or clock")
      ("json", po::value<std::string>(&o.json_out), "write the full result as JSON here")
      ("trace", po::value<std::string>(&o.trace_out), "write a Chrome/Perfetto trace-event JSON here")
      ("loops", po::bool_switch(&o.loops),
       "print (and put in --json as \"loops\") every kernel loop the step runs: tasks, trips, II, RecMII, "
       "ResMII, depth, cycles");
  po::variables_map vm;
  return parse_options("simulate",
                       "--model M --arch A --device D [--dataset-lengths F] [--json OUT] [--trace T] [--loops]",
                       options, {}, args, vm);
}

/// What the run's figures rest on: the calibration line and why the clock is not the arch
/// file's ("" when it is).
struct CalibrationUse {
  std::string label, clock_note;
};

/// Applies the calibration file `path` (none when empty) to `arch` and `device`. Throws
/// InputError for a bad file or one made for another part or clock.
CalibrationUse apply_calibration_file(const std::string& path, ArchSpec& arch, DeviceSpec& device) {
  CalibrationUse use{fmt::format("uncalibrated defaults from {}/{}", arch.name, device.name), ""};
  if (path.empty()) return use;
  const Calibration cal = load_calibration(path);
  const double arch_mhz = arch.clock_mhz;
  apply_calibration(cal, arch, device);  // refuses another part or clock
  if (arch.clock_mhz != arch_mhz) use.clock_note = " (achievable clock from calibration: timing not met)";
  std::string kernels;
  for (const auto& [op, k] : cal.kernels) kernels += (kernels.empty() ? "" : ", ") + std::string(to_string(op));
  use.label = fmt::format("{} (part {}, {} ns, tool {}; kernels {}; others: defaults from {}/{}{})", path, cal.part,
                          cal.target_clock_ns, cal.tool_version, kernels, arch.name, device.name,
                          cal.power ? "; power coefficients fitted" : "");
  return use;
}

int run_simulate(const std::vector<std::string>& args) {
  SimulateOptions o;
  if (!parse_simulate_options(args, o)) return 0;
  // Outputs: distinct from each other and from every input, folders writable, before any work.
  const std::vector<NamedPath> outputs = {{"--json", o.json_out}, {"--trace", o.trace_out}};
  refuse_clashing_paths(outputs, {{"--model", o.model_path}, {"--arch", o.arch_path}, {"--device", o.device_path},
                                  {"--dataset-lengths", o.lengths_path}, {"--calibration", o.calibration}});
  for (const auto& out : outputs) check_output_writable(out);
  const ModelSpec model = load_model_spec(o.model_path);
  ArchSpec arch = load_arch_spec(o.arch_path);
  DeviceSpec device = load_device_spec(o.device_path);
  const CalibrationUse cal = apply_calibration_file(o.calibration, arch, device);
  check_clock_within_device(arch.clock_mhz, device, o.arch_path + ": /clock_mhz", o.device_path);
  std::optional<dataset::DatasetLengths> lengths;
  if (!o.lengths_path.empty()) lengths = dataset::load_dataset_lengths(o.lengths_path);
  // One evaluation (sim/design_eval.h), as explore's SystemC fidelity and baseline run it:
  // refused before any simulation when the emitted top cannot carry out the arch
  // (ConfigError at its pointer); a design whose instances or memories exceed the device
  // exits 2 naming the resource.
  const auto eval = evaluate_design(model, arch, device, lengths ? &lengths->epoch_split(o.split) : nullptr);
  require_fits(*eval, model, arch, device, o.device_path);
  const StepResult& r = eval->step;
  Json j = design_json(*eval, model, arch, device, o.split);
  j["calibration"] = o.calibration.empty() ? Json(nullptr) : Json(o.calibration);
  j["calibration_used"] = cal.label;
  j["defaults_used"] = run_defaults_json(device, arch.clock_mhz, arch.calibration.get());
  std::cout << "calibration: " << cal.label << "\n"
            << design_summary(*eval, model, arch, device, o.split, cal.clock_note) << "\n"
            << machine::instances_table(eval->machine()) << "\n"
            << machine::memories_table(eval->machine(), r.graph()) << "\n"
            << kernel_table(r, arch) << "\n"
            << layer_table(r, arch) << "\n"
            << product_table(r, arch);
  if (o.loops) {
    const std::vector<LoopRow> loops = step_loops(r.graph(), arch, device);
    std::cout << "\n" << loops_table(loops);
    j["loops"] = loops_json(loops);
  }
  // Every output rendered first, then written all or none.
  std::vector<std::pair<std::string, std::string>> files;
  if (!o.json_out.empty()) files.emplace_back(o.json_out, j.dump(2) + "\n");
  if (!o.trace_out.empty()) files.emplace_back(o.trace_out, chrome_trace_json(r, arch));
  write_files_atomic(files);
  return 0;
}

const CommandRegistration kRegistration{
    {"simulate", "simulate one training step (SystemC) and the epoch of a design", run_simulate}};

}  // namespace
}  // namespace ttsim::cli
