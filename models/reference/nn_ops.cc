#include "models/reference/nn_ops.h"

#include <cmath>
#include <stdexcept>

namespace ttsim::reference {

template <typename T>
Mat<T> layernorm_forward(const Mat<T>& x, const Mat<T>& gain, const Mat<T>& bias,
                         LayerNormState<T>* st) {
  const auto d = static_cast<T>(x.cols());
  LayerNormState<T> s;
  s.xhat.resize(x.rows(), x.cols());
  s.inv_std.resize(x.rows(), 1);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const T mean = x.row(r).sum() / d;
    const auto centered = (x.row(r).array() - mean).matrix();
    const T var = centered.squaredNorm() / d;
    const T inv = T(1) / std::sqrt(var + static_cast<T>(kLayerNormEps));
    s.inv_std(r, 0) = inv;
    s.xhat.row(r) = centered * inv;
  }
  Mat<T> y = (s.xhat.array().rowwise() * gain.row(0).array()).rowwise() + bias.row(0).array();
  if (st) *st = std::move(s);
  return y;
}

template <typename T>
Mat<T> layernorm_backward(const LayerNormState<T>& s, const Mat<T>& gain, const Mat<T>& dy,
                          Mat<T>* dgain, Mat<T>* dbias) {
  const auto d = static_cast<T>(dy.cols());
  *dgain += (dy.array() * s.xhat.array()).colwise().sum().matrix();
  *dbias += dy.colwise().sum();
  Mat<T> dxhat = dy.array().rowwise() * gain.row(0).array();
  Mat<T> dx(dy.rows(), dy.cols());
  for (Eigen::Index r = 0; r < dy.rows(); ++r) {
    const T sum = dxhat.row(r).sum();
    const T dot = dxhat.row(r).dot(s.xhat.row(r));
    dx.row(r) = (s.inv_std(r, 0) / d) *
                (d * dxhat.row(r).array() - sum - s.xhat.row(r).array() * dot).matrix();
  }
  return dx;
}

namespace {
template <typename T>
constexpr T kGeluC = static_cast<T>(0.7978845608028654);  // √(2/π)
constexpr double kGeluA = 0.044715;
}  // namespace

template <typename T>
Mat<T> gelu_forward(const Mat<T>& x) {
  return x.unaryExpr([](T v) {
    const T a = static_cast<T>(kGeluA);
    return static_cast<T>(0.5) * v * (T(1) + std::tanh(kGeluC<T> * (v + a * v * v * v)));
  });
}

template <typename T>
Mat<T> gelu_backward(const Mat<T>& x, const Mat<T>& dy) {
  Mat<T> d = x.unaryExpr([](T v) {
    const T a = static_cast<T>(kGeluA);
    const T th = std::tanh(kGeluC<T> * (v + a * v * v * v));
    return static_cast<T>(0.5) * (T(1) + th) +
           static_cast<T>(0.5) * v * (T(1) - th * th) * kGeluC<T> * (T(1) + 3 * a * v * v);
  });
  return d.cwiseProduct(dy);
}

template <typename T>
Mat<T> softmax_rows(const Mat<T>& s) {
  Mat<T> p(s.rows(), s.cols());
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    const T mx = s.row(r).maxCoeff();
    p.row(r) = (s.row(r).array() - mx).exp().matrix();
    p.row(r) /= p.row(r).sum();
  }
  return p;
}

template <typename T>
Mat<T> softmax_rows_backward(const Mat<T>& p, const Mat<T>& dp) {
  Mat<T> ds(p.rows(), p.cols());
  for (Eigen::Index r = 0; r < p.rows(); ++r) {
    const T dot = p.row(r).dot(dp.row(r));
    ds.row(r) = p.row(r).cwiseProduct((dp.row(r).array() - dot).matrix());
  }
  return ds;
}

template <typename T>
double softmax_cross_entropy(const Mat<T>& logits, const std::vector<int>& labels,
                             Mat<T>* dlogits) {
  if (static_cast<Eigen::Index>(labels.size()) != logits.rows()) {
    throw std::invalid_argument("softmax_cross_entropy: one label per row required");
  }
  Mat<T> p = softmax_rows(logits);
  double loss = 0;
  for (Eigen::Index r = 0; r < logits.rows(); ++r) {
    const int y = labels[r];
    if (y < 0) {
      p.row(r).setZero();
      continue;
    }
    if (y >= logits.cols()) throw std::invalid_argument("softmax_cross_entropy: label out of range");
    const double mx = logits.row(r).maxCoeff();
    const double lse = mx + std::log((logits.row(r).template cast<double>().array() - mx).exp().sum());
    loss += lse - static_cast<double>(logits(r, y));
    p(r, y) -= T(1);
  }
  if (dlogits) *dlogits = std::move(p);
  return loss;
}

#define TTSIM_INSTANTIATE(T)                                                                   \
  template Mat<T> layernorm_forward<T>(const Mat<T>&, const Mat<T>&, const Mat<T>&,            \
                                       LayerNormState<T>*);                                    \
  template Mat<T> layernorm_backward<T>(const LayerNormState<T>&, const Mat<T>&, const Mat<T>&, \
                                        Mat<T>*, Mat<T>*);                                     \
  template Mat<T> gelu_forward<T>(const Mat<T>&);                                              \
  template Mat<T> gelu_backward<T>(const Mat<T>&, const Mat<T>&);                              \
  template Mat<T> softmax_rows<T>(const Mat<T>&);                                              \
  template Mat<T> softmax_rows_backward<T>(const Mat<T>&, const Mat<T>&);                      \
  template double softmax_cross_entropy<T>(const Mat<T>&, const std::vector<int>&, Mat<T>*);
TTSIM_INSTANTIATE(float)
TTSIM_INSTANTIATE(double)
#undef TTSIM_INSTANTIATE

}  // namespace ttsim::reference
