#pragma once
// Row-wise and element-wise training kernels: softmax (forward, gradient), LayerNorm
// (forward, gradient), GELU (forward, gradient), residual/bias add, softmax
// cross-entropy loss with its gradient, and the SGD update.
//
// Loop structure (hls/loop_nest.h): every pass over the data is one flattened,
// pipelined loop over (row, column tile) of trip R · ceil(cols / LANES), R = batch ·
// rows, with LANES adjacent columns per iteration (UNROLL). Per-row statistics live
// in a caller-provided `stat` array between passes. Within a row the lanes are reduced
// serially in column order, so results do not depend on LANES.

#include <cmath>

#include "hls/include/loop_counter.h"

// Loop labels name the loops in HLS reports; g++ sees them as unused.
#if defined(__GNUC__) && !defined(__SYNTHESIS__)
#pragma GCC diagnostic ignored "-Wunused-label"
#endif

namespace ttsim_hls {

/// LayerNorm epsilon added to the variance.
constexpr float kLayerNormEps = 1e-5f;
/// GELU (tanh form): gelu(x) = x · σ(2u), u = √(2/π)·(x + 0.044715·x³); 2√(2/π):
constexpr float kGeluK = 1.5957691216057308f;
constexpr float kGeluC = 0.044715f;

/// Softmax over the first `valid_cols` columns of each of R rows of `cols` (row-major,
/// `in` and `out` R × cols; may alias); columns >= valid_cols get probability 0 (key
/// padding mask). stat: 2R words scratch. Loops softmax_max, softmax_exp_sum,
/// softmax_normalize. Requires 1 <= valid_cols <= cols.
template <int LANES>
void softmax_kernel(const float* in, float* out, int R, int cols, int valid_cols, float* stat) {
  const int tiles = (cols + LANES - 1) / LANES;
  const long total = static_cast<long>(R) * tiles;
  float* mx = stat;
  float* inv = stat + R;
  int r = 0, t = 0;
softmax_max:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("softmax_max");
    float m = t == 0 ? -INFINITY : mx[r];
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < valid_cols) {
        const float x = in[r * cols + j];
        m = x > m ? x : m;
      }
    }
    mx[r] = m;
    if (++t == tiles) { t = 0; ++r; }
  }
  r = 0; t = 0;
softmax_exp_sum:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("softmax_exp_sum");
    float s = t == 0 ? 0.0f : inv[r];
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        const float e = j < valid_cols ? std::exp(in[r * cols + j] - mx[r]) : 0.0f;
        out[r * cols + j] = e;
        s += e;
      }
    }
    inv[r] = t == tiles - 1 ? 1.0f / s : s;
    if (++t == tiles) { t = 0; ++r; }
  }
  r = 0; t = 0;
softmax_normalize:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("softmax_normalize");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) out[r * cols + j] *= inv[r];
    }
    if (++t == tiles) { t = 0; ++r; }
  }
}

/// Softmax gradient: dS = P ⊙ (dP − rowsum(dP ⊙ P)). All R × cols; dS may alias dP.
/// stat: R words. Loops softmax_grad_dot, softmax_grad_apply.
template <int LANES>
void softmax_grad_kernel(const float* P, const float* dP, float* dS, int R, int cols, float* stat) {
  const int tiles = (cols + LANES - 1) / LANES;
  const long total = static_cast<long>(R) * tiles;
  int r = 0, t = 0;
softmax_grad_dot:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("softmax_grad_dot");
    float s = t == 0 ? 0.0f : stat[r];
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) s += dP[r * cols + j] * P[r * cols + j];
    }
    stat[r] = s;
    if (++t == tiles) { t = 0; ++r; }
  }
  r = 0; t = 0;
softmax_grad_apply:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("softmax_grad_apply");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) dS[r * cols + j] = (dP[r * cols + j] - stat[r]) * P[r * cols + j];
    }
    if (++t == tiles) { t = 0; ++r; }
  }
}

/// LayerNorm of R rows of `cols`: y = x̂·γ + β, x̂ = (x − mean)·rstd,
/// rstd = 1/√(var + eps) (biased variance). Saves x̂ (R × cols) and rstd (R) for the
/// gradient. stat: R words. Loops layernorm_mean, layernorm_var, layernorm_normalize.
template <int LANES>
void layernorm_kernel(const float* x, const float* gamma, const float* beta, float* y,
                      float* xhat, float* rstd, int R, int cols, float* stat) {
  const int tiles = (cols + LANES - 1) / LANES;
  const long total = static_cast<long>(R) * tiles;
  float* mean = stat;
  int r = 0, t = 0;
layernorm_mean:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("layernorm_mean");
    float s = t == 0 ? 0.0f : mean[r];
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) s += x[r * cols + j];
    }
    mean[r] = t == tiles - 1 ? s / cols : s;
    if (++t == tiles) { t = 0; ++r; }
  }
  r = 0; t = 0;
