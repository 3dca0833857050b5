#pragma once
// Row-wise and element-wise training kernels: softmax (forward, gradient), LayerNorm
// (forward, gradient), GELU (forward, gradient), residual/bias add, bias-gradient column
// sums, softmax cross-entropy loss with its gradient, and the SGD update.
//
// Loop structure and trip counts: hls/include/kernel_spec.h (one pipelined loop per pass,
// LANES adjacent columns per iteration, UNROLL). Element-wise passes run (row, column
// tile). Row reductions (max, sums) interleave kAccSlots rows: the loop runs (row block,
// column tile, row in block), each row's accumulator (a register slot) is updated every
// kAccSlots iterations and the LANES values of one iteration are reduced by an adder
// (or max) tree first; the row statistic is written to `stat` at the row's last tile.
// Column sums (γ/β and bias gradients) interleave kAccSlots column tiles the same way:
// (tile block, row, tile in block). No floating-point value is carried from one iteration
// to the next, so every loop reaches II = 1 at the clocks the device files list
// (RecMII = ceil(fadd latency / kAccSlots) = 1); rows or tiles beyond the last block are
// idle slots, counted in the trip.
//
// Arithmetic: sums are taken per tile by a balanced tree, then over tiles in order, so
// rounding depends on LANES (maxima do not).

#include <cmath>

#include "hls/include/access_probe.h"
#include "hls/include/design_config.h"
#include "hls/include/kernel_spec.h"
#include "hls/kernels/contract.h"

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

namespace detail {

/// (block, tile, slot) counter of a row-slot loop: row = block·kAccSlots + slot.
struct RowSlots {
  int tiles, block = 0, t = 0, s = 0;
  explicit RowSlots(int tiles_) : tiles(tiles_) {}
  int row() const { return block * kAccSlots + s; }
  void next() {
    if (++s < kAccSlots) return;
    s = 0;
    if (++t < tiles) return;
    t = 0;
    ++block;
  }
};

/// (block, row, slot) counter of a column-slot loop: tile = block·kAccSlots + slot.
struct ColumnSlots {
  int rows, block = 0, r = 0, s = 0;
  explicit ColumnSlots(int rows_) : rows(rows_) {}
  int tile() const { return block * kAccSlots + s; }
  void next() {
    if (++s < kAccSlots) return;
    s = 0;
    if (++r < rows) return;
    r = 0;
    ++block;
  }
};

/// (row, tile) counter of an element-wise loop.
struct RowTiles {
  int tiles, r = 0, t = 0;
  explicit RowTiles(int tiles_) : tiles(tiles_) {}
  void next() {
    if (++t < tiles) return;
    t = 0;
    ++r;
  }
};

inline long trip(ttsim_spec::TripKind k, int R, int cols, int lanes) {
  return ttsim_spec::loop_trip(k, -1, 0, 1, R, 1, cols, lanes);
}

}  // namespace detail

