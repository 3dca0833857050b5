#include "dse/accuracy/accuracy_lookup.h"

#include <algorithm>
#include <cmath>
#include <map>
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

namespace {

/// A model's key with its parsed spec (the layer shapes the per-layer model needs).
struct Keyed {
  AccuracyKey key;
  ModelSpec spec;
};

std::optional<Keyed> keyed(const Json& model, const Json& fixed, std::string& reason) {
  if (fixed.is_object()) {
    for (auto it = fixed.begin(); it != fixed.end(); ++it) {
      if (!model.contains(it.key()) || model.at(it.key()) != it.value()) {
        reason = fmt::format("the table holds {} = {} only, this model has {}", it.key(), it.value().dump(),
                             model.contains(it.key()) ? model.at(it.key()).dump() : std::string("none"));
        return std::nullopt;
      }
    }
  }
  Keyed k;
  try {
    k.spec = parse_model_spec(model, model.value("name", std::string("model")));
  } catch (const std::exception& e) {
    reason = std::string("the model does not parse: ") + e.what();
    return std::nullopt;
  }
  k.key.encoders = k.spec.encoders;
  // One rank per TT encoder layer; every layer of a kind in its kind's shape.
  std::map<std::string, const LinearLayerSpec*> first_of_kind;
  for (const auto& l : k.spec.linears) {
    if (l.encoder < 0 || l.format != WeightFormat::kTT) continue;
    const auto& r = l.tt.ranks;
    if (r.size() < 3 || std::any_of(r.begin() + 1, r.end() - 1, [&](std::int64_t x) { return x != r[1]; })) {
      reason = fmt::format("layer {} has per-core ranks, not one TT rank", l.name);
      return std::nullopt;
    }
    const auto [first, inserted] = first_of_kind.emplace(l.kind, &l);
    if (!inserted && (first->second->tt.in_factors != l.tt.in_factors ||
                      first->second->tt.out_factors != l.tt.out_factors)) {
      reason = fmt::format("layer {} has its own TT shape (not its kind's: {}'s)", l.name, first->second->name);
      return std::nullopt;
    }
    k.key.layer_ranks[l.name] = r[1];
  }
  if (k.key.layer_ranks.empty()) {
    reason = "the model has no TT layers";
    return std::nullopt;
  }
  const std::int64_t r0 = k.key.layer_ranks.begin()->second;
  if (std::all_of(k.key.layer_ranks.begin(), k.key.layer_ranks.end(),
                  [&](const auto& l) { return l.second == r0; })) {
    k.key.tt_rank = r0;
    k.key.layer_ranks.clear();
  }
  const EmbeddingSpec& emb = k.spec.token_embedding;
  const auto& er = emb.ttm.ranks;
  if (emb.format != WeightFormat::kTTM || er.size() < 3 ||
      std::any_of(er.begin() + 1, er.end() - 1, [&](std::int64_t x) { return x != er[1]; })) {
    reason = "the token embedding is not TTM with one rank";
    return std::nullopt;
  }
  k.key.ttm_rank = er[1];
  return k;
}

/// Words of `spec`'s TT encoder layers with every layer's interior ranks set to rank_of(name).
template <class RankOf>
std::int64_t tt_words(const ModelSpec& spec, RankOf rank_of) {
  std::int64_t words = 0;
  for (const auto& l : spec.linears) {
    if (l.encoder < 0 || l.format != WeightFormat::kTT) continue;
    TtShape t = l.tt;
    const std::int64_t r = rank_of(l.name);
    for (std::size_t i = 1; i + 1 < t.ranks.size(); ++i) t.ranks[i] = r;
    words += t.total_words();
  }
  return words;
}

/// The uniform entries of (encoders, TTM rank), ascending TT rank.
std::vector<const AccuracyEntry*> uniform_entries(const AccuracyTable& t, std::int64_t encoders, std::int64_t ttm) {
  std::vector<const AccuracyEntry*> same;
  for (const auto& e : t.entries) {
    if (e.key.encoders == encoders && e.key.ttm_rank == ttm && !e.key.per_layer()) same.push_back(&e);
  }
  std::sort(same.begin(), same.end(), [](const AccuracyEntry* a, const AccuracyEntry* b) {
    return a->key.tt_rank < b->key.tt_rank;
  });
  return same;
}

void fill_from(const AccuracyTable& t, const AccuracyEntry& e, double& mean, double& f1, double& se) {
  mean = e.test_intent_accuracy.mean;
  f1 = e.test_slot_f1.mean;
  se = accuracy_standard_error(e, t.training.test_samples, pooled_seed_std(t));
}

/// Linear interpolation between the uniform entries bracketing `x` (their positions `pos`,
/// ascending with the entries): mean, slot F1 and SE into `a` with source `source`, and the
/// ranks used. False with `a.unknown_reason` when `x` lies outside.
bool interpolate(const AccuracyTable& t, const std::vector<const AccuracyEntry*>& same,
                 const std::vector<double>& pos, double x, const std::string& what, const char* source,
                 AccuracyEstimate& a) {
  std::size_t lo = same.size(), hi = same.size();
  for (std::size_t i = 0; i < same.size(); ++i) {
    if (pos[i] <= x) lo = i;
    if (pos[i] >= x && hi == same.size()) hi = i;
  }
  if (lo == same.size() || hi == same.size()) {
    a.unknown_reason = fmt::format("not measured: {} is outside the measured ranks {}..{} of {} encoders "
                                   "(not extrapolated)",
                                   what, same.front()->key.tt_rank, same.back()->key.tt_rank,
                                   same.front()->key.encoders);
    return false;
  }
  double m0, f0, s0, m1, f1, s1;
  fill_from(t, *same[lo], m0, f0, s0);
  fill_from(t, *same[hi], m1, f1, s1);
  const double w = lo == hi ? 0.0 : (x - pos[lo]) / (pos[hi] - pos[lo]);
  a.mean = m0 + w * (m1 - m0);
  a.slot_f1 = f0 + w * (f1 - f0);
  a.standard_error = s0 + w * (s1 - s0);
  a.source = source;
  a.lower_rank = same[lo]->key.tt_rank;
  a.upper_rank = same[hi]->key.tt_rank;
  a.lower_bound = a.mean - kAccuracyConfidenceZ * a.standard_error;
  return true;
}

/// Least-squares line y = c0 + c1·x through (x_i, y_i), with the standard error of its value
/// at x: s·sqrt(1/n + (x − x̄)²/Sxx), s² = Σ residual² / (n − 2). Needs n >= 3 distinct x.
struct LineFit {
  double c0 = 0, c1 = 0, xbar = 0, sxx = 0, s = 0;
  std::size_t n = 0;
  LineFit(const std::vector<double>& x, const std::vector<double>& y) : n(x.size()) {
    double ybar = 0;
    for (std::size_t i = 0; i < n; ++i) {
      xbar += x[i];
      ybar += y[i];
    }
    xbar /= static_cast<double>(n);
    ybar /= static_cast<double>(n);
    double sxy = 0;
    for (std::size_t i = 0; i < n; ++i) {
      sxx += (x[i] - xbar) * (x[i] - xbar);
      sxy += (x[i] - xbar) * (y[i] - ybar);
    }
    c1 = sxy / sxx;
    c0 = ybar - c1 * xbar;
    double ss = 0;
    for (std::size_t i = 0; i < n; ++i) ss += (y[i] - at(x[i])) * (y[i] - at(x[i]));
    s = std::sqrt(ss / static_cast<double>(n - 2));
  }
  double at(double x) const { return c0 + c1 * x; }
  double se(double x) const { return s * std::sqrt(1.0 / static_cast<double>(n) + (x - xbar) * (x - xbar) / sxx); }
};

/// The per-layer model alone (no validation): the least-squares lines of mean test intent
/// accuracy and slot F1 against ln(TT weight parameters) through the uniform entries of the
/// key's encoders and TTM rank, at the design's TT weight parameters (`spec`'s layers at the
/// key's ranks), within the uniform entries' parameter range.
AccuracyEstimate per_layer_model(const AccuracyTable& t, const ModelSpec& spec, const AccuracyKey& key) {
  AccuracyEstimate a;
  const auto same = uniform_entries(t, key.encoders, key.ttm_rank);
  if (same.size() < 3) {
    a.unknown_reason = fmt::format("not measured: the per-layer model needs 3 uniform-rank entries with {} "
                                   "encoders and TTM rank {}, the table has {}",
                                   key.encoders, key.ttm_rank, same.size());
    return a;
  }
  // Every TT layer at a rank within the measured uniform ranks (the held-out designs' ranks
  // lie there too): the line is not extrapolated layer by layer either.
  const std::int64_t lo = same.front()->key.tt_rank, hi = same.back()->key.tt_rank;
  for (const auto& l : spec.linears) {
    if (l.encoder < 0 || l.format != WeightFormat::kTT) continue;
    const auto it = key.layer_ranks.find(l.name);
    if (it == key.layer_ranks.end()) {
      a.unknown_reason = fmt::format("layer {} has no rank in the per-layer key", l.name);
      return a;
    }
    if (it->second < lo || it->second > hi) {
      a.unknown_reason = fmt::format("not measured: layer {} at TT rank {} is outside the measured ranks {}..{} of {} "
                                     "encoders (not extrapolated)",
                                     l.name, it->second, lo, hi, key.encoders);
      return a;
    }
  }
  for (const auto& [layer, rank] : key.layer_ranks) {
    if (std::none_of(spec.linears.begin(), spec.linears.end(), [&](const auto& l) { return l.name == layer; })) {
      a.unknown_reason = fmt::format("layer {} is not a layer of this model", layer);
      return a;
    }
  }
  a.tt_weight_params = tt_words(spec, [&](const std::string& name) { return key.layer_ranks.at(name); });
  std::vector<double> x, acc, f1;
  for (const auto* e : same) {
    x.push_back(std::log(static_cast<double>(tt_words(spec, [&](const std::string&) { return e->key.tt_rank; }))));
    acc.push_back(e->test_intent_accuracy.mean);
    f1.push_back(e->test_slot_f1.mean);
  }
  const double w = std::log(static_cast<double>(a.tt_weight_params));
  if (w < x.front() || w > x.back()) {
    a.unknown_reason = fmt::format("not measured: its {} TT weight parameters are outside those of the measured "
                                   "ranks {}..{} of {} encoders (not extrapolated)",
                                   a.tt_weight_params, same.front()->key.tt_rank, same.back()->key.tt_rank,
                                   key.encoders);
    return a;
  }
  const LineFit fa(x, acc), ff(x, f1);
  a.mean = fa.at(w);
  a.slot_f1 = ff.at(w);
  a.standard_error = std::sqrt(fa.se(w) * fa.se(w) + a.mean * (1 - a.mean) / static_cast<double>(t.training.test_samples));
  a.source = "per_layer_model";
  a.lower_rank = same.front()->key.tt_rank;
  a.upper_rank = same.back()->key.tt_rank;
  a.lower_bound = a.mean - kAccuracyConfidenceZ * a.standard_error;
  return a;
}

}  // namespace

