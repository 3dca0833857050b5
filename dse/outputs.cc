#include "dse/outputs.h"

#include <filesystem>

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "dse/axes.h"
#include "dse/resolve.h"
#include "dse/result_rows.h"
#include "sim/run_defaults.h"

namespace ttsim::dse {

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string number_text(double v) {
  if (std::isnan(v)) return "";
  return fmt::format("{}", v);
}

std::string constraints_text(const SweepEvaluation& eval) {
  const auto& c = eval.sweep().constraints;
  std::string s = fmt::format("resources within {:g}% of the device (BRAM36 {}, URAM288 {}, DSP {}{})",
                   100 - c.resource_headroom_pct, eval.device().bram36, eval.device().uram288,
                   eval.device().dsp,
                   eval.evaluators().analytic->provides(Metric::kLut)
                       ? fmt::format(", LUT {} against the estimate", eval.device().lut)
                       : std::string());
  if (c.max_epoch_seconds) s += fmt::format(", epoch <= {:g} s", *c.max_epoch_seconds);
  if (c.min_compression) s += fmt::format(", compression >= {:g}x", *c.min_compression);
  if (c.min_accuracy) s += fmt::format(", accuracy >= {:g}", *c.min_accuracy);
  return s;
}

namespace {

using Row = ResultRow;

std::string csv_header(const SweepSpec& sweep) {
  std::string h = "id,reference";
  for (const auto& a : sweep.space.axes()) h += "," + csv_cell(a.name);
  h += ",fidelity,feasible,on_front";
  for (int m = 0; m < kMetricCount; ++m) h += std::string(",") + metric_info(static_cast<Metric>(m)).name;
  return h + ",accuracy_source,reason\n";
}

std::string csv_row(const Row& r) {
  std::string line = std::to_string(r.id) + "," + csv_cell(r.ref_label);
  for (const auto& v : r.values) line += "," + csv_cell(v.is_null() ? "" : value_text(v));
  const Evaluation& e = r.rec->best();
  line += "," + e.fidelity + "," + (r.verdict->feasible ? "1" : "0") + "," + (r.on_front ? "1" : "0");
  for (int m = 0; m < kMetricCount; ++m) line += "," + number_text(e.metrics.v[m]);
  return line + "," + e.accuracy_source + "," + csv_cell(r.verdict->reason) + "\n";
}

Json metrics_json(const Evaluation& e) {
  Json m = Json::object();
  for (int i = 0; i < kMetricCount; ++i) {
    const double x = e.metrics.v[i];
    m[metric_info(static_cast<Metric>(i)).name] = std::isnan(x) ? Json(nullptr) : Json(x);
  }
  return m;
}

Json metric_or_null(const Evaluation& e, Metric m) {
  return e.metrics.has(m) ? Json(e.metrics[m]) : Json(nullptr);
}

// The power and energy keys of `ttsim simulate --json`, and the accuracy provenance.
void add_power_and_accuracy(const Evaluation& e, Json& j) {
  j["power_watts"] = {{"static", metric_or_null(e, Metric::kPowerStaticWatts)},
                      {"dynamic", metric_or_null(e, Metric::kPowerDynamicWatts)},
                      {"total", metric_or_null(e, Metric::kPowerTotalWatts)}};
  j["energy_joules_per_epoch"] = metric_or_null(e, Metric::kEpochEnergyJoules);
  j["tt_rank"] = e.tt_rank ? Json(e.tt_rank) : Json(nullptr);
  j["accuracy_source"] = e.accuracy_source.empty() ? Json(nullptr) : Json(e.accuracy_source);
}

Json values_json(const SweepSpec& sweep, const Row& r) {
  Json v = Json::object();
  for (std::size_t a = 0; a < r.values.size(); ++a) v[sweep.space.axes()[a].name] = r.values[a];
  return v;
}

// "SystemC" / "analytic model (no port contention)": the fidelity of a figure, in words.
std::string fidelity_label(const std::string& fidelity) {
  if (fidelity == "systemc") return "SystemC";
  if (fidelity == "analytic") return "analytic model (no port contention)";
  return fidelity;
}

std::string summary_md(const SweepEvaluation& eval, const FinalResult& f,
                       const std::vector<Row>& rows, const std::vector<std::string>& files) {
  const auto& sweep = eval.sweep();
  std::size_t feasible = 0;
  for (const auto& v : f.verdicts) feasible += v.feasible;
  std::string s = fmt::format("# Sweep `{}`\n\n", sweep.name);
  if (f.partial) {
    s += "**INTERRUPTED — not a finished front.** The figures below cover the points evaluated so far; "
         "no Pareto front or chosen design is given (pareto.csv is not written). Run the same command "
         "with `--resume` to finish.\n\n";
  }
  s += fmt::format("- sweep file: `{}`; base model `{}`, arch `{}`, device `{}`\n", sweep.file,
                   sweep.model_file, sweep.arch_file, sweep.device_file);
  s += fmt::format("- design space: {} grid points over {} axes, {} reference point(s); search `{}`\n",
                   sweep.space.grid_size(), sweep.space.axes().size(),
                   sweep.space.references().size(), sweep.search.strategy);
  s += fmt::format("- evaluated: {} points ({} feasible); Pareto front: {} points; SystemC-evaluated: {} "
                   "points in {} round(s); fidelity `{}`\n",
                   f.ids.size(), feasible, f.front.size(), f.systemc_points, f.systemc_rounds,
                   to_string(sweep.fidelity));
  std::string objs;
  for (Metric m : eval.objectives()) {
    objs += (objs.empty() ? "" : ", ") + std::string(metric_info(m).maximize ? "max " : "min ") +
            metric_info(m).name;
  }
  s += "- objectives: " + objs + "\n";
  s += "- constraints: " + constraints_text(eval) + "\n";
  const Json& cal = eval.calibration();
  s += cal.is_null() ? std::string("- calibration: none (kernel parameters and power coefficients from the "
                                   "arch and device files)\n")
                     : fmt::format("- calibration: `{}` (part {}, {} ns, tool {}) applied to every point\n",
                                   cal.value("file", std::string()), cal.value("part", std::string()),
                                   cal.value("target_clock_ns", 0.0), cal.value("tool_version", std::string()));
  for (const auto& n : f.notes) s += "- note: " + n + "\n";

  const Metric show[] = {Metric::kEpochSeconds, Metric::kStepCycles,  Metric::kOnchipBytes,
                         Metric::kBram36,       Metric::kUram288,     Metric::kDsp,
                         Metric::kLut,          Metric::kCompression, Metric::kPowerTotalWatts,
                         Metric::kEpochEnergyJoules, Metric::kAccuracy};
  auto table_header = [&]() {
    std::string h = "| id |";
    for (const auto& a : sweep.space.axes()) h += " " + a.name + " |";
    for (Metric m : show) h += std::string(" ") + metric_info(m).name + " |";
    h += " fidelity |\n|---|";
    for (std::size_t i = 0; i < sweep.space.axes().size() + std::size(show) + 1; ++i) h += "---|";
    return h + "\n";
  };
  auto table_row = [&](const Row& r) {
    std::string line = fmt::format("| {}{} |", r.id, r.ref_label.empty() ? "" : " (ref)");
    for (const auto& v : r.values) line += " " + (v.is_null() ? std::string("-") : value_text(v)) + " |";
    for (Metric m : show) line += " " + metric_text(m, r.rec->best().metrics[m]) + " |";
    return line + " " + r.rec->best().fidelity + " |\n";
  };
  // Front sorted by the first objective (then id).
  std::vector<const Row*> front;
  for (const auto& r : rows) {
    if (r.on_front) front.push_back(&r);
  }
  const Metric first = eval.objectives().front();
  std::stable_sort(front.begin(), front.end(), [&](const Row* a, const Row* b) {
    const double va = a->rec->best().metrics[first], vb = b->rec->best().metrics[first];
    return metric_info(first).maximize ? va > vb : va < vb;
  });
  if (f.partial) {
    s += "\n## Pareto front\n\nNot given: the run was interrupted.\n";
  } else {
    s += fmt::format("\n## Pareto front ({} points, by {})\n\n", front.size(), metric_info(first).name);
    s += table_header();
    for (const Row* r : front) s += table_row(*r);
  }

  s += "\n## Chosen design\n\n";
  if (f.partial) {
    s += "Not given: the run was interrupted.\n";
  } else if (f.chosen) {
    for (const auto& r : rows) {
      if (r.id == *f.chosen) s += "`" + point_name(sweep, r.id) + "`\n\n" + table_header() + table_row(r);
    }
    s += "\nWhy: " + f.why + ".\n";
  } else {
    s += "No feasible design.\n";
  }

  s += "\n## Reference design\n\n";
  if (f.references.empty()) s += "The sweep lists no reference point.\n";
  for (const auto& ref : f.references) {
    s += fmt::format("- **{}** (id {}): ", ref.label, ref.id);
    if (!ref.evaluated) {
      s += "not evaluated in this run.\n";
      continue;
    }
    const Row* ref_row = nullptr;
    for (const auto& r : rows) {
      if (r.id == ref.id) ref_row = &r;
    }
    auto figures = [&](const Evaluation& e) {
      std::string figs;
      for (Metric m : eval.objectives()) {
        figs += (figs.empty() ? "" : ", ") + std::string(metric_info(m).name) + " " +
                metric_text(m, e.metrics[m]);
      }
      return figs;
    };
    if (ref_row) {
      s += fidelity_label(ref_row->rec->best().fidelity) + " " + figures(ref_row->rec->best());
      if (ref_row->rec->has_systemc) {
        s += " (" + fidelity_label("analytic") + ": " + figures(ref_row->rec->analytic) +
             "; not compared)";
      }
      s += "; ";
    }
    if (!ref.feasible) {
      s += "infeasible (" + ref.reason + ").\n";
    } else if (ref.on_front) {
      s += "on the Pareto front (no evaluated design dominates it).\n";
    } else {
      // The fidelity of the front designs it is compared with, to show like vs like.
      std::set<std::string> front_fidelities;
      for (PointId d : ref.dominated_by) {
        for (const auto& r : rows) {
          if (r.id == d) front_fidelities.insert(r.rec->best().fidelity);
        }
      }
      std::string fids;
      for (const auto& x : front_fidelities) fids += (fids.empty() ? "" : " and ") + fidelity_label(x);
      s += fmt::format("dominated by {} front design(s) ({} figures)", ref.dominated_by.size(), fids);
      for (std::size_t o = 0; o < eval.objectives().size(); ++o) {
        if (ref.best_gain[o] > 0) {
          s += fmt::format("; best {} gain {:.2f}x (id {})", metric_info(eval.objectives()[o]).name,
                           ref.best_gain[o], ref.best_gain_point[o]);
        }
      }
      if (front_fidelities.size() > 1 || (front_fidelities.size() == 1 && ref_row &&
                                           *front_fidelities.begin() != ref_row->rec->best().fidelity)) {
        s += "; note: the figures compared mix fidelities";
      }
      s += ".\n";
    }
  }
  std::string list;
  for (const auto& file : files) list += (list.empty() ? "" : ", ") + file;
  s += "\nFiles: " + list + ".\n";
  return s;
}

}  // namespace

std::vector<std::string> write_outputs(const std::string& dir, const SweepEvaluation& eval,
                                       const RunState& state, const FinalResult& f) {
  const auto& sweep = eval.sweep();
  const auto rows = result_rows(eval, state, f);

  std::string csv = csv_header(sweep), pareto = csv_header(sweep);
  for (const auto& r : rows) {
    const std::string line = csv_row(r);
    csv += line;
    if (r.on_front) pareto += line;
  }
  write_file_atomic(dir + "/results.csv", csv);
  // An interrupted run has no front: no pareto.csv (nor one left from before).
  if (f.partial) {
    std::filesystem::remove(dir + "/pareto.csv");
  } else {
    write_file_atomic(dir + "/pareto.csv", pareto);
  }

  Json points = Json::array();
  for (const auto& r : rows) {
    Json p{{"id", r.id}, {"name", point_name(sweep, r.id)}, {"values", values_json(sweep, r)},
           {"fidelity", r.rec->best().fidelity}, {"feasible", r.verdict->feasible},
           {"on_front", r.on_front}, {"metrics", metrics_json(r.rec->best())}};
    if (!r.ref_label.empty()) p["reference"] = r.ref_label;
    if (!r.verdict->feasible) p["reason"] = r.verdict->reason;
    add_power_and_accuracy(r.rec->best(), p);
    if (r.rec->has_systemc) p["analytic_metrics"] = metrics_json(r.rec->analytic);
    try {
      p["configs"] = eval.evaluators().analytic->resolved_configs(resolve_point(sweep, r.id));
    } catch (const std::exception& e) {
      p["configs"] = Json{{"error", e.what()}};
    }
    points.push_back(std::move(p));
  }
  Json objectives = Json::array();
  for (Metric m : eval.objectives()) objectives.push_back(metric_info(m).name);
  Json results{{"sweep", sweep.name},        {"sweep_file", sweep.file},
               {"sweep_doc", sweep.doc},     {"device", eval.device().to_json()},
               {"fidelity", to_string(sweep.fidelity)}, {"objectives", objectives},
               {"notes", f.notes},           {"front", f.front},
               {"calibration", eval.calibration()},
               {"accuracy_table", eval.accuracy_table() ? accuracy_table_summary(*eval.accuracy_table()) : Json(nullptr)},
               {"points", points}};
  // Every default the run priced with, per clock the points run at (the device's figures
  // at that clock, the memory model, the LUT and storage constants).
  std::set<double> clocks;
  for (const Json& p : points) {
    const Json* arch = p.at("configs").contains("arch") ? &p.at("configs").at("arch") : nullptr;
    if (arch && arch->contains("clock_mhz") && arch->at("clock_mhz").is_number()) {
      clocks.insert(arch->at("clock_mhz").get<double>());
    }
  }
  Json defaults = Json::array();
  for (double mhz : clocks) {
    try {
      defaults.push_back(run_defaults_json(eval.priced_device(), mhz, eval.kernel_calibration()));
    } catch (const std::exception& e) {  // a clock the device cannot price: its points say why
      defaults.push_back(Json{{"clock_mhz", mhz}, {"error", e.what()}});
    }
  }
  results["defaults_used"] = defaults;
  if (f.chosen) results["chosen"] = *f.chosen;
  if (f.partial) results["interrupted"] = true;  // not a finished front
  write_file_atomic(dir + "/results.json", results.dump(1) + "\n");

  Json refs = Json::array();
  for (const auto& ref : f.references) {
    Json j{{"id", ref.id}, {"label", ref.label}, {"evaluated", ref.evaluated},
           {"feasible", ref.feasible}, {"on_front", ref.on_front},
           {"dominated_by", ref.dominated_by}};
    if (ref.evaluated) {
      const PointRecord& rec = state.points.at(ref.id);
      j["fidelity"] = ref.fidelity;
      j["metrics"] = metrics_json(rec.best());
      if (rec.has_systemc) j["analytic_metrics"] = metrics_json(rec.analytic);
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
  Json chosen{{"sweep", sweep.name}, {"why", f.why}, {"references", refs}};
  if (f.partial) chosen["interrupted"] = true;
  if (f.chosen) {
    for (const auto& r : rows) {
      if (r.id != *f.chosen) continue;
      chosen["id"] = r.id;
      chosen["name"] = point_name(sweep, r.id);
      chosen["values"] = values_json(sweep, r);
      chosen["fidelity"] = r.rec->best().fidelity;
      chosen["metrics"] = metrics_json(r.rec->best());
      add_power_and_accuracy(r.rec->best(), chosen);
    }
    chosen["breakdown"] = f.chosen_detail.breakdown;
    chosen["configs"] = f.chosen_detail.resolved.is_null()
                            ? eval.evaluators().analytic->resolved_configs(resolve_point(sweep, *f.chosen))
                            : f.chosen_detail.resolved;
    // The resolved device config next to the model and arch: `ttsim emit` describes the
    // machine on it (the evaluators' configs name the device only).
    chosen["configs"]["device"] = eval.device().to_json();
    chosen["device"] = eval.device().to_json();
    chosen["calibration"] = eval.calibration();
  }
  write_file_atomic(dir + "/chosen.json", chosen.dump(1) + "\n");
  std::vector<std::string> files = {"results.csv", "results.json", "pareto.csv", "chosen.json", "summary.md"};
  if (f.partial) files.erase(files.begin() + 2);  // no pareto.csv
  write_file_atomic(dir + "/summary.md", summary_md(eval, f, rows, files));
  return files;
}

std::string write_summary(const std::string& dir, const SweepEvaluation& eval, const RunState& state,
                          const FinalResult& f, const std::vector<std::string>& files) {
  const std::string text = summary_md(eval, f, result_rows(eval, state, f), files);
  write_file_atomic(dir + "/summary.md", text);
  return text;
}

}  // namespace ttsim::dse