/// Softmax over the first `valid_cols` columns of each of R rows of `cols` (row-major,
/// `in` and `out` R × cols; may alias); columns >= valid_cols get probability 0 (key
/// padding mask). stat: 2R words scratch (row max, then 1 / row sum). Loops softmax_max,
/// softmax_exp_sum, softmax_normalize. Requires 1 <= valid_cols <= cols.
template <int LANES>
void softmax_kernel(const float* in, float* out, int R, int cols, int valid_cols, float* stat) {
  using ttsim_spec::kTripElementwise;
  using ttsim_spec::kTripRowSlots;
  const int tiles = (cols + LANES - 1) / LANES;
  float acc[kAccSlots];
  {
    detail::RowSlots c(tiles);
    const long total = detail::trip(kTripRowSlots, R, cols, LANES);
    TTSIM_LOOP_BEGIN("softmax_max");
  softmax_max:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_MAX_MIN max = TTSIM_TRIPS_SOFTMAX_MAX_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("softmax_max");
      const int r = c.row();
      if (r < R) {
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          v[l] = j < valid_cols ? TTSIM_RD("in", in, r * cols + j) : -INFINITY;
        }
        const float m = LaneTree<LANES>::max(v);
        if (c.t > 0) TTSIM_REG_RD("acc", c.s);
        const float run = c.t == 0 ? m : (m > acc[c.s] ? m : acc[c.s]);
        acc[c.s] = run;
        TTSIM_REG_WR("acc", c.s);
        if (c.t == tiles - 1) TTSIM_WR("stat", stat, r, run);
      }
      c.next();
    }
  }
  {
    detail::RowSlots c(tiles);
    const long total = detail::trip(kTripRowSlots, R, cols, LANES);
    TTSIM_LOOP_BEGIN("softmax_exp_sum");
  softmax_exp_sum:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_EXP_SUM_MIN max = TTSIM_TRIPS_SOFTMAX_EXP_SUM_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("softmax_exp_sum");
      const int r = c.row();
      if (r < R) {
        const float mx = TTSIM_RD("stat", stat, r);
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          float e = 0.0f;
          if (j < cols) {
            e = j < valid_cols ? std::exp(TTSIM_RD("in", in, r * cols + j) - mx) : 0.0f;
            TTSIM_WR("out", out, r * cols + j, e);
          }
          v[l] = e;
        }
        const float part = LaneTree<LANES>::sum(v);
        if (c.t > 0) TTSIM_REG_RD("acc", c.s);
        const float s = c.t == 0 ? part : acc[c.s] + part;
        acc[c.s] = s;
        TTSIM_REG_WR("acc", c.s);
        if (c.t == tiles - 1) TTSIM_WR("stat", stat, R + r, 1.0f / s);
      }
      c.next();
    }
  }
  {
    detail::RowTiles c(tiles);
    const long total = detail::trip(kTripElementwise, R, cols, LANES);
    TTSIM_LOOP_BEGIN("softmax_normalize");
  softmax_normalize:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
// out[k] is read and written in the same iteration only: no carried dependence.
#pragma HLS DEPENDENCE variable = out type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_NORMALIZE_MIN max = TTSIM_TRIPS_SOFTMAX_NORMALIZE_MAX
      TTSIM_LOOP_ITER("softmax_normalize");
      const float inv = TTSIM_RD("stat", stat, R + c.r);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.t * LANES + l;
        if (j < cols) TTSIM_WR("out", out, c.r * cols + j, TTSIM_RD("out", out, c.r * cols + j) * inv);
      }
      c.next();
    }
  }
}

/// Softmax gradient: dS = P ⊙ (dP − rowsum(dP ⊙ P)). All R × cols; dS may alias dP.
/// stat: R words. Loops softmax_grad_dot, softmax_grad_apply.
template <int LANES>
void softmax_grad_kernel(const float* P, const float* dP, float* dS, int R, int cols, float* stat) {
  using ttsim_spec::kTripElementwise;
  using ttsim_spec::kTripRowSlots;
  const int tiles = (cols + LANES - 1) / LANES;
  float acc[kAccSlots];
  {
    detail::RowSlots c(tiles);
    const long total = detail::trip(kTripRowSlots, R, cols, LANES);
    TTSIM_LOOP_BEGIN("softmax_grad_dot");
  softmax_grad_dot:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_GRAD_DOT_MIN max = TTSIM_TRIPS_SOFTMAX_GRAD_DOT_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("softmax_grad_dot");
      const int r = c.row();
      if (r < R) {
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          v[l] = j < cols ? TTSIM_RD("dP", dP, r * cols + j) * TTSIM_RD("P", P, r * cols + j) : 0.0f;
        }
        const float part = LaneTree<LANES>::sum(v);
        if (c.t > 0) TTSIM_REG_RD("acc", c.s);
        const float s = c.t == 0 ? part : acc[c.s] + part;
        acc[c.s] = s;
        TTSIM_REG_WR("acc", c.s);
        if (c.t == tiles - 1) TTSIM_WR("stat", stat, r, s);
      }
      c.next();
    }
  }
  {
    detail::RowTiles c(tiles);
    const long total = detail::trip(kTripElementwise, R, cols, LANES);
    TTSIM_LOOP_BEGIN("softmax_grad_apply");
  softmax_grad_apply:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_GRAD_APPLY_MIN max = TTSIM_TRIPS_SOFTMAX_GRAD_APPLY_MAX
      TTSIM_LOOP_ITER("softmax_grad_apply");
      const float dot = TTSIM_RD("stat", stat, c.r);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.t * LANES + l;
        if (j < cols) {
          const int k = c.r * cols + j;
          TTSIM_WR("dS", dS, k, (TTSIM_RD("dP", dP, k) - dot) * TTSIM_RD("P", P, k));
        }
      }
      c.next();
    }
  }
}

