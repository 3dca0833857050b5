// `ttsim calibrate --reports DIR --arch A --device D --model M --out calib.json`: fits
// the simulator's kernel latency parameters (a depth adjustment per loop class and a
// per-invocation overhead per kernel; hls/calibration/kernel_fit.h — the II of every
// loop stays the one derived from hls/include/kernel_spec.h) from the csynth reports of
// the ttsim_<op> kernel modules under DIR, reads operator latencies from their BindNodes, fits the
// power coefficients from report_power / report_utilization pairs when present, and
// writes a calibration file (hw/calibration.h) with its provenance.

#include <iostream>
#include <map>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/output_files.h"
#include "core/errors.h"
#include "hls/calibration/kernel_fit.h"
#include "hls/calibration/power_fit.h"
#include "hls/calibration/report_inventory.h"
#include "hls/reports/report_checks.h"
#include "hw/loop_nest.h"
#include "hls/reports/report_set.h"
#include "models/model_spec.h"
#include "models/training_graph.h"
#include "sim/step_sim.h"
#include "hw/arch_spec.h"
#include "hw/calibration.h"
#include "hw/device_spec.h"
#include "hls/calibration/calibration_report.h"

namespace ttsim::cli {
namespace {

using namespace ttsim::hls;

/// The options of `calibrate`.
struct CalibrateOptions {
  std::string dir, arch_path, device_path, model_path, out;
  std::vector<std::string> explicit_power;
  std::vector<std::string> keep;
};

/// Parses `args` into `o`; false when --help was given (usage printed). Throws InputError
/// for a bad or missing option.
bool parse_calibrate_options(const std::vector<std::string>& args, CalibrateOptions& o) {
  po::options_description options("options");
  options.add_options()
      ("reports", po::value<std::string>(&o.dir)->required(),
       "folder searched recursively for *csynth.xml, *power*.rpt and *utilization*.rpt")
      ("arch", po::value<std::string>(&o.arch_path)->required(), "architecture config (clock, unit kinds)")
      ("device", po::value<std::string>(&o.device_path)->required(),
       "device config (part; operator latencies where the reports have no BindNodes)")
      ("model", po::value<std::string>(&o.model_path)->required(), "model config (which kernels a step uses)")
      ("out", po::value<std::string>(&o.out)->required(), "calibration file to write (configs/calibration/*.json)")
      ("power", po::value<std::vector<std::string>>(&o.explicit_power)->composing(),
       "a report_power file to fit power from even outside the design's report tree (repeatable; the "
       "*utilization*.rpt beside it gives the resources). Without it, only report_power files in the tree of "
       "a ttsim csynth report under --reports are used")
      ("keep", po::value<std::vector<std::string>>(&o.keep)->composing(),
       "a csynth report under --reports to fit although it is flagged (another design's top, an identity problem, "
       "figures that contradict each other, another part than --device or another target clock than --arch; "
       "repeatable); the report_power of its build is then fitted too. Without it such reports are listed as "
       "rejected, not fitted");
  po::variables_map vm;
  return parse_options("calibrate", "--reports DIR --arch A --device D --model M --out calib.json [--power FILE]... [--keep FILE]...",
                       options, {}, args, vm);
}

/// The power coefficients fitted from the selected report_power files, or none when
/// there are none. Throws InputError when a report is of another part than `device`'s.
std::optional<PowerFitRecord> fit_power_reports(const PowerSelection& power, const DeviceSpec& device,
                                                const std::string& device_path) {
  if (power.pairs.power.empty()) return std::nullopt;
  const std::vector<PowerSample> ps = power_samples(power.pairs);
  for (const auto& p : ps) {
    if (p.device != device.part) {
      throw InputError(fmt::format("{}: device {} differs from device {} ({}) part {}", p.power_source, p.device,
                                   device.name, device_path, device.part));
    }
  }
  return fit_power(ps);
}

int run_calibrate(const std::vector<std::string>& args) {
  CalibrateOptions o;
  if (!parse_calibrate_options(args, o)) return 0;
  refuse_clashing_paths({{"--out", o.out}},
                        {{"--arch", o.arch_path}, {"--device", o.device_path}, {"--model", o.model_path}});
  refuse_output_inside({"--out", o.out}, {"--reports", o.dir});
  check_output_writable({"--out", o.out});
  const ArchSpec arch = load_arch_spec(o.arch_path);
  const DeviceSpec device = load_device_spec(o.device_path);
  const ModelSpec model = load_model_spec(o.model_path);
  const ReportSet reports = read_reports(o.dir);
  const KernelSampleSet set = collect_kernel_samples(reports.csynth, reports.cosim, screening_options(o.keep, arch, device));
  const PowerSelection power = select_power_reports(reports, o.dir, o.explicit_power, device.part, set.refused);
  std::cout << format_inventory(report_inventory(reports, set, &power), o.dir) << timing_warnings(reports.csynth);
  // The model's training step: its calls decide each module instance's II (the emitted
  // PIPELINE II), which the fit prices every loop at.
  const TaskGraph step = build_training_graph(model, graph_options(arch, 0));
  Calibration c = fit_calibration(set, arch, device, model.name, &step);
  for (const auto& n : c.notes) std::cout << "note: " << n << "\n";
  if (auto p = fit_power_reports(power, device, o.device_path)) c.power = std::move(p);
  // Kernels of the model's training step, and whether the calibration covers them.
  std::map<TaskOp, int> tasks;
  for (const Task& t : step.tasks) ++tasks[t.op];
  std::cout << calibration_table(c, o.dir, tasks) << calibration_coverage(c, tasks, model.name, arch.name)
            << skipped_samples(set) << power_fit_line(c, !power.rejected.empty());
  c.file = o.out;
  write_calibration(o.out, c);
  std::cout << "wrote " << o.out << "\n";
  return 0;
}

const CommandRegistration kRegistration{
    {"calibrate", "fit kernel latency and power parameters from synthesis reports", run_calibrate}};

}  // namespace
}  // namespace ttsim::cli
