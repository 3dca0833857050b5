#include "dse/accuracy/accuracy_lookup.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "models/model_spec.h"

namespace ttsim::dse {

std::optional<double> pooled_seed_std(const AccuracyTable& t) {
  double ss = 0, dof = 0;
  for (const auto& e : t.entries) {
    if (!e.test_intent_accuracy.std || e.runs.size() < 2) continue;
    const double k = static_cast<double>(e.runs.size()) - 1;
    ss += k * *e.test_intent_accuracy.std * *e.test_intent_accuracy.std;
    dof += k;
  }
  if (dof <= 0) return std::nullopt;
  return std::sqrt(ss / dof);
}

double accuracy_standard_error(const AccuracyEntry& e, std::int64_t test_samples, std::optional<double> pooled_std) {
  const double p = e.test_intent_accuracy.mean;
  const double n = static_cast<double>(e.runs.size());
  const double s = e.runs.size() >= 2 && e.test_intent_accuracy.std ? *e.test_intent_accuracy.std
                                                                    : pooled_std.value_or(0.0);
  const double binomial = test_samples > 0 ? p * (1 - p) / static_cast<double>(test_samples) : 0.0;
  return std::sqrt(s * s / n + binomial);
}

std::optional<AccuracyKey> accuracy_key_of(const Json& model, const Json& fixed, std::string& reason) {
  if (fixed.is_object()) {
    for (auto it = fixed.begin(); it != fixed.end(); ++it) {
      if (!model.contains(it.key()) || model.at(it.key()) != it.value()) {
        reason = fmt::format("the table holds {} = {} only, this model has {}", it.key(), it.value().dump(),
                             model.contains(it.key()) ? model.at(it.key()).dump() : std::string("none"));
        return std::nullopt;
      }
    }
  }
  AccuracyKey k;
  if (!model.contains("encoders") || !model["encoders"].is_number_integer()) {
    reason = "the model has no encoder count";
    return std::nullopt;
  }
  k.encoders = model["encoders"].get<std::int64_t>();
  std::optional<std::int64_t> rank;
  const Json& layers = model.value("layers", Json::object());
  for (const char* kind : {"attention", "ffn_in", "ffn_out"}) {
    const Json& l = layers.value(kind, Json::object());
    if (l.value("format", std::string()) != "tt") continue;
    if (!l.contains("rank") || !l["rank"].is_number_integer()) {
      reason = fmt::format("the {} layers have per-core ranks, not one TT rank", kind);
      return std::nullopt;
    }
    const auto r = l["rank"].get<std::int64_t>();
    if (rank && *rank != r) {
      reason = "the TT layers do not share one rank";
      return std::nullopt;
    }
    rank = r;
  }
  if (!rank) {
    reason = "the model has no TT layers";
    return std::nullopt;
  }
  // Per-layer overrides (e.g. a rank per encoder layer): the table measures models whose TT
  // layers share one rank and shape, so any override that changes a layer is unmeasured.
  const Json overrides = model.value("overrides", Json::object());  // iterated below: must outlive the loop
  for (const auto& [layer, o] : overrides.items()) {
    if (!o.is_object()) continue;
    for (const auto& [key, v] : o.items()) {
      if (key == "rank" && v == Json(*rank)) continue;
      if (layers.value(linear_kind_of(layer), Json::object()).value(key, Json()) == v) continue;  // as its kind
      reason = fmt::format("layer {} has its own {} ({}), the TT layers do not share one rank and shape", layer, key,
                           v.dump());
      return std::nullopt;
    }
  }
  k.tt_rank = *rank;
  const Json& emb = model.value("token_embedding", Json::object());
  if (emb.value("format", std::string()) != "ttm" || !emb.contains("rank") ||
      !emb["rank"].is_number_integer()) {
    reason = "the token embedding is not TTM with one rank";
    return std::nullopt;
  }
  k.ttm_rank = emb["rank"].get<std::int64_t>();
  return k;
}

AccuracyEstimate lookup_accuracy(const AccuracyTable& t, const AccuracyKey& key) {
  AccuracyEstimate a;
  // Measured TT ranks of the same encoders and TTM rank, ascending (entries are sorted).
  std::vector<const AccuracyEntry*> same;
  for (const auto& e : t.entries) {
    if (e.key.encoders == key.encoders && e.key.ttm_rank == key.ttm_rank) same.push_back(&e);
  }
  std::sort(same.begin(), same.end(), [](const AccuracyEntry* a, const AccuracyEntry* b) {
    return a->key.tt_rank < b->key.tt_rank;
  });
  if (same.empty()) {
    a.unknown_reason = fmt::format("not measured: no entry with {} encoders and TTM rank {}",
                                   key.encoders, key.ttm_rank);
    return a;
  }
  auto fill = [&](const AccuracyEntry& e, double& mean, double& f1, double& se) {
    mean = e.test_intent_accuracy.mean;
    f1 = e.test_slot_f1.mean;
    se = accuracy_standard_error(e, t.training.test_samples, pooled_seed_std(t));
  };
  const AccuracyEntry* lo = nullptr;
  const AccuracyEntry* hi = nullptr;
  for (const auto* e : same) {
    if (e->key.tt_rank <= key.tt_rank) lo = e;
    if (e->key.tt_rank >= key.tt_rank && !hi) hi = e;
  }
  if (!lo || !hi) {
    a.unknown_reason = fmt::format("not measured: TT rank {} is outside the measured ranks {}..{} of {} "
                                   "encoders (not extrapolated)",
                                   key.tt_rank, same.front()->key.tt_rank, same.back()->key.tt_rank,
                                   key.encoders);
    return a;
  }
  if (lo == hi) {
    fill(*lo, a.mean, a.slot_f1, a.standard_error);
    a.source = "table";
  } else {
    double m0, f0, s0, m1, f1, s1;
    fill(*lo, m0, f0, s0);
    fill(*hi, m1, f1, s1);
    const double w = static_cast<double>(key.tt_rank - lo->key.tt_rank) /
                     static_cast<double>(hi->key.tt_rank - lo->key.tt_rank);
    a.mean = m0 + w * (m1 - m0);
    a.slot_f1 = f0 + w * (f1 - f0);
    a.standard_error = s0 + w * (s1 - s0);
    a.source = "interpolated";
  }
  a.lower_rank = lo->key.tt_rank;
  a.upper_rank = hi->key.tt_rank;
  a.lower_bound = a.mean - kAccuracyConfidenceZ * a.standard_error;
  return a;
}

AccuracyEstimate lookup_accuracy(const AccuracyTable& t, const Json& model) {
  std::string reason;
  const auto key = accuracy_key_of(model, t.fixed, reason);
  if (!key) {
    AccuracyEstimate a;
    a.unknown_reason = reason;
    return a;
  }
  return lookup_accuracy(t, *key);
}

}  // namespace ttsim::dse