/// LayerNorm of R rows of `cols`: y = x̂·γ + β, x̂ = (x − mean)·rstd,
/// rstd = 1/√(var + eps) (biased variance). Saves x̂ (R × cols) and rstd (R) for the
/// gradient. stat: R words (row means). Loops layernorm_mean, layernorm_var,
/// layernorm_normalize.
template <int LANES>
void layernorm_kernel(const float* x, const float* gamma, const float* beta, float* y,
                      float* xhat, float* rstd, int R, int cols, float* stat) {
  using ttsim_spec::kTripElementwise;
  using ttsim_spec::kTripRowSlots;
  const int tiles = (cols + LANES - 1) / LANES;
  const float inv_cols = 1.0f / static_cast<float>(cols);
  float acc[kAccSlots];
  {
    detail::RowSlots c(tiles);
    const long total = detail::trip(kTripRowSlots, R, cols, LANES);
    TTSIM_LOOP_BEGIN("layernorm_mean");
  layernorm_mean:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_MEAN_MIN max = TTSIM_TRIPS_LAYERNORM_MEAN_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("layernorm_mean");
      const int r = c.row();
      if (r < R) {
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          v[l] = j < cols ? TTSIM_RD("x", x, r * cols + j) : 0.0f;
        }
        const float part = LaneTree<LANES>::sum(v);
        if (c.t > 0) TTSIM_REG_RD("acc", c.s);
        const float s = c.t == 0 ? part : acc[c.s] + part;
        acc[c.s] = s;
        TTSIM_REG_WR("acc", c.s);
        if (c.t == tiles - 1) TTSIM_WR("stat", stat, r, s * inv_cols);
      }
      c.next();
    }
  }
  {
    detail::RowSlots c(tiles);
    const long total = detail::trip(kTripRowSlots, R, cols, LANES);
    TTSIM_LOOP_BEGIN("layernorm_var");
  layernorm_var:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_VAR_MIN max = TTSIM_TRIPS_LAYERNORM_VAR_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("layernorm_var");
      const int r = c.row();
      if (r < R) {
        const float mean = TTSIM_RD("stat", stat, r);
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          const float d = j < cols ? TTSIM_RD("x", x, r * cols + j) - mean : 0.0f;
          v[l] = d * d;
        }
        const float part = LaneTree<LANES>::sum(v);
        if (c.t > 0) TTSIM_REG_RD("acc", c.s);
        const float s = c.t == 0 ? part : acc[c.s] + part;
        acc[c.s] = s;
        TTSIM_REG_WR("acc", c.s);
        if (c.t == tiles - 1) TTSIM_WR("rstd", rstd, r, 1.0f / std::sqrt(s * inv_cols + kLayerNormEps));
      }
      c.next();
    }
  }
  {
    detail::RowTiles c(tiles);
    const long total = detail::trip(kTripElementwise, R, cols, LANES);
    TTSIM_LOOP_BEGIN("layernorm_normalize");
  layernorm_normalize:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_NORMALIZE_MIN max = TTSIM_TRIPS_LAYERNORM_NORMALIZE_MAX
      TTSIM_LOOP_ITER("layernorm_normalize");
      const float mean = TTSIM_RD("stat", stat, c.r);
      const float rs = TTSIM_RD("rstd", rstd, c.r);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.t * LANES + l;
        if (j < cols) {
          const int k = c.r * cols + j;
          const float h = (TTSIM_RD("x", x, k) - mean) * rs;
          TTSIM_WR("xhat", xhat, k, h);
          TTSIM_WR("y", y, k, h * TTSIM_RD("gamma", gamma, j) + TTSIM_RD("beta", beta, j));
        }
      }
      c.next();
    }
  }
}

