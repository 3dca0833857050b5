#include "dse/run_setup.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "dse/accuracy_table.h"
#include "dse/emit.h"
#include "dse/plots.h"
#include "dse/report_html.h"

namespace ttsim::dse {

std::unique_ptr<RunSetup> make_run_setup(const std::string& sweep_file) {
  auto s = std::make_unique<RunSetup>();
  s->sweep = load_sweep_spec(sweep_file);
  const DeviceSpec device = parse_device_spec(s->sweep.device_doc, s->sweep.device_file);
  const SimContext ctx = make_sim_context(device, s->sweep.lengths_file, s->sweep.lengths_split);
  s->analytic = std::make_unique<AnalyticSimEvaluator>(ctx);
  s->systemc = std::make_unique<SystemcSimEvaluator>(ctx);
  // The rank-accuracy table is used only when it exists; its absence is reported.
  std::optional<AccuracyByRank> accuracy;
  if (!s->sweep.accuracy_table.empty()) accuracy = load_accuracy_table(s->sweep.accuracy_table);
  s->eval = std::make_unique<SweepEvaluation>(
      s->sweep, Evaluators{s->analytic.get(), s->systemc.get()}, accuracy);
  return s;
}

std::function<void(const std::string&, const FinalResult&)> standard_extra_outputs(
    const RunSetup& setup) {
  return [&setup](const std::string& dir, const FinalResult& final) {
    std::vector<std::string> notes;
    const RunState state = load_run_state(dir);
    const auto svgs = write_plots(dir, *setup.eval, state, final, notes);
    std::ifstream in(dir + "/summary.md");
    std::stringstream summary;
    summary << in.rdbuf();
    for (const auto& n : notes) summary << "- note: " << n << "\n";
    write_report_html(dir, "ttsim explore: " + setup.sweep.name, summary.str(), svgs);
    if (!final.partial && final.chosen) {
      emit_design(load_json_file(dir + "/chosen.json"), dir + "/chosen.json", dir + "/hls_build");
    }
  };
}

}  // namespace ttsim::dse
