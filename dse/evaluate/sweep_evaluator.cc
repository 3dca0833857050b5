#include "dse/evaluate/sweep_evaluator.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "dse/evaluate/resolve.h"

namespace ttsim::dse {

namespace {

/// "accuracy = ...": what the accuracy objective is and which keys are measured.
std::string accuracy_note(const AccuracyTable& t) {
  std::string measured;
  std::size_t per_layer = 0;
  const AccuracyKey* prev = nullptr;
  for (const auto& e : t.entries) {
    const auto& k = e.key;
    if (k.per_layer()) {
      ++per_layer;
      continue;
    }
    const bool first = !prev || prev->encoders != k.encoders || prev->ttm_rank != k.ttm_rank;
    if (first) measured += fmt::format("{}{} encoders (TTM rank {}): TT ranks ", prev ? "; " : "", k.encoders, k.ttm_rank);
    measured += fmt::format("{}{}", first ? "" : ",", k.tt_rank);
    prev = &k;
  }
  if (per_layer) measured += fmt::format("; {} per-layer rank designs", per_layer);
  return fmt::format(
      "accuracy = 95 % lower confidence bound of the test intent accuracy, mean - {:g} SE over seeds "
      "and the {}-utterance test set, from {} (measured: {}); used for the objective and min_accuracy; "
      "TT ranks between two measured ranks of the same encoder count are interpolated; per-layer ranks "
      "take the least-squares line of accuracy against ln(TT parameters) through the uniform ranks where the "
      "table's per-layer trainings of that encoder count validate it, its RMS error on them added to the SE "
      "(accuracy_source); any other design's accuracy is unknown (not measured) and it is not ranked",
      kAccuracyConfidenceZ, t.training.test_samples, t.file, measured.empty() ? "nothing" : measured);
}

}  // namespace

SweepEvaluator::SweepEvaluator(const SweepSpec& sweep, Evaluators evaluators,
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
  kept_ = objectives_;
  if (std::find(kept_.begin(), kept_.end(), sweep.choose_metric) == kept_.end()) {
    kept_.push_back(sweep.choose_metric);
  }
  if (sweep.constraints.min_accuracy && !accuracy_) {
    notes_.push_back("constraint min_accuracy unavailable (not applied): no rank-accuracy table");
  }
  if (!evaluators.analytic->provides(Metric::kLut)) {
    notes_.push_back("LUT headroom not checked: the evaluator does not estimate LUTs");
  } else {
    notes_.push_back("LUT and FF headroom checked against the evaluator's estimates (simulator: the FP32 "
                     "operator cores of every kernel loop + the bank networks per access site + control per "
                     "pipelined loop fitted on real csynth reports + the multiplexers of the machine's array "
                     "bindings + the kernels' LUTRAM accumulators and transpose tiles + the top's argument "
                     "multiplexers over each module's call sites; "
                     "FFs: the cores, the kernels' lane words and LUTRAM read registers, fitted control; "
                     "docs/resources.md), not csynth figures");
  }
  if (accuracy_) notes_.push_back(accuracy_note(*accuracy_));
}

Evaluation SweepEvaluator::evaluate(PointId id, Fidelity fidelity, bool detailed,
                                   std::optional<PointConfig>* resolved) const {
  const Evaluator* ev = evaluators_.of(fidelity);
  Evaluation e;
  PointConfig p;
  try {
    p = resolve_point(sweep_, id);
    e = ev->evaluate(p, detailed);
  } catch (const std::exception& ex) {
    e = Evaluation();
    e.error = ex.what();
  }
  e.fidelity = fidelity;
  if (resolved && p.space) *resolved = std::move(p);  // p.space is set once it resolved
  const PointConfig& pc = resolved && *resolved ? **resolved : p;
  if (accuracy_ && e.error.empty()) {
    // Exact (encoders, TTM rank) match, TT rank measured or between measured ranks
    // (dse/accuracy/accuracy_lookup.h); otherwise "unknown".
    std::string why;
    if (const auto key = accuracy_key_of(pc.model(), Json(), why)) e.tt_rank = key->tt_rank;
    const AccuracyEstimate a = lookup_accuracy(*accuracy_, pc.model());
    e.accuracy_source = a.source;
    if (!a.known()) e.accuracy_unknown = a.unknown_reason;
    if (a.known()) {
      e.metrics[Metric::kAccuracy] = a.lower_bound;
      e.metrics[Metric::kSlotF1] = a.slot_f1;
    }
  }
  return e;
}

Verdict SweepEvaluator::judge(const Evaluation& e) const {
  return dse::judge(e, sweep_.constraints, device_, objectives_, accuracy_.has_value());
}

}  // namespace ttsim::dse
