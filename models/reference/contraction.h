#pragma once
// The one contraction helper of the numerical reference: every multiply-accumulate the
// reference performs in a contraction goes through contract(), which counts it.
// Shapes follow /tmp/flows_spec.md: a contraction step is (rows × inner)·(inner × cols)
// and costs rows·inner·cols multiply-accumulates (MACs).

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace ttsim::reference {

/// Row-major dynamic matrix. Row-major storage makes every reshape used by the flows
/// (e.g. Mpre(k-1) × (m_k·r_k) ↔ Mpre(k) × r_k) a reinterpretation of the same buffer.
template <typename T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Keeps a parameter out of template argument deduction (so nullptr can be passed).
template <typename T>
struct NoDeduce {
  using type = T;
};

/// One contraction actually performed: rows × inner times inner × cols.
struct ContractionStep {
  std::int64_t rows = 0, inner = 0, cols = 0;
  std::int64_t macs() const { return rows * inner * cols; }
};

/// Counts the MACs of the contractions performed while it is attached to them.
struct MacCounter {
  std::int64_t macs = 0;                ///< sum of rows·inner·cols over `steps`
  std::vector<ContractionStep> steps;   ///< in execution order

  void add(std::int64_t rows, std::int64_t inner, std::int64_t cols) {
    steps.push_back({rows, inner, cols});
    macs += rows * inner * cols;
  }
  void clear() {
    macs = 0;
    steps.clear();
  }
};

/// C = A·B for any Eigen expressions A (rows × inner) and B (inner × cols), computed
/// with Eigen and counted into `counter` (may be null) as rows·inner·cols MACs.
/// Throws std::invalid_argument when the inner dimensions differ.
template <typename A, typename B>
Mat<typename A::Scalar> contract(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b,
                                 MacCounter* counter) {
  if (a.cols() != b.rows()) {
    throw std::invalid_argument("contract: inner dimensions differ (" +
                                std::to_string(a.rows()) + "x" + std::to_string(a.cols()) +
                                " times " + std::to_string(b.rows()) + "x" +
                                std::to_string(b.cols()) + ")");
  }
  if (counter) counter->add(a.rows(), a.cols(), b.cols());
  Mat<typename A::Scalar> c(a.rows(), b.cols());
  c.noalias() = a * b;
  return c;
}

/// The buffer of `m` reinterpreted as rows × cols (row-major, no copy).
/// Throws std::invalid_argument when the sizes differ.
template <typename T>
Eigen::Map<const Mat<T>> view(const Mat<T>& m, std::int64_t rows, std::int64_t cols) {
  if (rows * cols != m.size()) {
    throw std::invalid_argument("view: cannot view " + std::to_string(m.size()) +
                                " elements as " + std::to_string(rows) + "x" +
                                std::to_string(cols));
  }
  return Eigen::Map<const Mat<T>>(m.data(), rows, cols);
}

/// A copy of `m` reshaped to rows × cols (same row-major element order).
template <typename T>
Mat<T> reshaped(const Mat<T>& m, std::int64_t rows, std::int64_t cols) {
  return Mat<T>(view(m, rows, cols));
}

}  // namespace ttsim::reference
