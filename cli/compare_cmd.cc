// `ttsim compare --reports DIR --arch A --device D [--calibration C] [--model M]
// [--json OUT]`: per kernel, the csynth-reported latency of every ttsim_<op> module sample
// under DIR beside the simulator's latency for the same trip counts, uncalibrated (arch
// and device defaults) and calibrated (C, or a fit of DIR's reports made now), with the
// error; per loop class (kernel_spec.h loop) the II derived from the specification vs
// the reported PipelineII and the model depth vs the reported PipelineDepth, with the
// errors, loops whose reported II differs from the derived II flagged; reported vs
// modelled resources; the MAPE of both and the leave-one-out error of the calibration
// (fit on all reports of a kernel but one, predict the one left out).

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/output_files.h"
#include "core/atomic_file.h"
#include "core/errors.h"
#include "hls/calibration/kernel_fit.h"
#include "hls/calibration/report_inventory.h"
#include "hls/reports/report_checks.h"
#include "hls/reports/report_set.h"
#include "models/model_spec.h"
#include "models/training_graph.h"
#include "hw/arch_spec.h"
#include "hw/calibration.h"
#include "hw/device_spec.h"
#include "hw/kernel_latency.h"
#include "sim/step_sim.h"
#include "hls/calibration/calibration_report.h"
#include "hls/calibration/kernel_compare.h"

