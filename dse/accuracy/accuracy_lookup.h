#pragma once
// The explorer's accuracy of a design from the accuracy table (dse/accuracy/accuracy_table.h).
//
// Rules:
// - Only an exact match of the key (encoders, TTM rank) is used; the TT rank is either
//   measured (source "table") or lies between two measured TT ranks of that same
//   (encoders, TTM rank), where mean, slot F1 and standard error are interpolated linearly
//   in the rank ("interpolated"). Anything else is "unknown" with the reason: an encoder
//   count or TTM rank the table has not measured (never borrowed from another), a TT rank
//   outside the measured ones (never extrapolated), TT layers of different ranks, or
//   model sizes ("fixed": d_model, heads, ffn_dim, seq_len) other than the table's.
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

#include "core/json_view.h"
#include "dse/accuracy/accuracy_table.h"

namespace ttsim::dse {

/// z of the one-sided 95 % lower confidence bound.
inline constexpr double kAccuracyConfidenceZ = 1.645;

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
  std::string source = "unknown";  ///< "table", "interpolated" or "unknown"
  double mean = 0;            ///< mean test intent accuracy, fraction (when known)
  double slot_f1 = 0;         ///< mean test slot F1, fraction (when known)
  double standard_error = 0;  ///< of `mean`, fraction (when known)
  double lower_bound = 0;     ///< mean − kAccuracyConfidenceZ · standard_error
  std::int64_t lower_rank = 0, upper_rank = 0;  ///< TT ranks used (equal for "table")
  std::string unknown_reason;  ///< why, when unknown
  bool known() const { return source != "unknown"; }
};

/// The key of a model document (configs/models schema, as the explorer resolves a point):
/// encoders, the rank shared by every TT layer (attention, ffn_in, ffn_out) and the TTM
/// embedding rank. Nullopt with `reason` set when the TT layers' ranks differ or are
/// absent, there is no TTM embedding, or a field of `fixed` differs in the model.
std::optional<AccuracyKey> accuracy_key_of(const Json& model, const Json& fixed, std::string& reason);

/// The estimate at `key` (rules in the file comment). Never throws.
AccuracyEstimate lookup_accuracy(const AccuracyTable& table, const AccuracyKey& key);
/// The estimate of a model document (accuracy_key_of, then the lookup).
AccuracyEstimate lookup_accuracy(const AccuracyTable& table, const Json& model);

}  // namespace ttsim::dse
