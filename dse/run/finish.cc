#include "dse/run/finish.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ttsim::dse {

namespace {

// The Pareto front of the run's points (pareto_front of their candidates), ascending id:
// each point's candidate is made and offered in turn, so memory follows the front, not the
// run (dse/search/pareto.h ParetoArchive). Only feasible points can be on it.
std::vector<Candidate> front_of(const SweepEvaluator& eval, const RunState& state) {
  ParetoArchive archive;
  for (const auto& [id, s] : state.points) {
    if (s.feasible) archive.offer(s.candidate(eval, id));
  }
  return archive.sorted();
}

std::string fmt_metric(Metric m, double v) {
  return fmt::format("{:.4g} {}", v, metric_info(m).unit);
}

// A SystemC batch cut short: by Ctrl-C it makes the run partial (never a finished front); by
// the time budget the run is finished with `note`.
void cut_short(const BatchRunner& runner, RunState& state, FinalResult& f, const char* note) {
  if (runner.stopped() == StopReason::kInterrupted) {
    f.partial = true;
  } else {
    f.notes.push_back(note);
    state.systemc_pending.clear();
  }
}

// Rounds of SystemC for the front points that lack it, until the front is all SystemC.
void systemc_rounds(const SweepEvaluator& eval, RunState& state, BatchRunner& runner, FinalResult& f) {
  for (int round = 0; round < 1000 && !f.partial; ++round) {
    std::vector<PointId> missing;
    for (const Candidate& x : front_of(eval, state)) {
      if (!state.points.at(x.id).has_systemc()) missing.push_back(x.id);
    }
    if (missing.empty()) break;
    ++f.systemc_rounds;
    std::sort(missing.begin(), missing.end());
    // Saved before the round's first evaluation reaches the log: a resumed run completes
    // this round rather than choosing another from a partly evaluated one.
    state.systemc_pending = missing;
    state.systemc_rounds = f.systemc_rounds;
    runner.checkpoint();
    runner.stage_line(fmt::format("SystemC stage, round {}: {} front design(s) re-simulated", f.systemc_rounds,
                                  missing.size()));
    const auto got = runner.run(missing, Fidelity::kSystemC);
    if (got.size() < missing.size()) {
      cut_short(runner, state, f, "SystemC stage stopped early; the front mixes fidelities");
      break;
    }
    state.systemc_pending.clear();
  }
}

// The SystemC stage of systemc_pareto (see finish_run).
void systemc_stage(const SweepEvaluator& eval, RunState& state, BatchRunner& runner, FinalResult& f) {
  // The reference points first, so the reference comparison is SystemC against SystemC
  // (their analytic figures have no port contention and undercut the SystemC front).
  std::vector<PointId> refs;
  for (PointId ref : eval.sweep().space.references()) {
    auto it = state.points.find(ref);
    if (it != state.points.end() && !it->second.has_systemc()) refs.push_back(ref);
  }
  if (!refs.empty() && runner.run(refs, Fidelity::kSystemC).size() < refs.size()) {
    cut_short(runner, state, f, "SystemC stage stopped early; some reference points keep analytic figures");
  }
  f.systemc_rounds = state.systemc_rounds;  // of the runs this one resumes
  // The round an interrupted run left unfinished comes first.
  if (!f.partial && !state.systemc_pending.empty()) {
    const std::vector<PointId> pending = state.systemc_pending;
    if (runner.run(pending, Fidelity::kSystemC).size() < pending.size()) {
      cut_short(runner, state, f, "SystemC stage stopped early; the front mixes fidelities");
    } else {
      state.systemc_pending.clear();
    }
  }
  systemc_rounds(eval, state, runner, f);
}

// "; tied with ..." when other front designs equal the chosen one (index `ci` of `front`)
// on the choose metric (`key`): which, and the rule that broke the tie (the objectives in
// order, then the lowest point id); "" when none does.
template <typename Key>
std::string tie_text(const SweepEvaluator& eval, const std::vector<Candidate>& front, std::size_t ci, Key key) {
  const PointId chosen = front[ci].id;
  std::vector<PointId> same_objectives, same_metric;
  for (const Candidate& x : front) {
    if (x.id == chosen || key(x.id) != key(chosen)) continue;
    (x.objectives == front[ci].objectives ? same_objectives : same_metric).push_back(x.id);
  }
  if (same_objectives.empty() && same_metric.empty()) return "";
  std::string objs;
  for (Metric m : eval.objectives()) objs += (objs.empty() ? "" : ", ") + std::string(metric_info(m).name);
  const std::string metric = metric_info(eval.sweep().choose_metric).name;
  auto ids = [](const std::vector<PointId>& v) {
    std::string s;
    for (PointId id : v) s += (s.empty() ? "" : ", ") + std::to_string(id);
    return s;
  };
  std::string s;
  if (!same_metric.empty()) {
    s += fmt::format("; tied on {} with design{} {}, which the objectives in order ({}) "
                     "rank after it",
                     metric, same_metric.size() == 1 ? "" : "s", ids(same_metric), objs);
  }
  if (!same_objectives.empty()) {
    s += fmt::format("; tied with design{} {} on every objective ({}){}: the tie is broken by the lowest point id "
                     "(chosen {})",
                     same_objectives.size() == 1 ? "" : "s", ids(same_objectives), objs,
                     objs.find(metric) == std::string::npos ? " and on " + metric : "", chosen);
  }
  return s;
}

// The chosen design: best choose_metric on the front, then the objectives, then id; its
// detailed evaluation and why, stating any tie and the rule that broke it.
void choose(const SweepEvaluator& eval, const RunState& state, const std::vector<Candidate>& front,
            FinalResult& f) {
  const Metric cm = eval.sweep().choose_metric;
  const bool maximize = metric_info(cm).maximize;
  auto key = [&](PointId id) {
    const double v = state.points.at(id).figure(eval, cm);
    return std::isnan(v) ? INFINITY : (maximize ? -v : v);
  };
  std::size_t ci = 0;  // index in `front` of the chosen design
  for (std::size_t i = 0; i < front.size(); ++i) {
    const PointId id = front[i].id;
    if (!f.chosen) {
      f.chosen = id;
      ci = i;
      continue;
    }
    const PointId cur = *f.chosen;
    if (key(id) < key(cur) ||
        (key(id) == key(cur) &&
         (front[i].objectives < front[ci].objectives ||
          (front[i].objectives == front[ci].objectives && id < cur)))) {
      f.chosen = id;
      ci = i;
    }
  }
  if (!f.chosen) {
    f.why = "no feasible design";
    return;
  }
  const PointRecord r = state.record(*f.chosen);
  const bool sc = r.has_systemc && eval.evaluators().systemc;
  f.chosen_detail = eval.evaluate(*f.chosen, sc ? Fidelity::kSystemC : Fidelity::kAnalytic, true);
  std::string objs;
  for (Metric m : eval.objectives()) objs += (objs.empty() ? "" : ", ") + std::string(metric_info(m).name);
  f.why = fmt::format(
      "feasible under every constraint and on the Pareto front of ({}) evaluated with {}; "
      "{} {} among the {} front designs ({})",
      objs, to_string(r.best().fidelity), maximize ? "highest" : "lowest", metric_info(cm).name,
      f.front.size(), fmt_metric(cm, r.best().metrics[cm]));
  f.why += tie_text(eval, front, ci, key);
}

// Where reference point `ref` stands against the front.
ReferenceStanding standing_of(const SweepEvaluator& eval, const RunState& state, const std::vector<Candidate>& front,
                              const FinalResult& f, PointId ref) {
  ReferenceStanding s;
  s.id = ref;
  eval.sweep().space.is_reference(ref, &s.label);
  auto it = state.points.find(ref);
  if (it == state.points.end()) return s;
  const PointRecord r = state.record(ref);
  s.evaluated = true;
  s.fidelity = r.best().fidelity;
  const Candidate rc = it->second.candidate(eval, ref);
  const Verdict v = eval.judge(r.best());
  s.feasible = v.feasible;
  s.reason = v.reason;
  s.on_front = std::binary_search(f.front.begin(), f.front.end(), ref);
  const auto& objs = eval.objectives();
  s.best_gain.assign(objs.size(), 0.0);
  s.best_gain_point.assign(objs.size(), 0);
  for (const Candidate& x : front) {
    if (x.id == ref) continue;
    if (!(s.feasible ? dominates(x.objectives, rc.objectives) : true)) continue;
    s.dominated_by.push_back(x.id);
    for (std::size_t o = 0; o < objs.size(); ++o) {
      const double rv = r.best().metrics[objs[o]];
      const double fv = state.points.at(x.id).figure(eval, objs[o]);
      const double gain = metric_info(objs[o]).maximize ? fv / rv : rv / fv;
      if (gain > s.best_gain[o]) {
        s.best_gain[o] = gain;
        s.best_gain_point[o] = x.id;
      }
    }
  }
  return s;
}

}  // namespace