layernorm_var:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("layernorm_var");
    float s = t == 0 ? 0.0f : rstd[r];
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        const float c = x[r * cols + j] - mean[r];
        s += c * c;
      }
    }
    rstd[r] = t == tiles - 1 ? 1.0f / std::sqrt(s / cols + kLayerNormEps) : s;
    if (++t == tiles) { t = 0; ++r; }
  }
  r = 0; t = 0;
layernorm_normalize:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("layernorm_normalize");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        const float h = (x[r * cols + j] - mean[r]) * rstd[r];
        xhat[r * cols + j] = h;
        y[r * cols + j] = h * gamma[j] + beta[j];
      }
    }
    if (++t == tiles) { t = 0; ++r; }
  }
}

/// LayerNorm gradient. With g = dy·γ: dx = rstd · (g − mean(g) − x̂·mean(g·x̂)) (dx
/// overwritten), dγ += Σ_rows dy·x̂, dβ += Σ_rows dy. stat: 2R words.
/// Loops layernorm_grad_reduce, layernorm_grad_input, layernorm_grad_params.
template <int LANES>
void layernorm_grad_kernel(const float* dy, const float* xhat, const float* rstd,
                           const float* gamma, float* dx, float* dgamma, float* dbeta, int R,
                           int cols, float* stat) {
  const int tiles = (cols + LANES - 1) / LANES;
  const long total = static_cast<long>(R) * tiles;
  float* m1 = stat;
  float* m2 = stat + R;
  int r = 0, t = 0;
layernorm_grad_reduce:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("layernorm_grad_reduce");
    float s1 = t == 0 ? 0.0f : m1[r];
    float s2 = t == 0 ? 0.0f : m2[r];
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        const float g = dy[r * cols + j] * gamma[j];
        s1 += g;
        s2 += g * xhat[r * cols + j];
      }
    }
    m1[r] = t == tiles - 1 ? s1 / cols : s1;
    m2[r] = t == tiles - 1 ? s2 / cols : s2;
    if (++t == tiles) { t = 0; ++r; }
  }
  r = 0; t = 0;
layernorm_grad_input:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("layernorm_grad_input");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        const float g = dy[r * cols + j] * gamma[j];
        dx[r * cols + j] = rstd[r] * (g - m1[r] - xhat[r * cols + j] * m2[r]);
      }
    }
    if (++t == tiles) { t = 0; ++r; }
  }
  r = 0; t = 0;
layernorm_grad_params:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("layernorm_grad_params");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        dgamma[j] += dy[r * cols + j] * xhat[r * cols + j];
        dbeta[j] += dy[r * cols + j];
      }
    }
    if (++t == tiles) { t = 0; ++r; }
  }
}

/// GELU, tanh form, y = x · σ(kGeluK·x·(1 + kGeluC·x²)) over n = R·cols elements
/// laid out as R rows of cols. Loop gelu.
template <int LANES>
void gelu_kernel(const float* x, float* y, int R, int cols) {
  const int tiles = (cols + LANES - 1) / LANES;
  const long total = static_cast<long>(R) * tiles;
  int r = 0, t = 0;
gelu:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("gelu");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        const float v = x[r * cols + j];
        const float w = kGeluK * v * (1.0f + kGeluC * v * v);
        y[r * cols + j] = v / (1.0f + std::exp(-w));
      }
    }
    if (++t == tiles) { t = 0; ++r; }
  }
}

/// GELU gradient: dx = dy · (s + x·s·(1 − s)·kGeluK·(1 + 3·kGeluC·x²)), s = σ(w) as in
/// gelu_kernel; x is the saved pre-activation. dx may alias dy. Loop gelu_grad.
template <int LANES>
void gelu_grad_kernel(const float* x, const float* dy, float* dx, int R, int cols) {
  const int tiles = (cols + LANES - 1) / LANES;
  const long total = static_cast<long>(R) * tiles;
  int r = 0, t = 0;
gelu_grad:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("gelu_grad");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        const float v = x[r * cols + j];
        const float w = kGeluK * v * (1.0f + kGeluC * v * v);
        const float s = 1.0f / (1.0f + std::exp(-w));
        const float dw = kGeluK * (1.0f + 3.0f * kGeluC * v * v);
        dx[r * cols + j] = dy[r * cols + j] * (s + v * s * (1.0f - s) * dw);
      }
    }
    if (++t == tiles) { t = 0; ++r; }
  }
}

