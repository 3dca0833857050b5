// summary.md of a run (dse/run/outputs.h).
#include <set>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "dse/space/axes.h"
#include "dse/run/outputs.h"
#include "dse/evaluate/resolve.h"
#include "dse/run/result_rows.h"

namespace ttsim::dse {

namespace {

using Row = ResultRow;

// "SystemC" / "analytic model (no port contention)": the fidelity of a figure, in words.
const char* fidelity_label(Fidelity fidelity) {
  return fidelity == Fidelity::kSystemC ? "SystemC" : "analytic model (no port contention)";
}

// The opening: the banner of an interrupted run, the sweep, counts, objectives, constraints,
// calibration and notes.
std::string summary_head(const SweepEvaluator& eval, const FinalResult& f) {
  const auto& sweep = eval.sweep();
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
                   sweep.space.references().size(), to_string(sweep.search.strategy));
  s += fmt::format("- evaluated: {} points ({} feasible{}); Pareto front: {} points; SystemC-evaluated: {} "
                   "points in {} round(s); fidelity `{}`\n",
                   f.evaluated, f.feasible,
                   f.failed > 0 ? fmt::format(", {} not evaluated: results.csv gives each one's reason", f.failed)
                                : std::string(),
                   f.front.size(), f.systemc_points, f.systemc_rounds, to_string(sweep.systemc));
  std::string objs;
  for (Metric m : eval.objectives()) {
    objs += (objs.empty() ? "" : ", ") + std::string(metric_info(m).maximize ? "max " : "min ") +
            metric_info(m).name;
  }
  s += "- objectives: " + objs + "\n";
  // One metric name, two steps (dse/evaluate/sim_evaluator.cc): said where its figures are read.
  s += std::string("- step_cycles: ") + kStepCyclesMeaning + "\n";
  s += "- constraints: " + constraints_text(eval) + "\n";
  const Json& cal = eval.calibration();
  s += cal.is_null() ? std::string("- calibration: none (kernel parameters and power coefficients from the "
                                   "arch and device files)\n")
                     : fmt::format("- calibration: `{}` (part {}, {} ns, tool {}) applied to every point\n",
                                   cal.value("file", std::string()), cal.value("part", std::string()),
                                   cal.value("target_clock_ns", 0.0), cal.value("tool_version", std::string()));
  for (const auto& n : f.notes) s += "- note: " + n + "\n";
  return s;
}

// The metrics of the front and chosen-design tables.
const Metric kShown[] = {Metric::kEpochSeconds, Metric::kStepCycles,  Metric::kOnchipBytes,
                         Metric::kBram36,       Metric::kUram288,     Metric::kDsp,
                         Metric::kLut,          Metric::kCompression, Metric::kPowerTotalWatts,
                         Metric::kEpochEnergyJoules, Metric::kAccuracy};

std::string table_header(const SweepSpec& sweep) {
  std::string h = "| id |";
  for (const auto& a : sweep.space.axes()) h += " " + a.name + " |";
  for (Metric m : kShown) h += std::string(" ") + metric_info(m).name + " |";
  h += " fidelity |\n|---|";
  for (std::size_t i = 0; i < sweep.space.axes().size() + std::size(kShown) + 1; ++i) h += "---|";
  return h + "\n";
}

std::string table_row(const Row& r) {
  std::string line = fmt::format("| {}{} |", r.id, r.ref_label.empty() ? "" : " (ref)");
  for (const auto& v : r.values) line += " " + (v.is_null() ? std::string("-") : value_text(v)) + " |";
  for (Metric m : kShown) line += " " + metric_text(m, r.rec.best().metrics[m]) + " |";
  return line + " " + to_string(r.rec.best().fidelity) + " |\n";
}

// The Pareto front (sorted by the first objective, then id) and the chosen design.
std::string front_and_choice(const SweepEvaluator& eval, const RunState& state, const FinalResult& f,
                             const std::vector<Row>& front) {
  const auto& sweep = eval.sweep();
  std::string s;
  if (f.partial) {
    s += "\n## Pareto front\n\nNot given: the run was interrupted.\n";
  } else {
    s += fmt::format("\n## Pareto front ({} points, by {})\n\n", front.size(),
                     metric_info(eval.objectives().front()).name);
    s += table_header(sweep);
    for (const Row& r : front) s += table_row(r);
  }
  s += "\n## Chosen design\n\n";
  if (f.partial) {
    s += "Not given: the run was interrupted.\n";
  } else if (f.chosen) {
    s += "`" + point_name(sweep, *f.chosen) + "`\n\n" + table_header(sweep) +
         table_row(result_row(eval, state, f, *f.chosen));
    s += "\nWhy: " + f.why + ".\n";
  } else {
    s += "No feasible design.\n";
  }
  return s;
}

// "<metric> <value>, ..." of the objectives in `e`.
std::string objective_figures(const SweepEvaluator& eval, const Evaluation& e) {
  std::string figs;
  for (Metric m : eval.objectives()) {
    figs += (figs.empty() ? "" : ", ") + std::string(metric_info(m).name) + " " + metric_text(m, e.metrics[m]);
  }
  return figs;
}

// How a feasible reference off the front compares with the front designs that dominate it.
std::string dominated_text(const SweepEvaluator& eval, const ReferenceStanding& ref, const Row& ref_row,
                           const std::vector<Row>& front) {
  // The fidelity of the front designs it is compared with, to show like vs like.
  std::set<Fidelity> front_fidelities;
  for (PointId d : ref.dominated_by) {
    for (const auto& r : front) {
      if (r.id == d) front_fidelities.insert(r.rec.best().fidelity);
    }
  }
  std::string fids;
  for (const auto& x : front_fidelities) fids += (fids.empty() ? "" : " and ") + std::string(fidelity_label(x));
  std::string s = fmt::format("dominated by {} front design(s) ({} figures)", ref.dominated_by.size(), fids);
  for (std::size_t o = 0; o < eval.objectives().size(); ++o) {
    if (ref.best_gain[o] > 0) {
      s += fmt::format("; best {} gain {:.2f}x (id {})", metric_info(eval.objectives()[o]).name,
                       ref.best_gain[o], ref.best_gain_point[o]);
    }
  }
  if (front_fidelities.size() > 1 ||
      (front_fidelities.size() == 1 && *front_fidelities.begin() != ref_row.rec.best().fidelity)) {
    s += "; note: the figures compared mix fidelities";
  }
  return s + ".\n";
}

// Where each reference point stands.
std::string references_text(const SweepEvaluator& eval, const RunState& state, const FinalResult& f,
                            const std::vector<Row>& front) {
  std::string s = "\n## Reference design\n\n";
  if (f.references.empty()) s += "The sweep lists no reference point.\n";
  for (const auto& ref : f.references) {
    s += fmt::format("- **{}** (id {}): ", ref.label, ref.id);
    if (!ref.evaluated) {
      s += "not evaluated in this run.\n";
      continue;
    }
    const Row ref_row = result_row(eval, state, f, ref.id);
    s += std::string(fidelity_label(ref_row.rec.best().fidelity)) + " " + objective_figures(eval, ref_row.rec.best());
    if (ref_row.rec.has_systemc) {
      s += std::string(" (") + fidelity_label(Fidelity::kAnalytic) + ": " +
           objective_figures(eval, ref_row.rec.analytic) + "; not compared)";
    }
    s += "; ";
    if (!ref.feasible) {
      s += "infeasible (" + ref.reason + ").\n";
    } else if (ref.on_front) {
      s += "on the Pareto front (no evaluated design dominates it).\n";
    } else {
      s += dominated_text(eval, ref, ref_row, front);
    }
  }
  return s;
}

std::string summary_md(const SweepEvaluator& eval, const RunState& state, const FinalResult& f,
                       const std::vector<std::string>& files) {
  const std::vector<Row> front = front_rows(eval, state, f);
  std::string s = summary_head(eval, f) + front_and_choice(eval, state, f, front) +
                  references_text(eval, state, f, front);
  std::string list;
  for (const auto& file : files) list += (list.empty() ? "" : ", ") + file;
  s += "\nFiles: " + list + ".\n";
  return s;
}

}  // namespace

std::string write_summary(const std::string& dir, const SweepEvaluator& eval, const RunState& state,
                          const FinalResult& f, const std::vector<std::string>& files) {
  const std::string text = summary_md(eval, state, f, files);
  write_file_atomic(dir + "/summary.md", text);
  return text;
}

}  // namespace ttsim::dse