bool FinalResult::on_front(PointId id) const { return std::binary_search(front.begin(), front.end(), id); }

FinalResult finish_run(const SweepEvaluator& eval, RunState& state, BatchRunner& runner,
                       bool partial) {
  FinalResult f;
  f.partial = partial;
  f.notes = eval.notes();
  const SweepSpec& sweep = eval.sweep();
  if (sweep.systemc != SystemcScope::kNone && !eval.evaluators().systemc) {
    f.notes.push_back("SystemC stage skipped: no SystemC evaluator is available");
  } else if (sweep.systemc == SystemcScope::kParetoFront && !partial) {
    systemc_stage(eval, state, runner, f);
  }
  if (f.partial && !partial) {
    f.notes.push_back("interrupted during the SystemC stage: figures mix fidelities and the front "
                      "is not final; --resume completes it");
  }
  if (partial) f.notes.push_back("interrupted: results cover the points evaluated so far");

  const std::vector<Candidate> front = front_of(eval, state);
  for (const Candidate& x : front) f.front.push_back(x.id);  // ascending
  f.evaluated = state.points.size();
  for (const auto& [id, s] : state.points) {
    (void)id;
    f.feasible += s.feasible;
    f.failed += s.failed;
    f.systemc_points += s.has_systemc();
  }
  choose(eval, state, front, f);
  for (PointId ref : sweep.space.references()) f.references.push_back(standing_of(eval, state, front, f, ref));
  return f;
}

}  // namespace ttsim::dse
