#include "dse/sweep_evaluation.h"

#include <fmt/format.h>

#include "dse/resolve.h"

namespace ttsim::dse {

SweepEvaluation::SweepEvaluation(const SweepSpec& sweep, Evaluators evaluators,
                                 std::optional<AccuracyTable> accuracy)
    : sweep_(sweep),
      evaluators_(evaluators),
      accuracy_(std::move(accuracy)),
      device_(parse_device_spec(sweep.device_doc, sweep.device_file)) {
  const auto from_table = [](Metric m) { return m == Metric::kAccuracy || m == Metric::kSlotF1; };
  for (Metric m : sweep.objectives) {
    const bool ok = from_table(m) ? accuracy_.has_value() : evaluators.analytic->provides(m);
    if (ok) {
      objectives_.push_back(m);
    } else {
      notes_.push_back(std::string("objective ") + metric_info(m).name +
                       (from_table(m)
                            ? " unavailable: no rank-accuracy table (" +
                                  (sweep.accuracy_table_requested.empty()
                                       ? std::string("none given")
                                       : sweep.accuracy_table_requested + " does not exist") +
                                  ")"
                            : m == Metric::kEpochEnergyJoules
                                  ? " unavailable: needs the dataset lengths and the device's power coefficients"
                                  : " unavailable: the evaluator does not compute it"));
    }
  }
  if (objectives_.empty()) {
    throw InputError(sweep.file + ": /objectives: none of the objectives can be computed");
  }
  if (sweep.constraints.min_accuracy && !accuracy_) {
    notes_.push_back("constraint min_accuracy unavailable (not applied): no rank-accuracy table");
  }
  if (!evaluators.analytic->provides(Metric::kLut)) {
    notes_.push_back("LUT headroom not checked: the evaluator does not estimate LUTs");
  } else {
    notes_.push_back("LUT headroom checked against the evaluator's LUT estimate (simulator: 300 LUTs "
                     "per FP32 lane + control per unit instance and bank + the bank networks' multiplexers "
                     "per access site, sim/power), not a csynth figure");
  }
  if (accuracy_) {
    notes_.push_back(fmt::format(
        "accuracy = test intent accuracy from {} (ranks {}..{}); ranks between two listed ranks are "
        "interpolated linearly (accuracy_source), ranks outside are unavailable",
        accuracy_->file, accuracy_->ranks.front().rank, accuracy_->ranks.back().rank));
  }
}

Evaluation SweepEvaluation::evaluate(PointId id, bool systemc, bool detailed) const {
  const Evaluator* ev = systemc ? evaluators_.systemc : evaluators_.analytic;
  Evaluation e;
  PointConfig p;
  try {
    p = resolve_point(sweep_, id);
    e = ev->evaluate(p, detailed);
  } catch (const std::exception& ex) {
    e = Evaluation();
    e.error = ex.what();
  }
  if (e.fidelity.empty()) e.fidelity = ev->fidelity();
  if (accuracy_ && e.error.empty()) {
    // Accuracy is known for a rank shared by every TT layer kind, within the table.
    std::optional<std::int64_t> rank;
    bool uniform = true;
    if (p.model.contains("layers")) {
      for (const char* k : {"attention", "ffn_in", "ffn_out"}) {
        const Json& l = p.model["layers"].value(k, Json::object());
        if (l.value("format", std::string()) != "tt") continue;
        if (!l.contains("rank")) {
          uniform = false;
          continue;
        }
        const auto r = l["rank"].get<std::int64_t>();
        if (rank && *rank != r) uniform = false;
        rank = r;
      }
    }
    if (rank && uniform) {
      e.tt_rank = *rank;
      if (const auto a = accuracy_->at(*rank)) {
        e.metrics[Metric::kAccuracy] = a->intent_accuracy;
        e.metrics[Metric::kSlotF1] = a->slot_f1;
        e.accuracy_source = a->source();
      }
    }
  }
  return e;
}

Verdict SweepEvaluation::judge(const Evaluation& e) const {
  return dse::judge(e, sweep_.constraints, device_, objectives_, accuracy_.has_value());
}

Candidate SweepEvaluation::candidate(PointId id, const Evaluation& e) const {
  return make_candidate(id, e, judge(e), objectives_);
}

}  // namespace ttsim::dse
