#include "models/reference/ttm_embedding.h"

#include <stdexcept>
#include <string>

namespace ttsim::reference {

namespace {

void check_shape(const TtmShape& s) {
  if (s.vocab_factors.empty() || s.dim_factors.size() != s.vocab_factors.size() ||
      s.ranks.size() != s.cores() + 1) {
    throw std::invalid_argument("TTM shape needs d >= 1 vocab and dim factors and d+1 ranks");
  }
}

template <typename T>
void check_tensor(const TtmTensor<T>& t) {
  check_shape(t.shape);
  const auto& s = t.shape;
  if (t.cores.size() != s.cores()) throw std::invalid_argument("TTM tensor: wrong core count");
  for (std::size_t k = 0; k < s.cores(); ++k) {
    if (t.cores[k].rows() != s.ranks[k] ||
        t.cores[k].cols() != s.vocab_factors[k] * s.dim_factors[k] * s.ranks[k + 1]) {
      throw std::invalid_argument("TTM core " + std::to_string(k) + " has the wrong shape");
    }
  }
}

/// Vocabulary digits v_1..v_d of a token id (row-major, v_1 most significant).
std::vector<std::int64_t> digits(const TtmShape& s, std::int64_t token) {
  std::int64_t vocab = 1;
  for (auto v : s.vocab_factors) vocab *= v;
  if (token < 0 || token >= vocab) {
    throw std::invalid_argument("token id " + std::to_string(token) + " outside [0, " +
                                std::to_string(vocab) + ")");
  }
  std::vector<std::int64_t> dg(s.cores());
  for (std::size_t k = s.cores(); k-- > 0;) {
    dg[k] = token % s.vocab_factors[k];
    token /= s.vocab_factors[k];
  }
  return dg;
}

/// The slice S_k = G_k[:, v, :, :] as an r_k × (e_k·r_{k+1}) block.
template <typename T>
auto slice(const TtmTensor<T>& t, std::size_t k, std::int64_t v) {
  const std::int64_t w = t.shape.dim_factors[k] * t.shape.ranks[k + 1];
  return t.cores[k].middleCols(v * w, w);
}

/// One token's row (1 × D), saving E_1..E_{d-1} in `partial` when non-null.
template <typename T>
Mat<T> lookup_one(const TtmTensor<T>& t, std::int64_t token, std::vector<Mat<T>>* partial,
                  MacCounter* c) {
  const auto& s = t.shape;
  const auto dg = digits(s, token);
  Mat<T> e = reshaped(Mat<T>(slice(t, 0, dg[0])), s.dim_factors[0], s.ranks[1]);
  std::int64_t epre = s.dim_factors[0];
  for (std::size_t k = 1; k < s.cores(); ++k) {
    Mat<T> next = contract(e, slice(t, k, dg[k]), c);  // Epre(k-1) × (e_k·r_k)
    if (partial) partial->push_back(std::move(e));
    epre *= s.dim_factors[k];
    e = reshaped(next, epre, s.ranks[k + 1]);
  }
  return reshaped(e, 1, epre);
}

}  // namespace

template <typename T>
TtmTensor<T> zero_ttm(const TtmShape& shape) {
  check_shape(shape);
  TtmTensor<T> t;
  t.shape = shape;
  for (std::size_t k = 0; k < shape.cores(); ++k) {
    t.cores.push_back(Mat<T>::Zero(
        shape.ranks[k], shape.vocab_factors[k] * shape.dim_factors[k] * shape.ranks[k + 1]));
  }
  return t;
}

template <typename T>
Mat<T> reconstruct(const TtmTensor<T>& t) {
  check_tensor(t);
  std::int64_t vocab = 1, dim = 1;
  for (auto v : t.shape.vocab_factors) vocab *= v;
  for (auto e : t.shape.dim_factors) dim *= e;
  Mat<T> table(vocab, dim);
  for (std::int64_t v = 0; v < vocab; ++v) table.row(v) = lookup_one<T>(t, v, nullptr, nullptr);
  return table;
}

template <typename T>
Mat<T> ttm_lookup(const TtmTensor<T>& t, const std::vector<int>& tokens,
                  typename NoDeduce<TtmLookupState<T>>::type* st, MacCounter* c) {
  check_tensor(t);
  std::int64_t dim = 1;
  for (auto e : t.shape.dim_factors) dim *= e;
  Mat<T> out(static_cast<std::int64_t>(tokens.size()), dim);
  if (st) {
    st->tokens = tokens;
    st->partial.assign(tokens.size(), {});
  }
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    out.row(i) = lookup_one(t, tokens[i], st ? &st->partial[i] : nullptr, c);
  }
  return out;
}

template <typename T>
void ttm_backward(const TtmTensor<T>& t, const TtmLookupState<T>& st, const Mat<T>& de,
                  std::vector<Mat<T>>* dcores, MacCounter* c) {
  check_tensor(t);
  const auto& s = t.shape;
  const std::size_t d = s.cores();
  if (de.rows() != static_cast<std::int64_t>(st.tokens.size()) || !dcores ||
      dcores->size() != d) {
    throw std::invalid_argument("ttm_backward: dE rows or gradient cores do not match");
  }
  std::vector<std::int64_t> epre(d + 1, 1);
  for (std::size_t k = 0; k < d; ++k) epre[k + 1] = epre[k] * s.dim_factors[k];
  for (std::size_t i = 0; i < st.tokens.size(); ++i) {
    const auto dg = digits(s, st.tokens[i]);
    Mat<T> dek = reshaped(Mat<T>(de.row(i)), epre[d], 1);  // dE_d: Epre(d) × r_d
    for (std::size_t k = d; k >= 2; --k) {                  // 1-based k
      const std::int64_t cols = s.dim_factors[k - 1] * s.ranks[k];
      auto dv = view(dek, epre[k - 1], cols);
      const Mat<T>& prev = st.partial[i][k - 2];  // E_{k-1}: Epre(k-1) × r_{k-1}
      const std::int64_t w = cols;
      (*dcores)[k - 1].middleCols(dg[k - 1] * w, w) += contract(prev.transpose(), dv, c);
      Mat<T> next = contract(dv, slice(t, k - 1, dg[k - 1]).transpose(), c);
      dek = std::move(next);
    }
    const std::int64_t w0 = s.dim_factors[0] * s.ranks[1];
    (*dcores)[0].middleCols(dg[0] * w0, w0) += reshaped(dek, 1, w0);
  }
}

#define TTSIM_INSTANTIATE(T)                                                                  \
  template TtmTensor<T> zero_ttm<T>(const TtmShape&);                                         \
  template Mat<T> reconstruct<T>(const TtmTensor<T>&);                                        \
  template Mat<T> ttm_lookup<T>(const TtmTensor<T>&, const std::vector<int>&,                 \
                                TtmLookupState<T>*, MacCounter*);                             \
  template void ttm_backward<T>(const TtmTensor<T>&, const TtmLookupState<T>&, const Mat<T>&, \
                                std::vector<Mat<T>>*, MacCounter*);
TTSIM_INSTANTIATE(float)
TTSIM_INSTANTIATE(double)
#undef TTSIM_INSTANTIATE

}  // namespace ttsim::reference
