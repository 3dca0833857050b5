#include "dse/run_setup.h"

#include "dse/evaluate/evaluation_json.h"

#include "machine/machine.h"
#include "models/model_spec.h"
#include "hw/kernel_latency.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "dse/accuracy/accuracy_table.h"
#include "dse/emit/emit.h"
#include "dse/evaluate/resolve.h"
#include "dse/run/outputs.h"
#include "dse/run/result_rows.h"
#include "dse/report/plots.h"
#include "dse/report/report_html.h"

namespace ttsim::dse {

std::vector<double> sweep_clocks_mhz(const SweepSpec& sweep) {
  std::set<double> clocks;
  const auto& axes = sweep.space.axes();
  bool base_used = true;
  std::vector<std::size_t> clock_axes;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].name == "clock_mhz" || axes[a].name == "arch:/clock_mhz") clock_axes.push_back(a);
  }
  if (!clock_axes.empty()) {
    base_used = false;
    for (std::size_t a : clock_axes) {
      for (const Json& v : axes[a].values) clocks.insert(v.get<double>());
      for (PointId ref : sweep.space.references()) {
        if (sweep.space.decode(ref)[a] == kBaseValue) base_used = true;
      }
    }
  }
  if (base_used) clocks.insert(parse_arch_spec(sweep.arch_doc, sweep.arch_file).clock_mhz);
  return {clocks.begin(), clocks.end()};
}

Json calibration_record(const Calibration& c) {
  Json kernels = Json::array();
  for (const auto& [op, k] : c.kernels) {
    (void)k;
    kernels.push_back(to_string(op));
  }
  Json power_fitted = Json::array();
  if (c.power) {
    const Json p = calibration_to_json(c).value("power", Json::object());
    for (const auto& [key, v] : p.items()) {
      if (key != "reports") power_fitted.push_back(key);
    }
  }
  return Json{{"file", c.file},       {"part", c.part},
              {"target_clock_ns", c.target_clock_ns}, {"tool_version", c.tool_version},
              {"fitted_for", {{"arch", c.arch}, {"device", c.device}, {"model", c.model}}},
              {"kernels", kernels},   {"op_latency", c.op_latency},
              {"power_fitted", power_fitted}, {"reports", c.reports}};
}

std::unique_ptr<RunSetup> make_run_setup(const std::string& sweep_file,
                                         const std::string& calibration_file) {
  auto s = std::make_unique<RunSetup>();
  s->sweep = load_sweep_spec(sweep_file);
  const DeviceSpec device = parse_device_spec(s->sweep.device_doc, s->sweep.device_file);
  // The base model and arch are what the reference points run and what every axis edits:
  // the model must load (InputError naming its file and member, exit 2, before any work,
  // rather than every point "not evaluated"), the arch must be a machine the emitted top
  // can build (ConfigError at its pointer), and the device must price every kernel
  // operator at its clock.
  // Their names are written into the emitted build at the end: checked now, not after the
  // whole sweep.
  check_emit_name(parse_model_spec(s->sweep.model_doc, s->sweep.model_file).name, s->sweep.model_file, "/name");
  check_emit_name(device.name, s->sweep.device_file, "/name");
  check_emit_name(device.part, s->sweep.device_file, "/part");
  check_emit_name(device.platform, s->sweep.device_file, "/platform");
  {
    const ArchSpec base = parse_arch_spec(s->sweep.arch_doc, s->sweep.arch_file);
    check_emit_name(base.name, s->sweep.arch_file, "/name");
    machine::check_buildable(base);
    const KernelLatencyModel priced(base, device);
    (void)priced;
  }
  SimContext ctx = make_sim_context(device, s->sweep.lengths_file, s->sweep.lengths_split);
  Json calibration;
  if (!calibration_file.empty()) {
    const Calibration cal = load_calibration(calibration_file);
    calibrate_sim_context(cal, parse_arch_spec(s->sweep.arch_doc, s->sweep.arch_file),
                          sweep_clocks_mhz(s->sweep), ctx);  // refuses another part or clock
    calibration = calibration_record(cal);
  }
  s->analytic = std::make_unique<SimEvaluator>(ctx, Fidelity::kAnalytic);
  s->systemc = std::make_unique<SimEvaluator>(ctx, Fidelity::kSystemC);
  // The rank-accuracy table is used only when it exists; its absence is reported.
  std::optional<AccuracyTable> accuracy;
  if (!s->sweep.accuracy_table.empty()) accuracy = load_accuracy_table(s->sweep.accuracy_table);
  s->eval = std::make_unique<SweepEvaluator>(
      s->sweep, Evaluators{s->analytic.get(), s->systemc.get()}, accuracy);
  s->eval->set_calibration(std::move(calibration));
  s->eval->set_priced(ctx.device, ctx.kernel_calibration);
  return s;
}