/// LayerNorm gradient. With g = dy·γ: dx = rstd · (g − mean(g) − x̂·mean(g·x̂)) (dx
/// overwritten), dγ += Σ_rows dy·x̂, dβ += Σ_rows dy. stat: 2R words.
/// Loops layernorm_grad_reduce, layernorm_grad_input, layernorm_grad_params.
template <int LANES>
void layernorm_grad_kernel(const float* dy, const float* xhat, const float* rstd,
                           const float* gamma, float* dx, float* dgamma, float* dbeta, int R,
                           int cols, float* stat) {
  using ttsim_spec::kTripColumnSlots;
  using ttsim_spec::kTripElementwise;
  using ttsim_spec::kTripRowSlots;
  const int tiles = (cols + LANES - 1) / LANES;
  const float inv_cols = 1.0f / static_cast<float>(cols);
  {
    float acc1[kAccSlots], acc2[kAccSlots];
    detail::RowSlots c(tiles);
    const long total = detail::trip(kTripRowSlots, R, cols, LANES);
    TTSIM_LOOP_BEGIN("layernorm_grad_reduce");
  layernorm_grad_reduce:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_GRAD_REDUCE_MIN max = TTSIM_TRIPS_LAYERNORM_GRAD_REDUCE_MAX
#pragma HLS DEPENDENCE variable = acc1 type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = acc2 type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("layernorm_grad_reduce");
      const int r = c.row();
      if (r < R) {
        float v1[LANES], v2[LANES];
#pragma HLS ARRAY_PARTITION variable = v1 complete
#pragma HLS ARRAY_PARTITION variable = v2 complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          float g = 0.0f, gx = 0.0f;
          if (j < cols) {
            const int k = r * cols + j;
            g = TTSIM_RD("dy", dy, k) * TTSIM_RD("gamma", gamma, j);
            gx = g * TTSIM_RD("xhat", xhat, k);
          }
          v1[l] = g;
          v2[l] = gx;
        }
        const float p1 = LaneTree<LANES>::sum(v1), p2 = LaneTree<LANES>::sum(v2);
        if (c.t > 0) {
          TTSIM_REG_RD("acc", c.s);
          TTSIM_REG_RD("acc", kAccSlots + c.s);
        }
        const float s1 = c.t == 0 ? p1 : acc1[c.s] + p1;
        const float s2 = c.t == 0 ? p2 : acc2[c.s] + p2;
        acc1[c.s] = s1;
        acc2[c.s] = s2;
        TTSIM_REG_WR("acc", c.s);
        TTSIM_REG_WR("acc", kAccSlots + c.s);
        if (c.t == tiles - 1) {
          TTSIM_WR("stat", stat, r, s1 * inv_cols);
          TTSIM_WR("stat", stat, R + r, s2 * inv_cols);
        }
      }
      c.next();
    }
  }
  {
    detail::RowTiles c(tiles);
    const long total = detail::trip(kTripElementwise, R, cols, LANES);
    TTSIM_LOOP_BEGIN("layernorm_grad_input");
  layernorm_grad_input:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_GRAD_INPUT_MIN max = TTSIM_TRIPS_LAYERNORM_GRAD_INPUT_MAX
      TTSIM_LOOP_ITER("layernorm_grad_input");
      const float m1 = TTSIM_RD("stat", stat, c.r), m2 = TTSIM_RD("stat", stat, R + c.r);
      const float rs = TTSIM_RD("rstd", rstd, c.r);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.t * LANES + l;
        if (j < cols) {
          const int k = c.r * cols + j;
          const float g = TTSIM_RD("dy", dy, k) * TTSIM_RD("gamma", gamma, j);
          TTSIM_WR("dx", dx, k, rs * (g - m1 - TTSIM_RD("xhat", xhat, k) * m2));
        }
      }
      c.next();
    }
  }
  {
    float accg[kAccSlots][LANES], accb[kAccSlots][LANES];
#pragma HLS ARRAY_PARTITION variable = accg dim = 2 complete
#pragma HLS ARRAY_PARTITION variable = accb dim = 2 complete
    detail::ColumnSlots c(R);
    const long total = detail::trip(kTripColumnSlots, R, cols, LANES);
    TTSIM_LOOP_BEGIN("layernorm_grad_params");
  layernorm_grad_params:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
// dgamma[j] / dbeta[j] are read and written once per call, in the iteration of the last row.
#pragma HLS DEPENDENCE variable = dgamma type = inter false
#pragma HLS DEPENDENCE variable = dbeta type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_GRAD_PARAMS_MIN max = TTSIM_TRIPS_LAYERNORM_GRAD_PARAMS_MAX
#pragma HLS DEPENDENCE variable = accg type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = accb type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("layernorm_grad_params");
      const int t = c.tile();
      if (t < tiles) {
        if (c.r > 0) TTSIM_REG_RD("acc", c.s);
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = t * LANES + l;
          if (j < cols) {
            const int k = c.r * cols + j;
            const float d = TTSIM_RD("dy", dy, k);
            const float sg = (c.r == 0 ? 0.0f : accg[c.s][l]) + d * TTSIM_RD("xhat", xhat, k);
            const float sb = (c.r == 0 ? 0.0f : accb[c.s][l]) + d;
            accg[c.s][l] = sg;
            accb[c.s][l] = sb;
            if (c.r == R - 1) {
              TTSIM_WR("dgamma", dgamma, j, TTSIM_RD("dgamma", dgamma, j) + sg);
              TTSIM_WR("dbeta", dbeta, j, TTSIM_RD("dbeta", dbeta, j) + sb);
            }
          }
        }
        TTSIM_REG_WR("acc", c.s);
      }
      c.next();
    }
  }
}

