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

namespace ttsim::cli {
namespace {

using namespace ttsim::hls;

double err_pct(double predicted, double reported) {
  return reported == 0 ? 0 : 100.0 * (predicted - reported) / reported;
}

std::string num(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "-"; }
Json jnum(const std::optional<std::int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

int run_compare(const std::vector<std::string>& args) {
  po::options_description options("options");
  std::string dir, arch_path, device_path, calibration_path, model_path, json_out;
  options.add_options()
      ("reports", po::value<std::string>(&dir)->required(), "folder searched recursively for *csynth.xml")
      ("arch", po::value<std::string>(&arch_path)->required(), "architecture config (lanes, clock, uncalibrated overhead)")
      ("device", po::value<std::string>(&device_path)->required(), "device config (operator latencies, part)")
      ("calibration", po::value<std::string>(&calibration_path),
       "calibration file; without it the reports under DIR are fitted now (not saved)")
      ("model", po::value<std::string>(&model_path),
       "model config: compares a ttsim_train_step report with the simulated design, and prices every loop at its instance's II over the step's calls")
      ("json", po::value<std::string>(&json_out), "write the table, MAPE and leave-one-out results here");
  po::variables_map vm;
  if (!parse_options("compare", "--reports DIR --arch A --device D [--calibration C] [--model M] [--json OUT]",
                     options, {}, args, vm)) {
    return 0;
  }
  refuse_output_inside({"--json", json_out}, {"--reports", dir});
  check_output_writable({"--json", json_out});
  const ArchSpec arch = load_arch_spec(arch_path);
  const DeviceSpec device = load_device_spec(device_path);
  const ReportSet reports = read_reports(dir);
  const KernelSampleSet set = collect_kernel_samples(reports.csynth, reports.cosim);
  const std::vector<FileUse> files = report_inventory(reports, set, nullptr);
  std::cout << format_inventory(files, dir);
  for (const auto& r : reports.csynth) {
    if (auto v = timing_violation(r)) std::cout << "warning: " << v->message() << "\n";
  }

  ArchSpec arch_cal = arch;
  DeviceSpec device_cal = device;
  std::optional<Calibration> cal;
  std::string cal_label, cal_failure;
  if (!calibration_path.empty()) {
    cal = load_calibration(calibration_path);
    apply_calibration(*cal, arch_cal, device_cal);
    cal_label = calibration_path;
  } else {
    try {
      cal = fit_calibration(set, arch, device, model_path);
      cal->file = "fit of " + dir;
      apply_calibration(*cal, arch_cal, device_cal);
      cal_label = "fitted now from the reports under " + dir + " (not saved)";
    } catch (const InputError& e) {
      if (set.samples.empty()) throw;
      cal_failure = e.what();
      cal_label = "none: " + cal_failure;
    }
  }
  if (set.samples.empty()) {
    throw InputError(dir + ": no csynth module maps to a simulator kernel (ttsim_<op>, hls/kernels/modules.h)");
  }
  const KernelLatencyModel uncal(arch, device);
  // The specification's II and depth at the operator latencies the reports' BindNodes
  // give (the calibration's), else the device's: what the reported II and depth are
  // compared with.
  ArchSpec arch_spec_only = arch;
  if (cal) {
    auto k = std::make_shared<KernelCalibration>();
    k->name = "operator latencies of " + cal_label;
    k->op_latency = cal->op_latency;
    arch_spec_only.calibration = k;
  }
  KernelLatencyModel spec_model(arch_spec_only, device);
  std::optional<KernelLatencyModel> calm =
      cal ? std::optional<KernelLatencyModel>(KernelLatencyModel(arch_cal, device_cal)) : std::nullopt;
  // With the design's model, every loop is priced at its instance's II (the largest over
  // the step's calls, as `simulate` and the emitted PIPELINE II have it); without it, at the
  // II of a call whose arguments sit in distinct memories.
  KernelLatencyModel uncal_bound = uncal;
  std::optional<TaskGraph> step;
  if (!model_path.empty()) {
    step = build_training_graph(load_model_spec(model_path), graph_options(arch, 0));
    uncal_bound.bind_instances(*step);
    spec_model.bind_instances(*step);
    if (calm) calm->bind_instances(*step);
  }

  std::cout << fmt::format("compare: {} kernel sample{} from {} csynth file{} under {}\n", set.samples.size(),
                           set.samples.size() == 1 ? "" : "s", reports.csynth.size(),
                           reports.csynth.size() == 1 ? "" : "s", dir);
  std::cout << fmt::format("uncalibrated: defaults of arch {} and device {}; calibrated: {}\n", arch.name,
                           device.name, cal_label);
  Json jk = Json::array();
  double ape_u = 0, ape_c = 0;
  int n = 0;
  std::map<TaskOp, std::vector<const KernelSample*>> by_op;
  for (const auto& s : set.samples) by_op[s.op].push_back(&s);
  for (const auto& [op, samples] : by_op) {
    const UnitKind unit = unit_of(op);
    const std::int64_t model_dsp = kernel_dsp(op, arch.unit(unit).lanes, device);
    std::cout << fmt::format("\nkernel {} (unit {}, {} lanes)\n", to_string(op), to_string(unit), arch.unit(unit).lanes);
    std::cout << "  report                                  bound   report best  report worst   uncalibrated   "
                 "err %     calibrated   err %   BRAM_18K rpt/model  URAM rpt/model  DSP rpt/model\n";
    Json rows = Json::array();
    for (const KernelSample* s : samples) {
      const std::int64_t u = predict_sample(*s, uncal_bound);
      const std::optional<std::int64_t> c = calm ? std::optional<std::int64_t>(predict_sample(*s, *calm)) : std::nullopt;
      const double eu = err_pct(static_cast<double>(u), static_cast<double>(s->latency));
      const std::optional<double> ec = c ? std::optional<double>(err_pct(static_cast<double>(*c), static_cast<double>(s->latency)))
                                         : std::nullopt;
      ape_u += std::fabs(eu);
      if (ec) ape_c += std::fabs(*ec);
      ++n;
      std::string src = s->source.size() > 38 ? "…" + s->source.substr(s->source.size() - 37) : s->source;
      std::cout << fmt::format("  {:<38} {:>6} {:>13} {:>13} {:>14} {:>7.2f} {:>14} {:>7} {:>10}/{:<8} {:>6}/{:<7} {:>6}/{:<6}{}\n",
                               src, s->bound, s->latency_best.str(), s->latency_worst.str(), u, eu, num(c),
                               ec ? fmt::format("{:.2f}", *ec) : "-", num(s->resources.bram_18k), "-",
                               num(s->resources.uram), "-", num(s->resources.dsp), model_dsp,
                               s->latency_source == "cosim" ? "  (report latency = co-simulation, csynth undef)" : "");
      rows.push_back({{"report", s->source}, {"module", s->module}, {"bound", s->bound},
                      {"trips", s->trips()}, {"report_latency", s->latency},
                      {"report_latency_source", s->latency_source},
                      {"report_latency_best", jnum(s->latency_best.min)},
                      {"report_latency_worst", jnum(s->latency_worst.max)},
                      {"simulated_uncalibrated", u}, {"error_uncalibrated_pct", eu},
                      {"simulated_calibrated", jnum(c)}, {"error_calibrated_pct", ec ? Json(*ec) : Json(nullptr)},
                      {"resources_report", {{"BRAM_18K", jnum(s->resources.bram_18k)},
                                            {"URAM", jnum(s->resources.uram)},
                                            {"DSP", jnum(s->resources.dsp)}}},
                      {"resources_model", {{"BRAM_18K", nullptr}, {"URAM", nullptr}, {"DSP", model_dsp}}}});
    }
    // Per loop class: derived II and depth vs the reports'.
    std::cout << "  loop class              samples  II model  II report  II err %  depth model  depth report  "
                 "depth err %  cal depth  loop err % uncal / cal\n";
    const std::vector<LoopLatency> spec_loops = spec_model.loop_classes(unit, op);
    const std::vector<LoopLatency> uncal_loops = uncal_bound.loop_classes(unit, op);
    const std::optional<std::vector<LoopLatency>> cal_loops =
        calm ? std::optional<std::vector<LoopLatency>>(calm->loop_classes(unit, op)) : std::nullopt;
    Json jloops = Json::array();
    for (std::size_t i = 0; i < spec_loops.size(); ++i) {
      const std::string& name = spec_loops[i].name;
      int n_obs = 0, n_depth = 0;
      double depth_sum = 0, ape_loop_u = 0, ape_loop_c = 0;
      std::set<std::int64_t> iis;
      for (const KernelSample* s : samples) {
        for (const LoopObservation& o : s->loops) {
          if (o.name != name || o.trip < 1) continue;
          ++n_obs;
          if (o.ii) iis.insert(*o.ii);
          if (o.depth) {
            depth_sum += static_cast<double>(*o.depth);
            ++n_depth;
          }
          auto cycles = [&](const LoopLatency& l) { return static_cast<double>((o.trip - 1) * l.ii + l.depth); };
          ape_loop_u += std::fabs(err_pct(cycles(uncal_loops[i]), static_cast<double>(o.latency)));
          if (cal_loops) ape_loop_c += std::fabs(err_pct(cycles((*cal_loops)[i]), static_cast<double>(o.latency)));
        }
      }
      if (n_obs == 0) continue;
      const int mii = spec_loops[i].ii, mdepth = spec_loops[i].depth;
      const bool differs = std::any_of(iis.begin(), iis.end(), [&](std::int64_t v) { return v != mii; });
      std::string ii_text;
      for (auto v : iis) ii_text += (ii_text.empty() ? "" : "/") + std::to_string(v);
      const std::optional<double> ii_err =
          iis.empty() ? std::nullopt : std::optional<double>(err_pct(mii, static_cast<double>(*iis.rbegin())));
      const std::optional<double> rdepth = n_depth ? std::optional<double>(depth_sum / n_depth) : std::nullopt;
      const std::optional<double> depth_err = rdepth ? std::optional<double>(err_pct(mdepth, *rdepth)) : std::nullopt;
      const std::optional<int> cdepth = cal_loops ? std::optional<int>((*cal_loops)[i].depth) : std::nullopt;
      auto opt = [](const std::optional<double>& v, const char* f) {
        return v ? fmt::format(fmt::runtime(f), *v) : std::string("-");
      };
      std::cout << fmt::format("  {:<23} {:>7} {:>9} {:>10} {:>9} {:>12} {:>13} {:>12} {:>10} {:>9.2f} / {}{}\n", name,
                               n_obs, mii, ii_text.empty() ? "-" : ii_text, opt(ii_err, "{:.2f}"), mdepth,
                               opt(rdepth, "{:.2f}"), opt(depth_err, "{:.2f}"),
                               cdepth ? std::to_string(*cdepth) : "-", ape_loop_u / n_obs,
                               cal_loops ? fmt::format("{:.2f}", ape_loop_c / n_obs) : "-",
                               differs ? "  REPORT II DIFFERS FROM THE DERIVED II" : "");
      Json rep_ii = Json::array();
      for (auto v : iis) rep_ii.push_back(v);
      jloops.push_back({{"loop", name},
                        {"samples", n_obs},
                        {"model_ii", mii},
                        {"model_rec_mii", spec_loops[i].rec_mii},
                        {"model_res_mii", spec_loops[i].res_mii},
                        {"report_ii", rep_ii},
                        {"ii_error_pct", ii_err ? Json(*ii_err) : Json(nullptr)},
                        {"ii_differs", differs},
                        {"model_depth", mdepth},
                        {"report_depth", rdepth ? Json(*rdepth) : Json(nullptr)},
                        {"depth_error_pct", depth_err ? Json(*depth_err) : Json(nullptr)},
                        {"calibrated_depth", cdepth ? Json(*cdepth) : Json(nullptr)},
                        {"loop_mape_uncalibrated_pct", ape_loop_u / n_obs},
                        {"loop_mape_calibrated_pct", cal_loops ? Json(ape_loop_c / n_obs) : Json(nullptr)}});
    }
    jk.push_back({{"kernel", to_string(op)}, {"unit", to_string(unit)}, {"samples", rows}, {"loops", jloops}});
  }
  std::cout << "\n(model BRAM_18K/URAM per kernel: '-' = not modelled per kernel module; the simulator "
               "plans memories per buffer for the whole design)\n";
  const double mape_u = n ? ape_u / n : 0;
  const std::optional<double> mape_c = calm && n ? std::optional<double>(ape_c / n) : std::nullopt;
  std::cout << fmt::format("\nMAPE over {} samples: uncalibrated {:.2f} %, calibrated {}\n", n, mape_u,
                           mape_c ? fmt::format("{:.2f} %", *mape_c) : "-");

  // Leave-one-out: always refits from the reports under DIR (a property of the procedure).
  const std::map<std::string, int> ops = cal ? cal->op_latency : bindnode_op_latencies(set.samples, device);
  const std::vector<LooResult> loo = leave_one_out(set, arch, device, ops, step ? &*step : nullptr);
  Json jl = Json::array();
  double ape_l = 0;
  int nl = 0;
  std::cout << "\nleave-one-out (fit on the other reports of the kernel, predict the left-out one):\n";
  for (const auto& r : loo) {
    if (r.predicted) {
      ape_l += std::fabs(r.error_pct());
      ++nl;
    }
    std::cout << fmt::format("  {:<15} {:<40} {:>6} reported {:>10} predicted {:>10} {}\n", to_string(r.op), r.source,
                             r.bound, r.reported, num(r.predicted),
                             r.predicted ? fmt::format("{:+.2f} %", r.error_pct()) : "(" + r.note + ")");
    jl.push_back({{"kernel", to_string(r.op)}, {"report", r.source}, {"bound", r.bound}, {"reported", r.reported},
                  {"predicted", jnum(r.predicted)},
                  {"error_pct", r.predicted ? Json(r.error_pct()) : Json(nullptr)}, {"note", r.note}});
  }
  if (loo.empty()) std::cout << "  none: every kernel has fewer than 3 reports\n";
  const std::optional<double> mape_l = nl ? std::optional<double>(ape_l / nl) : std::nullopt;
  std::cout << fmt::format("leave-one-out MAPE over {} predictions: {}\n", nl,
                           mape_l ? fmt::format("{:.2f} %", *mape_l) : "-");
  for (const auto& s : set.skipped) std::cout << "skipped " << s.module << " in " << s.source << ": " << s.reason << "\n";

  Json j;
  j["reports_dir"] = dir;
  j["files"] = inventory_json(files);
  Json timing = Json::array();
  for (const auto& r : reports.csynth) {
    if (auto v = timing_violation(r)) {
      timing.push_back({{"report", r.source}, {"module", v->module}, {"target_clock_ns", v->target_ns},
                        {"estimated_clock_ns", v->estimated_ns}});
    }
  }
  j["timing_violations"] = timing;
  j["arch"] = arch.name;
  j["device"] = device.name;
  j["calibration"] = cal_label;
  j["kernels"] = jk;
  j["mape_uncalibrated_pct"] = mape_u;
  j["mape_calibrated_pct"] = mape_c ? Json(*mape_c) : Json(nullptr);
  j["leave_one_out"] = {{"predictions", jl}, {"mape_pct", mape_l ? Json(*mape_l) : Json(nullptr)}};

  // The whole design, when its top was synthesized and a model is given.
  if (!model_path.empty()) {
    const CsynthReport* top = nullptr;
    for (const auto& r : reports.csynth) {
      if (r.top == "ttsim_train_step") top = &r;
    }
    if (!top) {
      std::cout << "\ndesign: no ttsim_train_step report under " << dir << "; design resources not compared\n";
      j["design"] = nullptr;
    } else {
      const ModelSpec model = load_model_spec(model_path);
      const StepResult step = simulate_step(model, arch_cal, device_cal, 0);
      const std::int64_t bram18 = 2 * step.banks.bram36_blocks, uram = step.banks.uram_blocks,
                         dsp = arch_dsp(arch, device);
      std::cout << fmt::format("\ndesign ttsim_train_step ({}): latency report {} .. {}, simulated step {} cycles; "
                               "BRAM_18K {} / {}, URAM {} / {}, DSP {} / {} (report / model)\n",
                               top->source, top->latency_best.str(), top->latency_worst.str(),
                               step.run.schedule.makespan, num(top->resources.bram_18k), bram18,
                               num(top->resources.uram), uram, num(top->resources.dsp), dsp);
      j["design"] = {{"report", top->source},
                     {"report_latency_best", jnum(top->latency_best.min)},
                     {"report_latency_worst", jnum(top->latency_worst.max)},
                     {"simulated_step_cycles", step.run.schedule.makespan},
                     {"resources_report", {{"BRAM_18K", jnum(top->resources.bram_18k)},
                                           {"URAM", jnum(top->resources.uram)},
                                           {"DSP", jnum(top->resources.dsp)}}},
                     {"resources_model", {{"BRAM_18K", bram18}, {"URAM", uram}, {"DSP", dsp}}}};
    }
  }
  if (!json_out.empty()) write_file_atomic(json_out, j.dump(2) + "\n");
  return 0;
}

const CommandRegistration kRegistration{
    {"compare", "simulated vs synthesis-report kernel latency and resources, with the calibration's error",
     run_compare}};

}  // namespace
}  // namespace ttsim::cli
