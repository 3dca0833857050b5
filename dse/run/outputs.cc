#include "dse/run/outputs.h"

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "dse/space/axes.h"
#include "dse/evaluate/resolve.h"
#include "dse/run/result_rows.h"
#include "dse/run/result_stream.h"
#include "sim/run_defaults.h"

namespace ttsim::dse {

std::string constraints_text(const SweepEvaluator& eval) {
  const auto& c = eval.sweep().constraints;
  const DeviceSpec& d = eval.device();
  const bool luts = eval.evaluators().analytic->provides(Metric::kLut);
  const bool ffs = eval.evaluators().analytic->provides(Metric::kFf) && d.ff > 0;
  std::string s = fmt::format("resources within {:g}% of the device (BRAM36 {}, URAM288 {}, DSP {}{}{})",
                              100 - c.resource_headroom_pct, d.bram36, d.uram288, d.dsp,
                              luts ? fmt::format(", LUT {}", d.lut) : std::string(),
                              luts || ffs ? fmt::format("{} against the estimate{}", ffs ? fmt::format(", FF {}", d.ff) : "",
                                                        luts && ffs ? "s" : "")
                                          : std::string());
  if (d.card_max_watts > 0 && eval.evaluators().analytic->provides(Metric::kPowerDynamicWatts)) {
    s += fmt::format(", card power (idle {:g} W + dynamic) within {:g}% of {:g} W", d.card_idle_watts,
                     100 - c.resource_headroom_pct, d.card_max_watts);
  }
  if (d.achievable_clock_mhz > 0) {
    const double usable = (100 - c.resource_headroom_pct) / 100;
    s += fmt::format(", clock within {:g}% of the achievable clock ({:g} MHz: <= {:g} MHz", 100 - c.resource_headroom_pct,
                     d.achievable_clock_mhz, d.achievable_clock_mhz * usable);
    if (d.slrs > 1 && d.multi_slr_clock_mhz > 0 && d.multi_slr_clock_mhz < d.achievable_clock_mhz) {
      s += fmt::format("; {:g} MHz for a design above what one SLR holds: <= {:g} MHz", d.multi_slr_clock_mhz,
                       d.multi_slr_clock_mhz * usable);
    }
    s += ")";
  }
  if (c.max_epoch_seconds) s += fmt::format(", epoch <= {:g} s", *c.max_epoch_seconds);
  if (c.min_compression) s += fmt::format(", compression >= {:g}x", *c.min_compression);
  if (c.max_compression) s += fmt::format(", compression <= {:g}x", *c.max_compression);
  if (c.min_accuracy) s += fmt::format(", accuracy >= {:g}", *c.min_accuracy);
  return s;
}

namespace {

// The point's object with numbers as a JSON dump writes doubles (append_point_json), as
// chosen.json holds the evaluations of the chosen design and the reference points.
Json dumped_point_json(const SweepEvaluator& eval, const ResultRow& r) {
  std::string text;
  append_point_json(text, eval, r, JsonNumbers::kDump);
  return Json::parse(text);
}

// Every default the run priced with, per clock the points run at (the device's figures at
// that clock, the memory model, the LUT and storage constants).
Json defaults_used(const SweepEvaluator& eval, const std::set<double>& clocks) {
  Json defaults = Json::array();
  for (double mhz : clocks) {
    try {
      Json d = run_defaults_json(eval.priced_device(), mhz, eval.kernel_calibration());
      // The fit rule's headroom this run applied: the sweep's.
      d["fit_rule"]["resource_headroom_pct"]["value"] = eval.sweep().constraints.resource_headroom_pct;
      d["fit_rule"]["resource_headroom_pct"]["source"] = "the sweep's constraints/resource_headroom_pct (hw/resource_fit.h)";
      defaults.push_back(std::move(d));
    } catch (const std::exception& e) {  // a clock the device cannot price: its points say why
      defaults.push_back(Json{{"clock_mhz", mhz}, {"error", e.what()}});
    }
  }
  return defaults;
}

// What the pass over every point gathers for results.json.
struct PointsPass {
  Json front = Json::array();  // point_json of the front points, ascending id
  std::set<double> clocks;
};

// results.csv and results.jsonl: `streamed` when it holds every row (committed, the rows of
// points evaluated again by SystemC replaced), else
// written from the log, one point at a time; then pareto.csv (unless partial) and the
// front's objects for results.json.
PointsPass write_point_files(const std::string& dir, const SweepEvaluator& eval, const RunState& state,
                             const FinalResult& f, ResultStream* streamed) {
  PointsPass pass;
  if (streamed && streamed->covers(state)) {
    streamed->commit(state, [&](PointId id) { return render_row(eval, result_row(eval, state, f, id)); });
    pass.clocks = streamed->clocks();
  } else {
    if (streamed) streamed->discard();
    ResultStream rows(dir, eval);
    for_each_row(eval, state, f, [&](const ResultRow& r) {
      const RowText text = render_row(eval, r);
      rows.append(r.id, &text);
    });
    rows.commit();
    pass.clocks = rows.clocks();
  }
  // An interrupted run has no front: no pareto.csv (nor one left from before).
  if (f.partial) {
    std::filesystem::remove(dir + "/pareto.csv");
    return pass;
  }
  AtomicFileWriter pareto(dir + "/pareto.csv");
  pareto.write(csv_header(eval.sweep()));
  for (PointId id : f.front) {
    const ResultRow r = result_row(eval, state, f, id);
    pareto.write(render_row(eval, r).csv);
    pass.front.push_back(point_json(eval, r, true));
  }
  pareto.commit();
  return pass;
}

Json references_json(const SweepEvaluator& eval, const RunState& state, const FinalResult& f) {
  Json refs = Json::array();
  for (const auto& ref : f.references) {
    Json j{{"id", ref.id}, {"label", ref.label}, {"evaluated", ref.evaluated},
           {"feasible", ref.feasible}, {"on_front", ref.on_front},
           {"dominated_by", ref.dominated_by}};
    if (ref.evaluated) {
      const Json p = dumped_point_json(eval, result_row(eval, state, f, ref.id));
      for (const char* k : {"fidelity", "metrics", "analytic_metrics"}) {
        if (p.contains(k)) j[k] = p.at(k);
      }
    }
    if (!ref.reason.empty()) j["reason"] = ref.reason;
    Json gains = Json::object();
    for (std::size_t o = 0; o < ref.best_gain.size(); ++o) {
      if (ref.best_gain[o] > 0) {
        gains[metric_info(eval.objectives()[o]).name] =
            Json{{"factor", ref.best_gain[o]}, {"by", ref.best_gain_point[o]}};
      }
    }
    j["best_gain_over_reference"] = gains;
    refs.push_back(std::move(j));
  }
  return refs;
}

Json chosen_json(const SweepEvaluator& eval, const RunState& state, const FinalResult& f) {
  const auto& sweep = eval.sweep();
  Json chosen{{"sweep", sweep.name},
              {"why", f.why},
              {"resource_headroom_pct", sweep.constraints.resource_headroom_pct},
              {"references", references_json(eval, state, f)}};
  // An interrupted run gives no chosen design (summary.md says so; `emit` refuses the file).
  if (f.partial) chosen["interrupted"] = true;
  if (!f.chosen || f.partial) return chosen;
  const ResultRow r = result_row(eval, state, f, *f.chosen);
  // The point's object but its verdict, reference label and analytic metrics.
  const Json p = dumped_point_json(eval, r);
  for (const char* k : {"accuracy_source", "energy_joules_per_epoch", "fidelity", "id", "metrics", "name",
                        "power_watts", "tt_rank", "values"}) {
    chosen[k] = p.at(k);
  }
  chosen["breakdown"] = f.chosen_detail.breakdown;
  chosen["configs"] = f.chosen_detail.resolved.is_null()
                          ? eval.evaluators().analytic->resolved_configs(r.point)
                          : f.chosen_detail.resolved;
  // The resolved device config next to the model and arch: `ttsim emit` describes the
  // machine on it (the evaluators' configs name the device only).
  chosen["configs"]["device"] = eval.device().to_json();
  chosen["device"] = eval.device().to_json();
  chosen["calibration"] = eval.calibration();
  return chosen;
}

}  // namespace

Json point_json(const SweepEvaluator& eval, const ResultRow& r, bool configs) {
  Json p = Json::parse(jsonl_row(eval, r));
  if (!configs) return p;
  try {
    p["configs"] = eval.evaluators().analytic->resolved_configs(r.point);
  } catch (const std::exception& e) {
    p["configs"] = Json{{"error", e.what()}};
  }
  return p;
}

std::vector<std::string> write_outputs(const std::string& dir, const SweepEvaluator& eval,
                                       const RunState& state, const FinalResult& f, ResultStream* streamed) {
  const auto& sweep = eval.sweep();
  PointsPass pass = write_point_files(dir, eval, state, f, streamed);

  Json objectives = Json::array();
  for (Metric m : eval.objectives()) objectives.push_back(metric_info(m).name);
  Json results{{"sweep", sweep.name},        {"sweep_file", sweep.file},
               {"sweep_doc", sweep.doc},     {"device", eval.device().to_json()},
               {"fidelity", to_string(sweep.systemc)}, {"objectives", objectives},
               {"notes", f.notes},           {"points_file", "results.jsonl"},
               {"evaluated", f.evaluated},   {"feasible", f.feasible},
               {"front", std::move(pass.front)},
               {"calibration", eval.calibration()},
               {"accuracy_table", eval.accuracy_table() ? accuracy_table_summary(*eval.accuracy_table()) : Json(nullptr)},
               {"defaults_used", defaults_used(eval, pass.clocks)}};
  if (f.chosen) results["chosen"] = *f.chosen;
  if (f.partial) results["interrupted"] = true;  // not a finished front
  write_file_atomic(dir + "/results.json", results.dump(1) + "\n");
  write_file_atomic(dir + "/chosen.json", chosen_json(eval, state, f).dump(1) + "\n");
  std::vector<std::string> files = {"results.csv", "results.jsonl", "results.json", "pareto.csv",
                                    "chosen.json", "summary.md"};
  if (f.partial) files.erase(files.begin() + 3);  // no pareto.csv
  write_summary(dir, eval, state, f, files);
  return files;
}

}  // namespace ttsim::dse