/// GELU, tanh form, y = x · σ(kGeluK·x·(1 + kGeluC·x²)) over R rows of cols. Loop gelu.
template <int LANES>
void gelu_kernel(const float* x, float* y, int R, int cols) {
  const int tiles = (cols + LANES - 1) / LANES;
  detail::RowTiles c(tiles);
  const long total = detail::trip(ttsim_spec::kTripElementwise, R, cols, LANES);
  TTSIM_LOOP_BEGIN("gelu");
gelu:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_GELU_MIN max = TTSIM_TRIPS_GELU_MAX
    TTSIM_LOOP_ITER("gelu");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = c.t * LANES + l;
      if (j < cols) {
        const int k = c.r * cols + j;
        const float v = TTSIM_RD("x", x, k);
        const float w = kGeluK * v * (1.0f + kGeluC * v * v);
        TTSIM_WR("y", y, k, v / (1.0f + std::exp(-w)));
      }
    }
    c.next();
  }
}

/// GELU gradient: dx = dy · (s + x·s·(1 − s)·kGeluK·(1 + 3·kGeluC·x²)), s = σ(w) as in
/// gelu_kernel; x is the saved pre-activation. dx may alias dy. Loop gelu_grad.
template <int LANES>
void gelu_grad_kernel(const float* x, const float* dy, float* dx, int R, int cols) {
  const int tiles = (cols + LANES - 1) / LANES;
  detail::RowTiles c(tiles);
  const long total = detail::trip(ttsim_spec::kTripElementwise, R, cols, LANES);
  TTSIM_LOOP_BEGIN("gelu_grad");
gelu_grad:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_GELU_GRAD_MIN max = TTSIM_TRIPS_GELU_GRAD_MAX
    TTSIM_LOOP_ITER("gelu_grad");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = c.t * LANES + l;
      if (j < cols) {
        const int k = c.r * cols + j;
        const float v = TTSIM_RD("x", x, k);
        const float w = kGeluK * v * (1.0f + kGeluC * v * v);
        const float s = 1.0f / (1.0f + std::exp(-w));
        const float dw = kGeluK * (1.0f + 3.0f * kGeluC * v * v);
        TTSIM_WR("dx", dx, k, TTSIM_RD("dy", dy, k) * (s + v * s * (1.0f - s) * dw));
      }
    }
    c.next();
  }
}

/// out[r·o_rs + j] = a[r·a_rs + j] + b[r·b_rs + j] for R rows of cols (a row stride of
/// 0 broadcasts one row, e.g. a bias). Loop add.
template <int LANES>
void add_kernel(const float* a, const float* b, float* out, int R, int cols, int a_rs, int b_rs,
                int o_rs) {
  const int tiles = (cols + LANES - 1) / LANES;
  detail::RowTiles c(tiles);
  const long total = detail::trip(ttsim_spec::kTripElementwise, R, cols, LANES);
  TTSIM_LOOP_BEGIN("add");
add:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_ADD_MIN max = TTSIM_TRIPS_ADD_MAX
    TTSIM_LOOP_ITER("add");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = c.t * LANES + l;
      if (j < cols) {
        TTSIM_WR("out", out, c.r * o_rs + j,
                 TTSIM_RD("a", a, c.r * a_rs + j) + TTSIM_RD("b", b, c.r * b_rs + j));
      }
    }
    c.next();
  }
}

