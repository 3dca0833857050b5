#include "dse/finish.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ttsim::dse {

namespace {

std::vector<Candidate> candidates(const SweepEvaluation& eval, const RunState& state) {
  std::vector<Candidate> c;
  c.reserve(state.points.size());
  for (const auto& [id, r] : state.points) c.push_back(eval.candidate(id, r.best()));
  return c;
}

std::string fmt_metric(Metric m, double v) {
  return fmt::format("{:.4g} {}", v, metric_info(m).unit);
}

}  // namespace

FinalResult finish_run(const SweepEvaluation& eval, RunState& state, BatchRunner& runner,
                       bool partial) {
  FinalResult f;
  f.partial = partial;
  f.notes = eval.notes();
  const SweepSpec& sweep = eval.sweep();
  const bool want_systemc = sweep.fidelity == Fidelity::kSystemcPareto && !partial;
  if (sweep.fidelity != Fidelity::kAnalytic && !eval.evaluators().systemc) {
    f.notes.push_back("SystemC stage skipped: no SystemC evaluator is available");
  } else if (want_systemc) {
    // The reference points first, so the reference comparison is SystemC against SystemC
    // (their analytic figures have no port contention and undercut the SystemC front).
    std::vector<PointId> refs;
    for (PointId ref : sweep.space.references()) {
      auto it = state.points.find(ref);
      if (it != state.points.end() && !it->second.has_systemc) refs.push_back(ref);
    }
    // A SystemC batch cut short by Ctrl-C makes the run partial (never a finished front);
    // one cut short by the time budget is finished with a note.
    auto cut_short = [&](const char* note) {
      if (runner.stopped() == StopReason::kInterrupted) {
        f.partial = true;
      } else {
        f.notes.push_back(note);
        state.systemc_pending.clear();
      }
    };
    if (!refs.empty() && runner.run(refs, true).size() < refs.size()) {
      cut_short("SystemC stage stopped early; some reference points keep analytic figures");
    }
    f.systemc_rounds = state.systemc_rounds;  // of the runs this one resumes
    // The round an interrupted run left unfinished comes first.
    if (!f.partial && !state.systemc_pending.empty()) {
      const std::vector<PointId> pending = state.systemc_pending;
      if (runner.run(pending, true).size() < pending.size()) {
        cut_short("SystemC stage stopped early; the front mixes fidelities");
      } else {
        state.systemc_pending.clear();
      }
    }
    for (int round = 0; round < 1000 && !f.partial; ++round) {
      const auto c = candidates(eval, state);
      std::vector<PointId> missing;
      for (std::size_t i : pareto_front(c)) {
        const PointRecord& r = state.points.at(c[i].id);
        if (!r.has_systemc) missing.push_back(c[i].id);
      }
      if (missing.empty()) break;
      ++f.systemc_rounds;
      std::sort(missing.begin(), missing.end());
      state.systemc_pending = missing;  // saved with each checkpoint of the round
      state.systemc_rounds = f.systemc_rounds;
      const auto got = runner.run(missing, true);
      if (got.size() < missing.size()) {
        cut_short("SystemC stage stopped early; the front mixes fidelities");
        break;
      }
      state.systemc_pending.clear();
    }
  }
  if (f.partial && !partial) {
    f.notes.push_back("interrupted during the SystemC stage: figures mix fidelities and the front "
                      "is not final; --resume completes it");
  }
  if (partial) f.notes.push_back("interrupted: results cover the points evaluated so far");

  const auto c = candidates(eval, state);
  const auto front_idx = pareto_front(c);
  std::vector<bool> front_flag(c.size(), false);
  for (std::size_t i : front_idx) front_flag[i] = true;
  std::size_t k = 0;
  for (const auto& [id, r] : state.points) {
    f.ids.push_back(id);
    f.verdicts.push_back(eval.judge(r.best()));
    f.on_front.push_back(front_flag[k]);
    if (front_flag[k]) f.front.push_back(id);
    if (r.has_systemc) ++f.systemc_points;
    ++k;
  }

  // The chosen design: best choose_metric on the front, then the objectives, then id.
  const Metric cm = sweep.choose_metric;
  const bool maximize = metric_info(cm).maximize;
  auto key = [&](PointId id) {
    const double v = state.points.at(id).best().metrics[cm];
    return std::isnan(v) ? INFINITY : (maximize ? -v : v);
  };
  for (std::size_t i : front_idx) {
    const PointId id = c[i].id;
    if (!f.chosen) {
      f.chosen = id;
      continue;
    }
    const PointId cur = *f.chosen;
    const std::size_t ci = std::distance(
        f.ids.begin(), std::lower_bound(f.ids.begin(), f.ids.end(), cur));
    if (key(id) < key(cur) ||
        (key(id) == key(cur) &&
         (c[i].objectives < c[ci].objectives ||
          (c[i].objectives == c[ci].objectives && id < cur)))) {
      f.chosen = id;
    }
  }
  if (f.chosen) {
    const PointRecord& r = state.points.at(*f.chosen);
    const bool sc = r.has_systemc && eval.evaluators().systemc;
    f.chosen_detail = eval.evaluate(*f.chosen, sc, true);
    std::string objs;
    for (Metric m : eval.objectives()) objs += (objs.empty() ? "" : ", ") + std::string(metric_info(m).name);
    f.why = fmt::format(
        "feasible under every constraint and on the Pareto front of ({}) evaluated with {}; "
        "{} {} among the {} front designs ({})",
        objs, r.best().fidelity, maximize ? "highest" : "lowest", metric_info(cm).name,
        f.front.size(), fmt_metric(cm, r.best().metrics[cm]));
  } else {
    f.why = "no feasible design";
  }

  // Reference points against the front.
  for (PointId ref : sweep.space.references()) {
    ReferenceStanding s;
    s.id = ref;
    sweep.space.is_reference(ref, &s.label);
    auto it = state.points.find(ref);
    if (it != state.points.end()) {
      s.evaluated = true;
      s.fidelity = it->second.best().fidelity;
      const Candidate rc = eval.candidate(ref, it->second.best());
      const Verdict v = eval.judge(it->second.best());
      s.feasible = v.feasible;
      s.reason = v.reason;
      s.on_front = std::binary_search(f.front.begin(), f.front.end(), ref);
      const auto& objs = eval.objectives();
      s.best_gain.assign(objs.size(), 0.0);
      s.best_gain_point.assign(objs.size(), 0);
      for (std::size_t i : front_idx) {
        if (c[i].id == ref) continue;
        if (!(s.feasible ? dominates(c[i].objectives, rc.objectives) : true)) continue;
        s.dominated_by.push_back(c[i].id);
        for (std::size_t o = 0; o < objs.size(); ++o) {
          const double rv = it->second.best().metrics[objs[o]];
          const double fv = state.points.at(c[i].id).best().metrics[objs[o]];
          const double gain = metric_info(objs[o]).maximize ? fv / rv : rv / fv;
          if (gain > s.best_gain[o]) {
            s.best_gain[o] = gain;
            s.best_gain_point[o] = c[i].id;
          }
        }
      }
    }
    f.references.push_back(std::move(s));
  }
  return f;
}

}  // namespace ttsim::dse
