#pragma once
// Helpers shared by the reference tests: random TT/TTM shapes and tensors.

#include <cstdint>
#include <random>
#include <vector>

#include "models/reference/tt_flows.h"
#include "models/reference/ttm_embedding.h"

namespace ttsim::reference::testing {

/// Matrix of i.i.d. N(0, 1) entries.
inline Mat<double> random_mat(std::int64_t rows, std::int64_t cols, std::mt19937_64& rng) {
  std::normal_distribution<double> nd;
  Mat<double> m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = nd(rng);
  return m;
}

inline TtTensor<double> random_tt(const TtShape& s, std::mt19937_64& rng) {
  TtTensor<double> w = zero_tt<double>(s);
  for (auto& c : w.cores) c = random_mat(c.rows(), c.cols(), rng);
  return w;
}

inline TtmTensor<double> random_ttm(const TtmShape& s, std::mt19937_64& rng) {
  TtmTensor<double> t = zero_ttm<double>(s);
  for (auto& c : t.cores) c = random_mat(c.rows(), c.cols(), rng);
  return t;
}

/// max |a - b| / max(1, max |b|).
inline double rel_err(const Mat<double>& a, const Mat<double>& b) {
  const double scale = std::max(1.0, b.cwiseAbs().maxCoeff());
  return (a - b).cwiseAbs().maxCoeff() / scale;
}

inline std::int64_t product(const std::vector<std::int64_t>& v) {
  std::int64_t p = 1;
  for (auto x : v) p *= x;
  return p;
}

}  // namespace ttsim::reference::testing
