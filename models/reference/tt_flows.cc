#include "models/reference/tt_flows.h"

#include <stdexcept>
#include <string>

namespace ttsim::reference {

namespace {

std::int64_t prod(const std::vector<std::int64_t>& v, std::size_t begin, std::size_t end) {
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end; ++i) p *= v[i];
  return p;
}

void check_shape(const TtShape& s) {
  if (s.in_factors.empty() || s.out_factors.empty() || s.ranks.size() != s.cores() + 1) {
    throw std::invalid_argument("TT shape needs at least one input and one output factor and " +
                                std::to_string(s.cores() + 1) + " ranks");
  }
}

template <typename T>
void check_tensor(const TtTensor<T>& w) {
  check_shape(w.shape);
  if (w.cores.size() != w.shape.cores()) throw std::invalid_argument("TT tensor: wrong core count");
  for (std::size_t k = 0; k < w.cores.size(); ++k) {
    if (w.cores[k].rows() != w.shape.ranks[k] ||
        w.cores[k].cols() != w.shape.mode(k) * w.shape.ranks[k + 1]) {
      throw std::invalid_argument("TT core " + std::to_string(k) + " has the wrong shape");
    }
  }
}

/// Left merges L_1..L_d (L_k: Mpre(k) × r_k).
template <typename T>
std::vector<Mat<T>> left_merges(const TtTensor<T>& w, MacCounter* c) {
  const auto& s = w.shape;
  const std::size_t d = s.in_factors.size();
  std::vector<Mat<T>> left;
  left.push_back(reshaped(w.cores[0], s.in_factors[0], s.ranks[1]));
  for (std::size_t k = 1; k < d; ++k) {  // core k+1 of the contract
    const std::int64_t mpre = prod(s.in_factors, 0, k);
    Mat<T> lk = contract(view(left.back(), mpre, s.ranks[k]), w.cores[k], c);
    left.push_back(reshaped(lk, mpre * s.in_factors[k], s.ranks[k + 1]));
  }
  return left;
}

/// Right merges R_1..R_e (R_j: r_{d+j-1} × Nsuf(j-1)), returned in order R_1..R_e.
template <typename T>
std::vector<Mat<T>> right_merges(const TtTensor<T>& w, MacCounter* c) {
  const auto& s = w.shape;
  const std::size_t d = s.in_factors.size(), e = s.out_factors.size();
  std::vector<Mat<T>> right(e);
  right[e - 1] = w.cores[d + e - 1];  // r × n_e (r_{d+e} = 1)
  for (std::size_t j = e - 1; j >= 1; --j) {  // R_j, 1-based j
    const std::int64_t rprev = s.ranks[d + j - 1], nj = s.out_factors[j - 1];
    const std::int64_t rj = s.ranks[d + j], nsuf = prod(s.out_factors, j, e);
    Mat<T> r = contract(view(w.cores[d + j - 1], rprev * nj, rj), right[j], c);
    right[j - 1] = reshaped(r, rprev, nj * nsuf);
  }
  return right;
}

/// Core gradients from dL (M × r_d) and dR (r_d × N) through the merge chains.
template <typename T>
std::vector<Mat<T>> chain_grads(const TtTensor<T>& w, const std::vector<Mat<T>>& left,
                                const std::vector<Mat<T>>& right, Mat<T> dl, Mat<T> dr,
                                MacCounter* c) {
  const auto& s = w.shape;
  const std::size_t d = s.in_factors.size(), e = s.out_factors.size();
  std::vector<Mat<T>> g(d + e);
  // Left chain, k = d..2 (1-based): dL holds dL_k (Mpre(k) × r_k).
  for (std::size_t k = d; k >= 2; --k) {
    const std::int64_t mpre = prod(s.in_factors, 0, k - 1);
    const std::int64_t rprev = s.ranks[k - 1];
    const std::int64_t cols = s.in_factors[k - 1] * s.ranks[k];
    auto dlk = view(dl, mpre, cols);
    g[k - 1] = contract(view(left[k - 2], mpre, rprev).transpose(), dlk, c);
    Mat<T> next = contract(dlk, w.cores[k - 1].transpose(), c);  // Mpre(k-1) × r_{k-1}
    dl = std::move(next);
  }
  g[0] = reshaped(dl, 1, s.in_factors[0] * s.ranks[1]);
  // Right chain, j = 1..e-1: dR holds dR_j (r_{d+j-1} × Nsuf(j-1)).
  for (std::size_t j = 1; j <= e - 1; ++j) {
    const std::int64_t rprev = s.ranks[d + j - 1], nj = s.out_factors[j - 1];
    const std::int64_t rj = s.ranks[d + j], nsuf = prod(s.out_factors, j, e);
    auto drj = view(dr, rprev * nj, nsuf);
    Mat<T> gk = contract(drj, right[j].transpose(), c);  // (r·n_j) × r_{d+j}
    g[d + j - 1] = reshaped(gk, rprev, nj * rj);
    Mat<T> next = contract(view(w.cores[d + j - 1], rprev * nj, rj).transpose(), drj, c);
    dr = std::move(next);  // r_{d+j} × Nsuf(j)
  }
  g[d + e - 1] = reshaped(dr, s.ranks[d + e - 1], s.out_factors[e - 1]);
  return g;
}

/// Per token b, the block (m × rest) of `src` becomes (rest × m) in the result:
/// layout (b, i, rest) → (b, rest, i). Pure data movement, no MACs.
template <typename T>
Mat<T> swap_mode(const Mat<T>& src, std::int64_t batch, std::int64_t m, std::int64_t rest,
                 std::int64_t out_rows, std::int64_t out_cols) {
  Mat<T> out(out_rows, out_cols);
  for (std::int64_t b = 0; b < batch; ++b) {
    Eigen::Map<const Mat<T>> in(src.data() + b * m * rest, m, rest);
    Eigen::Map<Mat<T>>(out.data() + b * m * rest, rest, m) = in.transpose();
  }
  return out;
}

}  // namespace