/// acc[r·acc_rs + j] += x[r·x_rs + j] for R rows of cols; every acc element distinct
/// (acc_rs >= cols; column sums are column_sum_kernel). Loop add_accumulate.
template <int LANES>
void add_accumulate_kernel(const float* x, float* acc, int R, int cols, int x_rs, int acc_rs) {
  const int tiles = (cols + LANES - 1) / LANES;
  detail::RowTiles c(tiles);
  const long total = detail::trip(ttsim_spec::kTripElementwise, R, cols, LANES);
  TTSIM_LOOP_BEGIN("add_accumulate");
add_accumulate:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
// every acc element is read and written in one iteration (acc_rs >= cols: distinct elements).
#pragma HLS DEPENDENCE variable = acc type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_ADD_ACCUMULATE_MIN max = TTSIM_TRIPS_ADD_ACCUMULATE_MAX
    TTSIM_LOOP_ITER("add_accumulate");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = c.t * LANES + l;
      if (j < cols) {
        const int k = c.r * acc_rs + j;
        TTSIM_WR("acc", acc, k, TTSIM_RD("acc", acc, k) + TTSIM_RD("x", x, c.r * x_rs + j));
      }
    }
    c.next();
  }
}

/// sum[j] += Σ_r x[r·x_rs + j] for R rows of cols (the bias gradient as column sums of
/// dY). Loop column_sum.
template <int LANES>
void column_sum_kernel(const float* x, float* sum, int R, int cols, int x_rs) {
  const int tiles = (cols + LANES - 1) / LANES;
  float acc[kAccSlots][LANES];
#pragma HLS ARRAY_PARTITION variable = acc dim = 2 complete
  detail::ColumnSlots c(R);
  const long total = detail::trip(ttsim_spec::kTripColumnSlots, R, cols, LANES);
  TTSIM_LOOP_BEGIN("column_sum");
column_sum:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
// sum[j] is read and written once per call, in the iteration of the last row.
#pragma HLS DEPENDENCE variable = sum type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_COLUMN_SUM_MIN max = TTSIM_TRIPS_COLUMN_SUM_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("column_sum");
    const int t = c.tile();
    if (t < tiles) {
      if (c.r > 0) TTSIM_REG_RD("acc", c.s);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = t * LANES + l;
        if (j < cols) {
          const float s = (c.r == 0 ? 0.0f : acc[c.s][l]) + TTSIM_RD("x", x, c.r * x_rs + j);
          acc[c.s][l] = s;
          if (c.r == R - 1) TTSIM_WR("sum", sum, j, TTSIM_RD("sum", sum, j) + s);
        }
      }
      TTSIM_REG_WR("acc", c.s);
    }
    c.next();
  }
}