/// out[r·o_rs + j] = a[r·a_rs + j] + b[r·b_rs + j] for R rows of cols (a row stride of
/// 0 broadcasts one row, e.g. a bias). Loop add.
template <int LANES>
void add_kernel(const float* a, const float* b, float* out, int R, int cols, int a_rs, int b_rs,
                int o_rs) {
  const int tiles = (cols + LANES - 1) / LANES;
  const long total = static_cast<long>(R) * tiles;
  int r = 0, t = 0;
add:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("add");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) out[r * o_rs + j] = a[r * a_rs + j] + b[r * b_rs + j];
    }
    if (++t == tiles) { t = 0; ++r; }
  }
}

/// acc[r·acc_rs + j] += x[r·x_rs + j] for R rows of cols, rows in order (acc_rs = 0
/// sums every row into one: the bias gradient as column sums of dY). Loop add.
template <int LANES>
void add_accumulate_kernel(const float* x, float* acc, int R, int cols, int x_rs, int acc_rs) {
  const int tiles = (cols + LANES - 1) / LANES;
  const long total = static_cast<long>(R) * tiles;
  int r = 0, t = 0;
add:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("add");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) acc[r * acc_rs + j] += x[r * x_rs + j];
    }
    if (++t == tiles) { t = 0; ++r; }
  }
}

/// Softmax cross-entropy over R rows of `cols` logits with integer labels (label < 0:
/// row ignored, zero loss and gradient). dlogits = scale·(softmax − onehot).
/// Returns scale · Σ_rows (logsumexp − logit[label]). stat: 3R words.
/// Loops loss_max, loss_exp_sum, loss_grad.
template <int LANES>
float loss_kernel(const float* logits, const int* labels, float* dlogits, int R, int cols,
                  float scale, float* stat) {
  const int tiles = (cols + LANES - 1) / LANES;
  const long total = static_cast<long>(R) * tiles;
  float* mx = stat;
  float* xl = stat + R;
  float* a = stat + 2 * R;
  float loss = 0.0f;
  int r = 0, t = 0;
loss_max:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("loss_max");
    float m = t == 0 ? -INFINITY : mx[r];
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        const float x = logits[r * cols + j];
        m = x > m ? x : m;
        if (j == labels[r]) xl[r] = x;
      }
    }
    mx[r] = m;
    if (++t == tiles) { t = 0; ++r; }
  }
  r = 0; t = 0;
loss_exp_sum:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("loss_exp_sum");
    float s = t == 0 ? 0.0f : a[r];
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        const float e = std::exp(logits[r * cols + j] - mx[r]);
        dlogits[r * cols + j] = e;
        s += e;
      }
    }
    if (t == tiles - 1) {
      const bool used = labels[r] >= 0;
      if (used) loss += scale * (std::log(s) + mx[r] - xl[r]);
      a[r] = used ? scale / s : 0.0f;
    } else {
      a[r] = s;
    }
    if (++t == tiles) { t = 0; ++r; }
  }
  r = 0; t = 0;
loss_grad:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("loss_grad");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < cols) {
        const float y = j == labels[r] ? scale : 0.0f;
        dlogits[r * cols + j] = dlogits[r * cols + j] * a[r] - y;
      }
    }
    if (++t == tiles) { t = 0; ++r; }
  }
  return loss;
}

/// SGD in place over `words` parameters: w −= lr·g, then g = 0 (so the next step's
/// gradients start from zero without a separate clearing pass). Loop sgd_update,
/// trip ceil(words / LANES) (shape rows 1, cols words).
template <int LANES>
void sgd_kernel(float* w, float* g, int words, float lr) {
  const int tiles = (words + LANES - 1) / LANES;
sgd_update:
  for (int t = 0; t < tiles; ++t) {
#pragma HLS PIPELINE II = 1
    TTSIM_LOOP_COUNT("sgd_update");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < words) {
        w[j] -= lr * g[j];
        g[j] = 0.0f;
      }
    }
  }
}

}  // namespace ttsim_hls
