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
std::string fidelity_label(Fidelity fidelity) {
  return fidelity == Fidelity::kSystemC ? "SystemC" : "analytic model (no port contention)";
}

std::string summary_md(const SweepEvaluator& eval, const RunState& state, const FinalResult& f,
                       const std::vector<std::string>& files) {
  const auto& sweep = eval.sweep();
  const std::uint64_t feasible = f.feasible;
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
  s += fmt::format("- evaluated: {} points ({} feasible); Pareto front: {} points; SystemC-evaluated: {} "
                   "points in {} round(s); fidelity `{}`\n",
                   f.evaluated, feasible, f.front.size(), f.systemc_points, f.systemc_rounds,
                   to_string(sweep.systemc));
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
    for (Metric m : show) line += " " + metric_text(m, r.rec.best().metrics[m]) + " |";
    return line + " " + to_string(r.rec.best().fidelity) + " |\n";
  };
  // Front sorted by the first objective (then id).
  const std::vector<Row> front = front_rows(eval, state, f);
  const Metric first = eval.objectives().front();
  if (f.partial) {
    s += "\n## Pareto front\n\nNot given: the run was interrupted.\n";
  } else {
    s += fmt::format("\n## Pareto front ({} points, by {})\n\n", front.size(), metric_info(first).name);
    s += table_header();
    for (const Row& r : front) s += table_row(r);
  }

  s += "\n## Chosen design\n\n";
  if (f.partial) {
    s += "Not given: the run was interrupted.\n";
  } else if (f.chosen) {
    s += "`" + point_name(sweep, *f.chosen) + "`\n\n" + table_header() +
         table_row(result_row(eval, state, f, *f.chosen));
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
    const Row ref_row = result_row(eval, state, f, ref.id);
    auto figures = [&](const Evaluation& e) {
      std::string figs;
      for (Metric m : eval.objectives()) {
        figs += (figs.empty() ? "" : ", ") + std::string(metric_info(m).name) + " " +
                metric_text(m, e.metrics[m]);
      }
      return figs;
    };
    s += fidelity_label(ref_row.rec.best().fidelity) + " " + figures(ref_row.rec.best());
    if (ref_row.rec.has_systemc) {
      s += " (" + fidelity_label(Fidelity::kAnalytic) + ": " + figures(ref_row.rec.analytic) + "; not compared)";
    }
    s += "; ";
    if (!ref.feasible) {
      s += "infeasible (" + ref.reason + ").\n";
    } else if (ref.on_front) {
      s += "on the Pareto front (no evaluated design dominates it).\n";
    } else {
      // The fidelity of the front designs it is compared with, to show like vs like.
      std::set<Fidelity> front_fidelities;
      for (PointId d : ref.dominated_by) {
        for (const auto& r : front) {
          if (r.id == d) front_fidelities.insert(r.rec.best().fidelity);
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
      if (front_fidelities.size() > 1 || (front_fidelities.size() == 1 &&
                                           *front_fidelities.begin() != ref_row.rec.best().fidelity)) {
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

std::string write_summary(const std::string& dir, const SweepEvaluator& eval, const RunState& state,
                          const FinalResult& f, const std::vector<std::string>& files) {
  const std::string text = summary_md(eval, state, f, files);
  write_file_atomic(dir + "/summary.md", text);
  return text;
}

}  // namespace ttsim::dse
