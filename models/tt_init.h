#pragma once
// Initial standard deviations of the TT / TTM cores of a tensorized weight matrix,
// shared by the Eigen reference (models/reference) and the HLS host model (hls/host) so
// that both initialize with the same formula.
//
// Notation: a weight W of R rows and C columns (R·C = Π s_k) in c cores, core k of
// n_k = r_k · s_k · r_{k+1} i.i.d. N(0, σ_k²) entries (0-based k, r_0 = r_c = 1),
// P = Π_{k=1}^{c-1} r_k the product of the inner ranks. Each entry of the reconstructed W
// is a sum of P products of c core entries, so Var(W) = P · Π σ_k².
//
// SGD on the cores moves W by ΔW ≈ −lr · Σ_k J_k J_kᵀ ∂L/∂W (J_k = ∂W/∂core_k). The
// trace of J_kᵀJ_k is R·C·Var(W)/σ_k², spread over its n_k directions, so a core step
// scales W-space gradients in that core's tangent directions by the gain
//   λ_k = R·C·Var(W) / (σ_k² · n_k)
// (a dense W has gain 1 in every direction). With Var(W) = 2/(R+C) (Xavier) and equal σ_k,
// the rank-12 768×768 layers of atis_2enc have λ ≈ 16 on inner cores and ≈ 128 on the
// boundary cores: SGD at the dense learning rate takes steps 16–128× too large along
// the TT tangent space, which stalls training (see tt_core_stddevs_balanced).

#include <cstdint>
#include <vector>

namespace ttsim {

/// Equal σ for every core with Var(W) = 2/(R+C) (Xavier normal):
/// σ = (2/(R+C) / P)^{1/(2c)}. modes: s_0..s_{c-1}; ranks: r_0..r_c.
/// Throws std::invalid_argument when ranks.size() ≠ modes.size() + 1 or a size is < 1.
std::vector<double> tt_core_stddevs_xavier(const std::vector<std::int64_t>& modes,
                                           const std::vector<std::int64_t>& ranks,
                                           double rows, double cols);

/// Tangent gain given to every TT core by the models (reference and HLS host): chosen
/// on the ATIS dev split of atis_2enc (2 epochs, SGD lr 4e-3, seed 1) among 1 (the
/// dense-matched step), 4 and the Xavier-variance value (≈ 32): dev intent / slot F1 after
/// 2 epochs 83.6 % / 66.3 (gain 1), 87.4 % / 83.6 (gain 4), 71.4 % / 0 (Xavier, the stall).
/// A gain of 1 matches a dense step only inside the TT tangent space, which holds a few
/// per cent of a sample's W gradient, so the TT layers learn too slowly; 4 compensates.
constexpr double kTtInitGain = 4.0;

/// Gain-balanced initialization: every core gets the same tangent gain λ (see the file
/// comment) equal to `gain`, unless that needs Var(W) above Xavier's 2/(R+C), in which
/// case Var(W) = 2/(R+C) and λ is below `gain`:
///   Var(W) = min(2/(R+C), (gain^c · P)^{1/(c-1)} / (R·C)),
///   λ      = (R·C·Var(W))^{(c-1)/c} / P^{1/c},
///   σ_k²   = R·C·Var(W) / (λ · n_k).
/// Derivation: Π σ_k² = Var(W)/P with Π n_k = R·C·P² gives the λ above. For equal ranks
/// r, R·C·Var(W) = gain^{c/(c-1)}·r: with gain 1, Var(W) = r/(R·C) and one SGD step on
/// the cores moves W in its tangent directions as much as the same step moves a dense W;
/// the TT branch starts small (output gain R·Var(W) = gain^{c/(c-1)}·r/C, 0.08 for
/// atis_2enc at gain 4) next to the residual path. For c = 1 this is the dense Xavier σ.
/// Errors as above, and std::invalid_argument when gain ≤ 0.
std::vector<double> tt_core_stddevs_balanced(const std::vector<std::int64_t>& modes,
                                             const std::vector<std::int64_t>& ranks,
                                             double rows, double cols,
                                             double gain = kTtInitGain);

}  // namespace ttsim
