#include "models/tt_init.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ttsim {
namespace {

// Checks the sizes; returns P, the product of the inner ranks.
double inner_ranks(const std::vector<std::int64_t>& modes,
                   const std::vector<std::int64_t>& ranks, double rows, double cols) {
  if (modes.empty() || ranks.size() != modes.size() + 1) {
    throw std::invalid_argument("TT init: expected c ≥ 1 modes and c + 1 ranks");
  }
  for (auto v : modes) {
    if (v < 1) throw std::invalid_argument("TT init: mode size < 1");
  }
  for (auto v : ranks) {
    if (v < 1) throw std::invalid_argument("TT init: rank < 1");
  }
  if (!(rows >= 1) || !(cols >= 1)) throw std::invalid_argument("TT init: rows or cols < 1");
  double p = 1;
  for (std::size_t k = 1; k + 1 < ranks.size(); ++k) p *= static_cast<double>(ranks[k]);
  return p;
}

}  // namespace

std::vector<double> tt_core_stddevs_xavier(const std::vector<std::int64_t>& modes,
                                           const std::vector<std::int64_t>& ranks,
                                           double rows, double cols) {
  const double p = inner_ranks(modes, ranks, rows, cols);
  const double c = static_cast<double>(modes.size());
  const double sd = std::pow(2.0 / (rows + cols) / p, 1.0 / (2.0 * c));
  return std::vector<double>(modes.size(), sd);
}

std::vector<double> tt_core_stddevs_balanced(const std::vector<std::int64_t>& modes,
                                             const std::vector<std::int64_t>& ranks,
                                             double rows, double cols, double gain) {
  const double p = inner_ranks(modes, ranks, rows, cols);
  const std::size_t cores = modes.size();
  const double c = static_cast<double>(cores);
  const double rc = rows * cols;
  double var_w = 2.0 / (rows + cols);
  if (!(gain > 0)) throw std::invalid_argument("TT init: gain must be > 0");
  if (cores > 1) var_w = std::min(var_w, std::pow(std::pow(gain, c) * p, 1.0 / (c - 1.0)) / rc);
  // The gain the cores actually get (below `gain` when Var(W) is capped at Xavier).
  gain = std::pow(rc * var_w, (c - 1.0) / c) / std::pow(p, 1.0 / c);
  std::vector<double> sd(cores);
  for (std::size_t k = 0; k < cores; ++k) {
    const double n_k =
        static_cast<double>(ranks[k]) * static_cast<double>(modes[k]) * static_cast<double>(ranks[k + 1]);
    sd[k] = std::sqrt(rc * var_w / (gain * n_k));
  }
  return sd;
}

}  // namespace ttsim