std::optional<AccuracyKey> accuracy_key_of(const Json& model, const Json& fixed, std::string& reason) {
  auto k = keyed(model, fixed, reason);
  if (!k) return std::nullopt;
  return std::move(k->key);
}

AccuracyEstimate lookup_accuracy(const AccuracyTable& t, const AccuracyKey& key) {
  AccuracyEstimate a;
  if (key.per_layer()) {
    if (const AccuracyEntry* e = t.find(key)) {
      fill_from(t, *e, a.mean, a.slot_f1, a.standard_error);
      a.source = "table";
      a.lower_bound = a.mean - kAccuracyConfidenceZ * a.standard_error;
    } else {
      a.unknown_reason = "not measured: these per-layer TT ranks (the per-layer model needs the model's layer shapes)";
    }
    return a;
  }
  const auto same = uniform_entries(t, key.encoders, key.ttm_rank);
  if (same.empty()) {
    a.unknown_reason = fmt::format("not measured: no entry with {} encoders and TTM rank {}",
                                   key.encoders, key.ttm_rank);
    return a;
  }
  std::vector<double> pos;
  for (const auto* e : same) pos.push_back(static_cast<double>(e->key.tt_rank));
  const bool exact = std::any_of(same.begin(), same.end(), [&](const auto* e) { return e->key.tt_rank == key.tt_rank; });
  interpolate(t, same, pos, static_cast<double>(key.tt_rank), fmt::format("TT rank {}", key.tt_rank),
              exact ? "table" : "interpolated", a);
  return a;
}