namespace ttsim::cli {
namespace {

using namespace ttsim::hls;

std::string num(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "-"; }
Json jnum(const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

/// The options of `compare`.
struct CompareOptions {
  std::string dir, arch_path, device_path, calibration_path, model_path, json_out;
  std::vector<std::string> keep;
};

/// Parses `args` into `o`; false when --help was given (usage printed). Throws InputError
/// for a bad or missing option.
bool parse_compare_options(const std::vector<std::string>& args, CompareOptions& o) {
  po::options_description options("options");
  options.add_options()
      ("reports", po::value<std::string>(&o.dir)->required(), "folder searched recursively for *csynth.xml")
      ("arch", po::value<std::string>(&o.arch_path)->required(), "architecture config (lanes, clock, uncalibrated overhead)")
      ("device", po::value<std::string>(&o.device_path)->required(), "device config (operator latencies, part)")
      ("calibration", po::value<std::string>(&o.calibration_path),
       "calibration file; without it the reports under DIR are fitted now (not saved)")
      ("model", po::value<std::string>(&o.model_path),
       "model config: compares a ttsim_train_step report with the simulated design, and prices every loop at its instance's II over the step's calls")
      ("json", po::value<std::string>(&o.json_out), "write the table, MAPE and leave-one-out results here")
      ("keep", po::value<std::vector<std::string>>(&o.keep)->composing(),
       "a csynth report under --reports to compare although it is flagged (another design's top, an identity "
       "problem, figures that contradict each other, another part than --device or another target clock than "
       "--arch; repeatable)");
  po::variables_map vm;
  return parse_options("compare", "--reports DIR --arch A --device D [--calibration C] [--model M] [--json OUT] [--keep FILE]...",
                       options, {}, args, vm);
}

/// The calibration compared against: the file given, else a fit of the reports made now
/// (none when that fit fails and some sample exists), applied to copies of arch and device.
struct CalibrationChoice {
  std::optional<Calibration> cal;
  std::string label;
  ArchSpec arch;
  DeviceSpec device;
};

CalibrationChoice choose_calibration(const CompareOptions& o, const KernelSampleSet& set, const ArchSpec& arch,
                                     const DeviceSpec& device) {
  CalibrationChoice c{std::nullopt, "", arch, device};
  if (!o.calibration_path.empty()) {
    c.cal = load_calibration(o.calibration_path);
    apply_calibration(*c.cal, c.arch, c.device);
    c.label = o.calibration_path;
    return c;
  }
  try {
    c.cal = fit_calibration(set, arch, device, o.model_path);
    c.cal->file = "fit of " + o.dir;
    apply_calibration(*c.cal, c.arch, c.device);
    c.label = "fitted now from the reports under " + o.dir + " (not saved)";
  } catch (const InputError& e) {
    if (set.samples.empty()) throw;
    c.label = std::string("none: ") + e.what();
  }
  return c;
}

/// The latency models the samples are priced with (ComparisonModels) and the design's
/// step when a model is given.
struct LatencyModels {
  KernelLatencyModel uncal, spec;
  std::optional<KernelLatencyModel> cal;
  std::optional<TaskGraph> step;
  ComparisonModels view() const { return {&spec, &uncal, cal ? &*cal : nullptr}; }
};

LatencyModels latency_models(const ArchSpec& arch, const DeviceSpec& device, const CalibrationChoice& c,
                             const std::string& model_path) {
  const KernelLatencyModel uncal(arch, device);
  // The specification's II and depth at the operator latencies the reports' BindNodes
  // give (the calibration's), else the device's: what the reported II and depth are
  // compared with.
  ArchSpec arch_spec_only = arch;
  if (c.cal) {
    auto k = std::make_shared<KernelCalibration>();
    k->name = "operator latencies of " + c.label;
    k->op_latency = c.cal->op_latency;
    arch_spec_only.calibration = k;
  }
  KernelLatencyModel spec(arch_spec_only, device);
  std::optional<KernelLatencyModel> cal =
      c.cal ? std::optional<KernelLatencyModel>(KernelLatencyModel(c.arch, c.device)) : std::nullopt;
  LatencyModels m{uncal, spec, cal, std::nullopt};
  // With the design's model, every loop is priced at its instance's II (the largest over
  // the step's calls, as `simulate` and the emitted PIPELINE II have it); without it, at the
  // II of a call whose arguments sit in distinct memories.
  if (!model_path.empty()) {
    m.step = build_training_graph(load_model_spec(model_path), graph_options(arch, 0));
    m.uncal.bind_instances(*m.step);
    m.spec.bind_instances(*m.step);
    if (m.cal) m.cal->bind_instances(*m.step);
  }
  return m;
}

/// Compares every kernel, printing each as it is compared; their JSON.
Json compare_kernels(const KernelSampleSet& set, const ArchSpec& arch, const DeviceSpec& device,
                     const LatencyModels& models, std::vector<KernelComparison>& kernels) {
  std::map<TaskOp, std::vector<const KernelSample*>> by_op;
  for (const auto& s : set.samples) by_op[s.op].push_back(&s);
  Json jk = Json::array();
  for (const auto& [op, samples] : by_op) {
    kernels.push_back(compare_kernel(op, samples, arch, device, models.view()));
    std::cout << format_kernel_comparison(kernels.back());
    jk.push_back(kernel_comparison_json(kernels.back()));
  }
  return jk;
}

/// The whole design, when its top (ttsim_train_step) was synthesized: its reported latency
/// and resources beside the simulated step's; printed, and its JSON (null without a top).
Json compare_design(const ReportSet& reports, const CompareOptions& o, const CalibrationChoice& c,
                    const ArchSpec& arch, const DeviceSpec& device) {
  const CsynthReport* top = nullptr;
  for (const auto& r : reports.csynth) {
    if (r.top == "ttsim_train_step") top = &r;
  }
  if (!top) {
    std::cout << "\ndesign: no ttsim_train_step report under " << o.dir << "; design resources not compared\n";
    return nullptr;
  }
  const StepResult step = simulate_step(load_model_spec(o.model_path), c.arch, c.device);
  const std::int64_t bram18 = 2 * step.banks.bram36_blocks, uram = step.banks.uram_blocks,
                     dsp = arch_dsp(arch, device);
  std::cout << fmt::format("\ndesign ttsim_train_step ({}): latency report {} .. {}, simulated step {} cycles; "
                           "BRAM_18K {} / {}, URAM {} / {}, DSP {} / {} (report / model)\n",
                           top->source, top->latency_best.str(), top->latency_worst.str(),
                           step.run.schedule.makespan, num(top->resources.bram_18k), bram18,
                           num(top->resources.uram), uram, num(top->resources.dsp), dsp);
  return {{"report", top->source},
          {"report_latency_best", jnum(top->latency_best.min)},
          {"report_latency_worst", jnum(top->latency_worst.max)},
          {"simulated_step_cycles", step.run.schedule.makespan},
          {"resources_report", {{"BRAM_18K", jnum(top->resources.bram_18k)},
                                {"URAM", jnum(top->resources.uram)},
                                {"DSP", jnum(top->resources.dsp)}}},
          {"resources_model", {{"BRAM_18K", bram18}, {"URAM", uram}, {"DSP", dsp}}}};
}

int run_compare(const std::vector<std::string>& args) {
  CompareOptions o;
  if (!parse_compare_options(args, o)) return 0;
  refuse_output_inside({"--json", o.json_out}, {"--reports", o.dir});
  check_output_writable({"--json", o.json_out});
  const ArchSpec arch = load_arch_spec(o.arch_path);
  const DeviceSpec device = load_device_spec(o.device_path);
  const ReportSet reports = read_reports(o.dir);
  const KernelSampleSet set = collect_kernel_samples(reports.csynth, reports.cosim, screening_options(o.keep, arch, device));
  const std::vector<FileUse> files = report_inventory(reports, set, nullptr);
  std::cout << format_inventory(files, o.dir) << timing_warnings(reports.csynth);
  const CalibrationChoice c = choose_calibration(o, set, arch, device);
  if (set.samples.empty()) {
    throw InputError(o.dir + ": no csynth module maps to a simulator kernel (ttsim_<op>, hls/kernels/modules.h)");
  }
  const LatencyModels models = latency_models(arch, device, c, o.model_path);
  std::cout << fmt::format("compare: {} kernel sample{} from {} csynth file{} under {}\n", set.samples.size(),
                           set.samples.size() == 1 ? "" : "s", reports.csynth.size(),
                           reports.csynth.size() == 1 ? "" : "s", o.dir)
            << fmt::format("uncalibrated: defaults of arch {} and device {}; calibrated: {}\n", arch.name,
                           device.name, c.label);
  std::vector<KernelComparison> kernels;
  Json j{{"reports_dir", o.dir}, {"files", inventory_json(files)},
         {"timing_violations", timing_violations_json(reports.csynth)}, {"arch", arch.name},
         {"device", device.name}, {"calibration", c.label}};
  j["kernels"] = compare_kernels(set, arch, device, models, kernels);
  const SampleMape mape = sample_mape(kernels);
  std::cout << format_sample_mape(mape);
  j["mape_uncalibrated_pct"] = mape.uncalibrated;
  j["mape_calibrated_pct"] = mape.calibrated ? Json(*mape.calibrated) : Json(nullptr);
  // Leave-one-out: always refits from the reports under DIR (a property of the procedure).
  const std::map<std::string, int> ops = c.cal ? c.cal->op_latency : bindnode_op_latencies(set.samples, device);
  const std::vector<LooResult> loo = leave_one_out(set, arch, device, ops, models.step ? &*models.step : nullptr);
  std::cout << format_leave_one_out(loo) << skipped_samples(set);
  j["leave_one_out"] = leave_one_out_json(loo);
  if (!o.model_path.empty()) j["design"] = compare_design(reports, o, c, arch, device);
  if (!o.json_out.empty()) write_file_atomic(o.json_out, j.dump(2) + "\n");
  return 0;
}

const CommandRegistration kRegistration{
    {"compare", "simulated vs synthesis-report kernel latency and resources, with the calibration's error",
     run_compare}};

}  // namespace
}  // namespace ttsim::cli
