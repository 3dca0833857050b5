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
#include "hw/arch_spec.h"
#include "hw/calibration.h"
#include "hw/device_spec.h"

namespace ttsim::cli {
namespace {

using namespace ttsim::hls;

std::string opt(const std::optional<double>& v, const char* f = "{:.4g}") {
  return v ? fmt::format(fmt::runtime(f), *v) : std::string("not fitted");
}

int run_calibrate(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string dir, arch_path, device_path, model_path, out;
  std::vector<std::string> explicit_power;
  options.add_options()
      ("reports", po::value<std::string>(&dir)->required(),
       "folder searched recursively for *csynth.xml, *power*.rpt and *utilization*.rpt")
      ("arch", po::value<std::string>(&arch_path)->required(), "architecture config (clock, unit kinds)")
      ("device", po::value<std::string>(&device_path)->required(),
       "device config (part; operator latencies where the reports have no BindNodes)")
      ("model", po::value<std::string>(&model_path)->required(), "model config (which kernels a step uses)")
      ("out", po::value<std::string>(&out)->required(), "calibration file to write (configs/calibration/*.json)")
      ("power", po::value<std::vector<std::string>>(&explicit_power)->composing(),
       "a report_power file to fit power from even outside the design's report tree (repeatable; the "
       "*utilization*.rpt beside it gives the resources). Without it, only report_power files in the tree of "
       "a ttsim csynth report under --reports are used");
  po::variables_map vm;
  if (!parse_options("calibrate", "--reports DIR --arch A --device D --model M --out calib.json [--power FILE]...",
                     options, {},
                     args, vm)) {
    return 0;
  }
  refuse_output_inside({"--out", out}, {"--reports", dir});
  check_output_writable({"--out", out});
  const ArchSpec arch = load_arch_spec(arch_path);
  const DeviceSpec device = load_device_spec(device_path);
  const ModelSpec model = load_model_spec(model_path);
  const ReportSet reports = read_reports(dir);
  const KernelSampleSet set = collect_kernel_samples(reports.csynth, reports.cosim);
  const PowerSelection power = select_power_reports(reports, dir, explicit_power);
  std::cout << format_inventory(report_inventory(reports, set, &power), dir);
  for (const auto& r : reports.csynth) {
    if (auto v = timing_violation(r)) std::cout << "warning: " << v->message() << "\n";
  }
  // The model's training step: its calls decide each module instance's II (the emitted
  // PIPELINE II), which the fit prices every loop at.
  GraphOptions g;
  g.flow_by_kind = arch.flow_by_kind;
  const TaskGraph step = build_training_graph(model, g);
  Calibration c = fit_calibration(set, arch, device, model.name, &step);
  for (const auto& n : c.notes) std::cout << "note: " << n << "\n";
  if (!power.pairs.power.empty()) {
    const std::vector<PowerSample> ps = power_samples(power.pairs);
    for (const auto& p : ps) {
      if (p.device != device.part) {
        throw InputError(fmt::format("{}: device {} differs from device {} ({}) part {}", p.power_source,
                                     p.device, device.name, device_path, device.part));
      }
    }
    c.power = fit_power(ps);
  }

  // Kernels of the model's training step, and whether the calibration covers them.
  std::map<TaskOp, int> tasks;
  for (const Task& t : step.tasks) ++tasks[t.op];

  std::cout << fmt::format("calibration from {} ({} csynth report{}, tool {}, part {}, target clock {} ns = {:.1f} MHz)\n",
                           dir, c.reports.size(), c.reports.size() == 1 ? "" : "s", c.tool_version, c.part,
                           c.target_clock_ns, c.clock_mhz());
  std::cout << "\nkernel          module                  lanes reports samples   overhead  max |resid|  model tasks\n";
  for (const auto& [op, r] : c.kernels) {
    std::cout << fmt::format("{:<15} {:<23} {:>5} {:>7} {:>7} {:>10.3f} {:>12.3f} {:>12}\n", to_string(op), r.module,
                             r.lanes, r.reports.size(), r.samples, r.params.overhead, r.max_abs_residual_cycles,
                             tasks.count(op) ? tasks[op] : 0);
    std::cout << "  loop class              samples  II model  II report  depth model  depth report  depth adj  "
                 "max |resid|\n";
    for (const LoopSpec& spec : all_kernel_loops(op, 1)) {  // specification order
      if (!r.loops.count(spec.name)) continue;
      const std::string& name = spec.name;
      const LoopFitRecord& l = r.loops.at(name);
      const bool differs = l.report_ii && *l.report_ii != l.model_ii;
      std::cout << fmt::format("  {:<23} {:>7} {:>9} {:>10} {:>12} {:>13} {:>10.3f} {:>12.3f}{}\n", name, l.samples,
                               l.model_ii, l.report_ii ? std::to_string(*l.report_ii) : "-", l.model_depth,
                               l.report_depth ? fmt::format("{:.2f}", *l.report_depth) : "-",
                               r.params.depth_adjust.at(name), l.max_abs_residual_cycles,
                               differs ? "  II differs from the derived II" : "");
    }
  }
  std::string uncovered;
  for (const auto& [op, n] : tasks) {
    if (!c.kernels.count(op)) uncovered += fmt::format("{}{} ({} tasks)", uncovered.empty() ? "" : ", ", to_string(op), n);
  }
  std::cout << "kernels of " << model.name << " without reports (keep the defaults of " << arch.name << "): "
            << (uncovered.empty() ? "none" : uncovered) << "\n";
  std::cout << "operator latencies from BindNodes: ";
  if (c.op_latency.empty()) std::cout << "none (device file values apply)";
  for (const auto& [op, cyc] : c.op_latency) std::cout << op << " " << cyc << " cycles  ";
  std::cout << "\n";
  for (const auto& s : set.skipped) std::cout << "skipped " << s.module << " in " << s.source << ": " << s.reason << "\n";
  if (c.power) {
    const auto& p = *c.power;
    std::cout << fmt::format(
        "power ({} report_power file{}): static {} W; per MHz: DSP {}, BRAM36 {}, URAM {}; per kLUT and MHz: "
        "logic {}, clock {}\n",
        p.reports.size(), p.reports.size() == 1 ? "" : "s", opt(p.static_watts), opt(p.dsp_watts_per_mhz),
        opt(p.bram36_watts_per_mhz), opt(p.uram_watts_per_mhz), opt(p.logic_watts_per_kilolut_mhz),
        opt(p.clock_watts_per_kilolut_mhz));
  } else {
    std::cout << "power: no report_power file of this design" << (power.rejected.empty() ? "" : " (others rejected, above)")
              << "; the device file's coefficients stay in use\n";
  }
  c.file = out;
  write_calibration(out, c);
  std::cout << "wrote " << out << "\n";
  return 0;
}

const CommandRegistration kRegistration{
    {"calibrate", "fit kernel latency and power parameters from synthesis reports", run_calibrate}};

}  // namespace
}  // namespace ttsim::cli