template <typename T>
TtTensor<T> zero_tt(const TtShape& shape) {
  check_shape(shape);
  TtTensor<T> w;
  w.shape = shape;
  for (std::size_t k = 0; k < shape.cores(); ++k) {
    w.cores.push_back(Mat<T>::Zero(shape.ranks[k], shape.mode(k) * shape.ranks[k + 1]));
  }
  return w;
}

template <typename T>
Mat<T> reconstruct(const TtTensor<T>& w) {
  check_tensor(w);
  const auto left = left_merges(w, nullptr);
  const auto right = right_merges(w, nullptr);
  return contract(left.back(), right.front(), nullptr);
}

template <typename T>
Mat<T> tt_forward(const TtTensor<T>& w, const Mat<T>& x, Flow flow,
                  typename NoDeduce<TtFlowState<T>>::type* state, MacCounter* c) {
  check_tensor(w);
  const auto& s = w.shape;
  const std::size_t d = s.in_factors.size(), e = s.out_factors.size();
  const std::int64_t m = prod(s.in_factors, 0, d), n = prod(s.out_factors, 0, e);
  const std::int64_t k_tokens = x.rows();
  if (x.cols() != m) {
    throw std::invalid_argument("tt_forward: X has " + std::to_string(x.cols()) +
                                " columns, the layer's M is " + std::to_string(m));
  }
  TtFlowState<T> local;
  TtFlowState<T>& st = state ? *state : local;
  st = TtFlowState<T>();
  st.flow = flow;
  if (flow == Flow::kTT) {
    Mat<T> cur = x;  // layout (b, i_k, rest, r_{k-1})
    for (std::size_t k = 1; k <= d; ++k) {
      const std::int64_t mk = s.in_factors[k - 1], suf = prod(s.in_factors, k, d);
      const std::int64_t rprev = s.ranks[k - 1], rk = s.ranks[k];
      // Rows (b, rest), inner (r_{k-1}, i_k): rows K·Msuf(k), inner r_{k-1}·m_k.
      Mat<T> a = swap_mode(cur, k_tokens, mk, suf * rprev, k_tokens * suf, rprev * mk);
      cur = contract(a, view(w.cores[k - 1], rprev * mk, rk), c);  // (b, rest) × r_k
      st.t.push_back(std::move(a));
    }
    for (std::size_t j = 1; j <= e; ++j) {
      const std::int64_t npre = prod(s.out_factors, 0, j - 1);
      const std::int64_t rprev = s.ranks[d + j - 1];
      Mat<T> a = reshaped(cur, k_tokens * npre, rprev);
      cur = contract(a, w.cores[d + j - 1], c);  // (b, Npre(j-1)) × (n_j·r_{d+j})
      st.t.push_back(std::move(a));
    }
    return reshaped(cur, k_tokens, n);
  }
  st.left = left_merges(w, c);
  st.right = right_merges(w, c);
  if (flow == Flow::kMM) {
    st.w = contract(st.left.back(), st.right.front(), c);
    st.x = x;
    return contract(x, st.w, c);
  }
  st.x = x;
  st.z = contract(x, st.left.back(), c);
  return contract(st.z, st.right.front(), c);
}