std::vector<PerLayerCheck> per_layer_checks(const AccuracyTable& t, const Json& model) {
  std::vector<PerLayerCheck> out;
  std::string reason;
  const auto k = keyed(model, Json(), reason);
  if (!k) return out;
  for (const auto& e : t.entries) {
    if (!e.key.per_layer() || e.key.encoders != k->key.encoders || e.key.ttm_rank != k->key.ttm_rank) continue;
    const AccuracyEstimate est = per_layer_model(t, k->spec, e.key);
    PerLayerCheck c;
    c.entry = &e;
    c.tt_weight_params = est.tt_weight_params;
    c.predicted = est.mean;
    c.unknown_reason = est.known() ? std::string() : est.unknown_reason;
    out.push_back(std::move(c));
  }
  return out;
}

AccuracyEstimate lookup_accuracy(const AccuracyTable& t, const Json& model) {
  std::string reason;
  const auto k = keyed(model, t.fixed, reason);
  if (!k) {
    AccuracyEstimate a;
    a.unknown_reason = reason;
    return a;
  }
  if (!k->key.per_layer() || t.find(k->key)) return lookup_accuracy(t, k->key);
  // The per-layer model, validated on the table's per-layer entries of this encoder count.
  double ss = 0, sa = 0;
  std::size_t n = 0;
  for (const auto& c : per_layer_checks(t, model)) {
    if (!c.unknown_reason.empty()) continue;
    const double d = c.entry->test_intent_accuracy.mean - c.predicted;
    ss += d * d;
    sa += std::abs(d);
    ++n;
  }
  if (n < kPerLayerValidationMin) {
    AccuracyEstimate a;
    a.unknown_reason = fmt::format(
        "per-layer TT ranks: the per-layer model is not validated for {} encoders (the table holds {} per-layer "
        "trainings it can check, {} needed)",
        k->key.encoders, n, kPerLayerValidationMin);
    return a;
  }
  AccuracyEstimate a = per_layer_model(t, k->spec, k->key);
  if (!a.known()) return a;
  a.validation_entries = n;
  a.model_rmse = std::sqrt(ss / static_cast<double>(n));
  a.model_mae = sa / static_cast<double>(n);
  a.standard_error = std::sqrt(a.standard_error * a.standard_error + a.model_rmse * a.model_rmse);
  a.lower_bound = a.mean - kAccuracyConfidenceZ * a.standard_error;
  return a;
}

}  // namespace ttsim::dse