namespace {

/// The predicted figures as chosen.json's /metrics holds them: metric name -> value, null
/// where unavailable, written by the one evaluation-JSON writer (dse/evaluate/evaluation_json.h).
Json predicted_metrics(const Evaluation& e) {
  std::string text;
  append_metrics_json(text, e.metrics, JsonNumbers::kDump);
  return Json::parse(text);
}

}  // namespace

HlsBuild chosen_hls_build(const SweepEvaluator& eval, const RunState& state, const FinalResult& final,
                          const std::string& source, const std::string& hls_root) {
  const ResultRow r = result_row(eval, state, final, *final.chosen);
  DesignProvenance about;
  about.source = source;
  about.label = point_name(eval.sweep(), r.id);
  about.fidelity = to_string(r.rec.best().fidelity);
  about.why = final.why;
  about.metrics = predicted_metrics(r.rec.best());
  about.sweep_point = !r.values.empty();
  // The configs chosen.json records (dse/run/outputs.cc), the device the run priced with.
  const Json configs = final.chosen_detail.resolved.is_null() ? eval.evaluators().analytic->resolved_configs(r.point)
                                                              : final.chosen_detail.resolved;
  ModelSpec model = parse_model_spec(configs.at("model"), source + " (/configs/model)");
  ArchSpec arch = parse_arch_spec(configs.at("arch"), source + " (/configs/arch)");
  // The machine the chosen design was simulated on (its detailed evaluation), not described again.
  return make_hls_build(std::move(model), std::move(arch), eval.device(), std::move(about),
                        find_hls_root(hls_root), final.chosen_detail.machine.get());
}

std::function<std::vector<std::string>(const std::string&, const RunState&, const FinalResult&,
                                       const std::vector<std::string>&)>
standard_extra_outputs(const RunSetup& setup, const std::string& hls_root) {
  return [&setup, hls_root](const std::string& dir, const RunState& state, const FinalResult& final,
                            const std::vector<std::string>& written) {
    std::vector<std::string> notes;
    std::vector<std::string> files = written;
    const auto plots = write_plots(dir, *setup.eval, state, final, notes);
    for (const auto& p : plots) {
      files.push_back(p.svg);
      files.insert(files.end(), p.csvs.begin(), p.csvs.end());
    }
    if (!final.partial && final.chosen) {
      const HlsBuild build = chosen_hls_build(*setup.eval, state, final, dir + "/chosen.json", hls_root);
      // A resumed run keeps an hls_build/ that holds synthesis outputs or other files
      // (a note says so) rather than deleting them with the folder.
      const EmitReport emitted = emit_hls_build(build, dir + "/hls_build", EarlierFiles::kKeepFolder);
      notes.insert(notes.end(), emitted.notes.begin(), emitted.notes.end());
      if (!emitted.replaced) std::cerr << "note: " << emitted.notes.back() << "\n";
      files.push_back(emitted.replaced ? "hls_build/" : "hls_build/ (kept from an earlier emit)");
    }
    files.push_back("report.html");  // written below; a failure to write it fails the run
    write_summary(dir, *setup.eval, state, final, files);
    write_report_html(dir, *setup.eval, state, final, plots, notes);
    return files;
  };
}

}  // namespace ttsim::dse
