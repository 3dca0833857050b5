#pragma once
// The explorer's accuracy of a design from the accuracy table (dse/accuracy/accuracy_table.h).
//
// Rules:
// - Only an exact match of the key (encoders, TTM rank) is used; the TT rank is either
//   measured (source "table") or lies between two measured TT ranks of that same
//   (encoders, TTM rank), where mean, slot F1 and standard error are interpolated linearly
//   in the rank ("interpolated"). Anything else is "unknown" with the reason: an encoder
//   count or TTM rank the table has not measured (never borrowed from another), a TT rank
//   outside the measured ones (never extrapolated), TT layers whose shape differs from
//   their kind's, or model sizes ("fixed": d_model, heads, ffn_dim, seq_len) other than the
//   table's.
// - Per-layer ranks (TT layers that do not share one rank): a measured per-layer entry of
//   the same ranks is used as it is ("table"). Otherwise the per-layer model
//   ("per_layer_model"): the least-squares line of the mean test intent accuracy (and slot
//   F1) against ln(TT weight parameters) through the uniform-rank entries of the same encoders
//   and TTM rank (three or more), at the design's TT weight parameters; every layer's rank
//   must lie within the measured uniform ranks (never extrapolated). A line rather than interpolating between the
//   two neighbouring ranks because the uniform means are noisy (seed std about 1.4 points,
//   as large as the steps between ranks): on the ATIS table's six held-out 2-encoder designs
//   interpolation was biased by the rank-16 peak (mean absolute error 1.90 points, every
//   design over-predicted), the line was not (0.69; docs/accuracy.md, which also says this
//   choice was made after seeing the held-out errors). It is used only when validated: the
//   table holds at least kPerLayerValidationMin per-layer entries of that encoder count and
//   TTM rank (held-out trainings: the line's coefficients are not fitted to them; its RMS
//   error below is measured on them), and its standard error is
//   SE = sqrt(SE_line² + p(1 − p)/N_test + RMSE²), the line's own standard error at that
//   point, the test set's binomial error and the model's RMS error on those entries (which
//   includes their own seed noise, so the bound is conservative). Without enough per-layer
//   entries the accuracy is unknown.
// - Noise: the standard error of an entry's mean test intent accuracy p over its n seeds
//   is SE = sqrt(s²/n + p(1 − p)/N_test): the seed-to-seed spread (s, sample std; for an
//   entry of one seed the table's pooled std over its entries with seeds) plus the binomial
//   sampling error of a test set of N_test utterances (893 for
//   ATIS: about 1.2 points at 85 %, as large as the gap between neighbouring ranks).
// - The explorer uses the one-sided 95 % lower confidence bound LCB = p − 1.645·SE, for
//   the min_accuracy constraint and as the accuracy objective. Why a bound rather than
//   ties: a design passes the floor only when it is above it beyond the noise (rank 8 at
//   83.5 % and rank 12 at 84.9 % no longer fall on either side of 0.84 by chance), and a
//   noisy entry ranks below an equally accurate, better measured one; a tolerance on
//   dominance would make dominance intransitive and the Pareto front depend on the order
//   designs are compared, while the bound keeps it a plain comparison. The mean and the
//   SE are reported next to it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "dse/accuracy/accuracy_table.h"

namespace ttsim::dse {

/// z of the one-sided 95 % lower confidence bound.
inline constexpr double kAccuracyConfidenceZ = 1.645;
/// Per-layer entries of one (encoders, TTM rank) the per-layer model needs before it is used.
inline constexpr std::size_t kPerLayerValidationMin = 3;

/// Pooled sample std of the test intent accuracy over seeds, from every entry of `t` with
/// two or more runs: sqrt(Σ (n_e − 1)·s_e² / Σ (n_e − 1)), as a fraction; nullopt when no
/// entry has two runs.
std::optional<double> pooled_seed_std(const AccuracyTable& t);

/// Standard error of `e`'s mean test intent accuracy with `test_samples` test utterances
/// (see the file comment), as a fraction. An entry of one run has no seed spread of its
/// own and takes `pooled_std` (pooled_seed_std of its table; 0 when nullopt), so that it
/// is never better measured than an entry with seeds.
double accuracy_standard_error(const AccuracyEntry& e, std::int64_t test_samples,
                               std::optional<double> pooled_std = std::nullopt);

/// The accuracy of one design.
struct AccuracyEstimate {
  std::string source = "unknown";  ///< "table", "interpolated", "per_layer_model" or "unknown"
  double mean = 0;            ///< mean test intent accuracy, fraction (when known)
  double slot_f1 = 0;         ///< mean test slot F1, fraction (when known)
  double standard_error = 0;  ///< of `mean`, fraction (when known)
  double lower_bound = 0;     ///< mean − kAccuracyConfidenceZ · standard_error
  /// Uniform TT ranks used: equal for "table" (0 for a per-layer entry), the bracketing ones
  /// for "interpolated", the lowest and highest fitted for "per_layer_model".
  std::int64_t lower_rank = 0, upper_rank = 0;
  /// per_layer_model only: the design's TT weight parameters (words), the model's RMS and
  /// mean absolute error on the table's per-layer entries (fractions) and how many.
  std::int64_t tt_weight_params = 0;
  double model_rmse = 0, model_mae = 0;
  std::size_t validation_entries = 0;
  std::string unknown_reason;  ///< why, when unknown
  bool known() const { return source != "unknown"; }
};

/// The key of a model document (configs/models schema, as the explorer resolves a point):
/// encoders, the rank shared by every TT encoder layer (attention, ffn_in, ffn_out) — or,
/// when they differ, every TT encoder layer's rank (AccuracyKey::layer_ranks) — and the TTM
/// embedding rank. Nullopt with `reason` set when the model does not parse, a TT layer has
/// per-core ranks or a shape other than the first layer of its kind, there is no TT layer or
/// no TTM embedding with one rank, or a field of `fixed` differs in the model.
std::optional<AccuracyKey> accuracy_key_of(const Json& model, const Json& fixed, std::string& reason);

/// The estimate at a uniform-rank `key` (rules in the file comment; a per-layer key is
/// found only as a measured entry). Never throws.
AccuracyEstimate lookup_accuracy(const AccuracyTable& table, const AccuracyKey& key);
/// The estimate of a model document (accuracy_key_of, then the lookup; per-layer ranks
/// through the per-layer model). Never throws.
AccuracyEstimate lookup_accuracy(const AccuracyTable& table, const Json& model);

/// One per-layer entry against the per-layer model, for the model's error report.
struct PerLayerCheck {
  const AccuracyEntry* entry = nullptr;
  std::int64_t tt_weight_params = 0;  ///< words
  double predicted = 0;               ///< the model's mean test intent accuracy, fraction
  std::string unknown_reason;         ///< non-empty when the model cannot estimate it
};

/// Every per-layer entry of `table` with `model`'s encoders and TTM rank, with the per-layer
/// model's estimate from the table's uniform entries (`model` gives the layer shapes: a
/// document of that encoder count). Empty when `model` has no key.
std::vector<PerLayerCheck> per_layer_checks(const AccuracyTable& table, const Json& model);

}  // namespace ttsim::dse