template <typename T>
TtGrads<T> tt_backward(const TtTensor<T>& w, const TtFlowState<T>& st, const Mat<T>& dy,
                       MacCounter* gi, MacCounter* gw) {
  check_tensor(w);
  const auto& s = w.shape;
  const std::size_t d = s.in_factors.size(), e = s.out_factors.size();
  const std::int64_t m = prod(s.in_factors, 0, d), n = prod(s.out_factors, 0, e);
  const std::int64_t k_tokens = dy.rows();
  if (dy.cols() != n) {
    throw std::invalid_argument("tt_backward: dY has " + std::to_string(dy.cols()) +
                                " columns, the layer's N is " + std::to_string(n));
  }
  TtGrads<T> g;
  if (st.flow == Flow::kTT) {
    if (st.t.size() != d + e) throw std::invalid_argument("tt_backward: state is not from TT");
    g.dcores.resize(d + e);
    Mat<T> dcur = dy;
    for (std::size_t j = e; j >= 1; --j) {
      const std::int64_t npre = prod(s.out_factors, 0, j - 1);
      const std::int64_t rj = s.ranks[d + j], nj = s.out_factors[j - 1];
      auto dt = view(dcur, k_tokens * npre, nj * rj);
      g.dcores[d + j - 1] = contract(st.t[d + j - 1].transpose(), dt, gw);
      Mat<T> next = contract(dt, w.cores[d + j - 1].transpose(), gi);
      dcur = std::move(next);  // (b, Npre(j-1)) × r_{d+j-1}
    }
    for (std::size_t k = d; k >= 1; --k) {
      const std::int64_t mk = s.in_factors[k - 1], suf = prod(s.in_factors, k, d);
      const std::int64_t rprev = s.ranks[k - 1], rk = s.ranks[k];
      auto dt = view(dcur, k_tokens * suf, rk);
      Mat<T> dgk = contract(st.t[k - 1].transpose(), dt, gw);  // (r_{k-1}·m_k) × r_k
      g.dcores[k - 1] = reshaped(dgk, rprev, mk * rk);
      Mat<T> da = contract(dt, view(w.cores[k - 1], rprev * mk, rk).transpose(), gi);
      // (b, rest, r_{k-1}, i_k) → (b, i_k, rest, r_{k-1}).
      dcur = swap_mode(da, k_tokens, suf * rprev, mk, k_tokens, mk * suf * rprev);
    }
    g.dx = reshaped(dcur, k_tokens, m);
    return g;
  }
  if (st.left.size() != d || st.right.size() != e) {
    throw std::invalid_argument("tt_backward: state is not from MM or BTT");
  }
  Mat<T> dl, dr;
  if (st.flow == Flow::kMM) {
    g.dx = contract(dy, st.w.transpose(), gi);
    Mat<T> dw = contract(st.x.transpose(), dy, gw);
    dl = contract(dw, st.right.front().transpose(), gw);
    dr = contract(st.left.back().transpose(), dw, gw);
  } else {
    Mat<T> dz = contract(dy, st.right.front().transpose(), gi);
    g.dx = contract(dz, st.left.back().transpose(), gi);
    dr = contract(st.z.transpose(), dy, gw);
    // dL_dᵀ = dZᵀ·X (r_d × M), as the flow contract's "btt.grad_l" step; its transpose
    // (no MACs) feeds the left chain.
    dl = contract(dz.transpose(), st.x, gw).transpose();
  }
  g.dcores = chain_grads(w, st.left, st.right, std::move(dl), std::move(dr), gw);
  return g;
}

#define TTSIM_INSTANTIATE(T)                                                                 \
  template TtTensor<T> zero_tt<T>(const TtShape&);                                           \
  template Mat<T> reconstruct<T>(const TtTensor<T>&);                                        \
  template Mat<T> tt_forward<T>(const TtTensor<T>&, const Mat<T>&, Flow, TtFlowState<T>*,    \
                                MacCounter*);                                                \
  template TtGrads<T> tt_backward<T>(const TtTensor<T>&, const TtFlowState<T>&,              \
                                     const Mat<T>&, MacCounter*, MacCounter*);
TTSIM_INSTANTIATE(float)
TTSIM_INSTANTIATE(double)
#undef TTSIM_INSTANTIATE

}  // namespace ttsim::reference