/// Softmax cross-entropy over R rows of `cols` logits with integer labels (label < 0:
/// row ignored, zero loss and gradient). dlogits = scale·(softmax − onehot).
/// Returns scale · Σ_rows (logsumexp − logit[label]). stat: 2R words (row max, then
/// scale / row sum or 0). Loops loss_max, loss_exp_sum, loss_grad; the kAccSlots partial
/// losses are summed by a tree after loss_exp_sum.
template <int LANES>
float loss_kernel(const float* logits, const int* labels, float* dlogits, int R, int cols,
                  float scale, float* stat) {
  using ttsim_spec::kTripElementwise;
  using ttsim_spec::kTripRowSlots;
  const int tiles = (cols + LANES - 1) / LANES;
  float acc[kAccSlots], xl[kAccSlots], lacc[kAccSlots];
  {
    detail::RowSlots c(tiles);
    const long total = detail::trip(kTripRowSlots, R, cols, LANES);
    TTSIM_LOOP_BEGIN("loss_max");
  loss_max:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LOSS_MAX_MIN max = TTSIM_TRIPS_LOSS_MAX_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("loss_max");
      const int r = c.row();
      if (r < R) {
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          v[l] = j < cols ? TTSIM_RD("logits", logits, r * cols + j) : -INFINITY;
        }
        const float m = LaneTree<LANES>::max(v);
        if (c.t > 0) TTSIM_REG_RD("acc", c.s);
        const float run = c.t == 0 ? m : (m > acc[c.s] ? m : acc[c.s]);
        acc[c.s] = run;
        TTSIM_REG_WR("acc", c.s);
        if (c.t == tiles - 1) TTSIM_WR("stat", stat, r, run);
      }
      c.next();
    }
  }
  for (int s = 0; s < kAccSlots; ++s) {
#pragma HLS UNROLL
    lacc[s] = 0.0f;
  }
  {
    detail::RowSlots c(tiles);
    const long total = detail::trip(kTripRowSlots, R, cols, LANES);
    TTSIM_LOOP_BEGIN("loss_exp_sum");
  loss_exp_sum:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LOSS_EXP_SUM_MIN max = TTSIM_TRIPS_LOSS_EXP_SUM_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = xl type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = lacc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("loss_exp_sum");
      const int r = c.row();
      if (r < R) {
        const float mx = TTSIM_RD("stat", stat, r);
        const int label = TTSIM_RD("labels", labels, r);
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          float e = 0.0f;
          if (j < cols) {
            const float x = TTSIM_RD("logits", logits, r * cols + j);
            e = std::exp(x - mx);
            TTSIM_WR("dlogits", dlogits, r * cols + j, e);
            if (j == label) {
              xl[c.s] = x;
              TTSIM_REG_WR("label_logit", c.s);
            }
          }
          v[l] = e;
        }
        const float part = LaneTree<LANES>::sum(v);
        if (c.t > 0) TTSIM_REG_RD("acc", c.s);
        const float s = c.t == 0 ? part : acc[c.s] + part;
        acc[c.s] = s;
        TTSIM_REG_WR("acc", c.s);
        if (c.t == tiles - 1) {
          const bool used = label >= 0;
          if (used) {
            TTSIM_REG_RD("label_logit", c.s);
            TTSIM_REG_RD("loss_acc", c.s);
            lacc[c.s] += scale * (std::log(s) + mx - xl[c.s]);
            TTSIM_REG_WR("loss_acc", c.s);
          }
          TTSIM_WR("stat", stat, R + r, used ? scale / s : 0.0f);
        }
      }
      c.next();
    }
  }
  const float loss = LaneTree<kAccSlots>::sum(lacc);
  {
    detail::RowTiles c(tiles);
    const long total = detail::trip(kTripElementwise, R, cols, LANES);
    TTSIM_LOOP_BEGIN("loss_grad");
  loss_grad:
    for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
// dlogits[k] is read and written in the same iteration only.
#pragma HLS DEPENDENCE variable = dlogits type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LOSS_GRAD_MIN max = TTSIM_TRIPS_LOSS_GRAD_MAX
      TTSIM_LOOP_ITER("loss_grad");
      const float a = TTSIM_RD("stat", stat, R + c.r);
      const int label = TTSIM_RD("labels", labels, c.r);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.t * LANES + l;
        if (j < cols) {
          const int k = c.r * cols + j;
          const float y = j == label ? scale : 0.0f;
          TTSIM_WR("dlogits", dlogits, k, TTSIM_RD("dlogits", dlogits, k) * a - y);
        }
      }
      c.next();
    }
  }
  return loss;
}

/// SGD in place over `words` parameters: w −= lr·g, then g = 0 (so the next step's
/// gradients start from zero without a separate clearing pass). Loop sgd_update,
/// trip ceil(words / LANES) (shape rows 1, cols words).
template <int LANES>
void sgd_kernel(float* w, float* g, int words, float lr) {
  const int tiles = (words + LANES - 1) / LANES;
  const long total = detail::trip(ttsim_spec::kTripElementwise, 1, words, LANES);
  TTSIM_LOOP_BEGIN("sgd_update");
sgd_update:
  for (long t = 0; t < total; ++t) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SGD_UPDATE_MIN max = TTSIM_TRIPS_SGD_UPDATE_MAX
    TTSIM_LOOP_ITER("sgd_update");
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = static_cast<int>(t) * LANES + l;
      if (j < words) {
        TTSIM_WR("w", w, j, TTSIM_RD("w", w, j) - lr * TTSIM_RD("g", g, j));
        TTSIM_WR("g", g, j, 0.0f);
      }
    }
  }
  (void)tiles;
}

}  // namespace ttsim_hls
