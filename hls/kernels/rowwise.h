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
// Arguments: every float argument is an on-chip array of B banks, `T x_mem[][B]`, and a
// word offset x_off (hls/include/banked.h); the body sees it as the Banked view x. The
// DEPENDENCE pragmas name the arrays (x_mem): they are function arguments, so the pragma
// applies to the memory every access of the loop goes to. The labels of loss_kernel are
// words of the int array `index` from labels_off. Each kernel also has an overload on
// Banked views (host code and tests) that forwards to it. The LANES
// consecutive words of a tile are moved by one lane_read / lane_write per array per
// iteration (the `n` valid lanes of the tile; each bank addressed with its index known at
// synthesis, one port per access) into / from a register array the unrolled lane loop
// computes on; per-row values (statistics, rstd) are single words, bank_read /
// bank_write. Each such call is one access site of kernel_spec.h. Requires LANES <= B.
//
// Arithmetic: sums are taken per tile by a balanced tree, then over tiles in order, so
// rounding depends on LANES (maxima do not).

#include <cmath>

#include "hls/include/access_probe.h"
#include "hls/include/banked.h"
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
template <int LANES, int B>
void softmax_kernel(const float in_mem[][B], int in_off, float out_mem[][B], int out_off, int R, int cols,
                    int valid_cols, float stat_mem[][B], int stat_off) {
  const Banked<const float, B> in(in_mem, in_off);
  const Banked<float, B> out(out_mem, out_off);
  const Banked<float, B> stat(stat_mem, stat_off);
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
#pragma HLS PIPELINE II = TTSIM_II_SOFTMAX_MAX
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_MAX_MIN max = TTSIM_TRIPS_SOFTMAX_MAX_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("softmax_max");
      const int r = c.row();
      if (r < R) {
        // Only the unmasked columns (j < valid_cols) are read.
        const int nv = tile_lanes<LANES>(c.t * LANES, valid_cols);
        float xv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
        lane_read<LANES>("in", in, r * cols + c.t * LANES, nv, xv);
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          v[l] = j < valid_cols ? xv[l] : -INFINITY;
        }
        const float m = LaneTree<LANES>::max(v);
        float run = m;
        if (c.t > 0) {
          const float prev = acc_read("acc", acc, c.s);
          run = m > prev ? m : prev;
        }
        acc_write("acc", acc, c.s) = run;
        if (c.t == tiles - 1) bank_write("stat", stat, r, run);
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
#pragma HLS PIPELINE II = TTSIM_II_SOFTMAX_EXP_SUM
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_EXP_SUM_MIN max = TTSIM_TRIPS_SOFTMAX_EXP_SUM_MAX
// stat is read in its first half (row r) and written in its second (R + r) only.
#pragma HLS DEPENDENCE variable = stat_mem type = inter false
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("softmax_exp_sum");
      const int r = c.row();
      if (r < R) {
        const float mx = bank_read("stat", stat, r);
        const int base = r * cols + c.t * LANES;
        // `in` is read for the unmasked columns, `out` written for every column of the tile.
        const int nv = tile_lanes<LANES>(c.t * LANES, valid_cols);
        const int nl = tile_lanes<LANES>(c.t * LANES, cols);
        float xv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
        lane_read<LANES>("in", in, base, nv, xv);
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          float e = 0.0f;
          if (j < cols) e = j < valid_cols ? std::exp(xv[l] - mx) : 0.0f;
          v[l] = e;
        }
        lane_write<LANES>("out", out, base, nl, v);
        const float part = LaneTree<LANES>::sum(v);
        const float s = c.t == 0 ? part : acc_read("acc", acc, c.s) + part;
        acc_write("acc", acc, c.s) = s;
        if (c.t == tiles - 1) bank_write("stat", stat, R + r, 1.0f / s);
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
#pragma HLS PIPELINE II = TTSIM_II_SOFTMAX_NORMALIZE
// out[k] is read and written in the same iteration only: no carried dependence.
#pragma HLS DEPENDENCE variable = out_mem type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_NORMALIZE_MIN max = TTSIM_TRIPS_SOFTMAX_NORMALIZE_MAX
      TTSIM_LOOP_ITER("softmax_normalize");
      const float inv = bank_read("stat", stat, R + c.r);
      const int base = c.r * cols + c.t * LANES;
      const int nl = tile_lanes<LANES>(c.t * LANES, cols);
      float ov[LANES];
#pragma HLS ARRAY_PARTITION variable = ov complete
      lane_read<LANES>("out", out, base, nl, ov);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.t * LANES + l;
        ov[l] = j < cols ? ov[l] * inv : 0.0f;
      }
      lane_write<LANES>("out", out, base, nl, ov);
      c.next();
    }
  }
}

/// Softmax gradient: dS = P ⊙ (dP − rowsum(dP ⊙ P)). All R × cols; dS may alias dP.
/// stat: R words. Loops softmax_grad_dot, softmax_grad_apply.
template <int LANES, int B>
void softmax_grad_kernel(const float P_mem[][B], int P_off, const float dP_mem[][B], int dP_off, float dS_mem[][B],
                         int dS_off, int R, int cols, float stat_mem[][B], int stat_off) {
  const Banked<const float, B> P(P_mem, P_off);
  const Banked<const float, B> dP(dP_mem, dP_off);
  const Banked<float, B> dS(dS_mem, dS_off);
  const Banked<float, B> stat(stat_mem, stat_off);
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
#pragma HLS PIPELINE II = TTSIM_II_SOFTMAX_GRAD_DOT
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_GRAD_DOT_MIN max = TTSIM_TRIPS_SOFTMAX_GRAD_DOT_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("softmax_grad_dot");
      const int r = c.row();
      if (r < R) {
        const int base = r * cols + c.t * LANES;
        const int nl = tile_lanes<LANES>(c.t * LANES, cols);
        float dpv[LANES], pv[LANES];
#pragma HLS ARRAY_PARTITION variable = dpv complete
#pragma HLS ARRAY_PARTITION variable = pv complete
        lane_read<LANES>("dP", dP, base, nl, dpv);
        lane_read<LANES>("P", P, base, nl, pv);
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          v[l] = j < cols ? dpv[l] * pv[l] : 0.0f;
        }
        const float part = LaneTree<LANES>::sum(v);
        const float s = c.t == 0 ? part : acc_read("acc", acc, c.s) + part;
        acc_write("acc", acc, c.s) = s;
        if (c.t == tiles - 1) bank_write("stat", stat, r, s);
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
#pragma HLS PIPELINE II = TTSIM_II_SOFTMAX_GRAD_APPLY
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_GRAD_APPLY_MIN max = TTSIM_TRIPS_SOFTMAX_GRAD_APPLY_MAX
      TTSIM_LOOP_ITER("softmax_grad_apply");
      const float dot = bank_read("stat", stat, c.r);
      const int base = c.r * cols + c.t * LANES;
      const int nl = tile_lanes<LANES>(c.t * LANES, cols);
      float dpv[LANES], pv[LANES], ov[LANES];
#pragma HLS ARRAY_PARTITION variable = dpv complete
#pragma HLS ARRAY_PARTITION variable = pv complete
#pragma HLS ARRAY_PARTITION variable = ov complete
      lane_read<LANES>("dP", dP, base, nl, dpv);
      lane_read<LANES>("P", P, base, nl, pv);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.t * LANES + l;
        ov[l] = j < cols ? (dpv[l] - dot) * pv[l] : 0.0f;
      }
      lane_write<LANES>("dS", dS, base, nl, ov);
      c.next();
    }
  }
}

/// LayerNorm of R rows of `cols`: y = x̂·γ + β, x̂ = (x − mean)·rstd,
/// rstd = 1/√(var + eps) (biased variance). Saves x̂ (R × cols) and rstd (R) for the
/// gradient. stat: R words (row means). Loops layernorm_mean, layernorm_var,
/// layernorm_normalize.
template <int LANES, int B>
void layernorm_kernel(const float x_mem[][B], int x_off, const float gamma_mem[][B], int gamma_off,
                      const float beta_mem[][B], int beta_off, float y_mem[][B], int y_off, float xhat_mem[][B],
                      int xhat_off, float rstd_mem[][B], int rstd_off, int R, int cols, float stat_mem[][B],
                      int stat_off) {
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<const float, B> gamma(gamma_mem, gamma_off);
  const Banked<const float, B> beta(beta_mem, beta_off);
  const Banked<float, B> y(y_mem, y_off);
  const Banked<float, B> xhat(xhat_mem, xhat_off);
  const Banked<float, B> rstd(rstd_mem, rstd_off);
  const Banked<float, B> stat(stat_mem, stat_off);
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
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_MEAN
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_MEAN_MIN max = TTSIM_TRIPS_LAYERNORM_MEAN_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("layernorm_mean");
      const int r = c.row();
      if (r < R) {
        const int nl = tile_lanes<LANES>(c.t * LANES, cols);
        float xv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
        lane_read<LANES>("x", x, r * cols + c.t * LANES, nl, xv);
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          v[l] = j < cols ? xv[l] : 0.0f;
        }
        const float part = LaneTree<LANES>::sum(v);
        const float s = c.t == 0 ? part : acc_read("acc", acc, c.s) + part;
        acc_write("acc", acc, c.s) = s;
        if (c.t == tiles - 1) bank_write("stat", stat, r, s * inv_cols);
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
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_VAR
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_VAR_MIN max = TTSIM_TRIPS_LAYERNORM_VAR_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("layernorm_var");
      const int r = c.row();
      if (r < R) {
        const float mean = bank_read("stat", stat, r);
        const int nl = tile_lanes<LANES>(c.t * LANES, cols);
        float xv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
        lane_read<LANES>("x", x, r * cols + c.t * LANES, nl, xv);
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          const float d = j < cols ? xv[l] - mean : 0.0f;
          v[l] = d * d;
        }
        const float part = LaneTree<LANES>::sum(v);
        const float s = c.t == 0 ? part : acc_read("acc", acc, c.s) + part;
        acc_write("acc", acc, c.s) = s;
        if (c.t == tiles - 1) bank_write("rstd", rstd, r, 1.0f / std::sqrt(s * inv_cols + kLayerNormEps));
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
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_NORMALIZE
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_NORMALIZE_MIN max = TTSIM_TRIPS_LAYERNORM_NORMALIZE_MAX
      TTSIM_LOOP_ITER("layernorm_normalize");
      const float mean = bank_read("stat", stat, c.r);
      const float rs = bank_read("rstd", rstd, c.r);
      const int base = c.r * cols + c.t * LANES;
      const int nl = tile_lanes<LANES>(c.t * LANES, cols);
      float xv[LANES], gv[LANES], bv[LANES], hv[LANES], yv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
#pragma HLS ARRAY_PARTITION variable = gv complete
#pragma HLS ARRAY_PARTITION variable = bv complete
#pragma HLS ARRAY_PARTITION variable = hv complete
#pragma HLS ARRAY_PARTITION variable = yv complete
      lane_read<LANES>("x", x, base, nl, xv);
      lane_read<LANES>("gamma", gamma, c.t * LANES, nl, gv);
      lane_read<LANES>("beta", beta, c.t * LANES, nl, bv);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.t * LANES + l;
        float h = 0.0f, o = 0.0f;
        if (j < cols) {
          h = (xv[l] - mean) * rs;
          o = h * gv[l] + bv[l];
        }
        hv[l] = h;
        yv[l] = o;
      }
      lane_write<LANES>("xhat", xhat, base, nl, hv);
      lane_write<LANES>("y", y, base, nl, yv);
      c.next();
    }
  }
}

/// LayerNorm gradient. With g = dy·γ: dx = rstd · (g − mean(g) − x̂·mean(g·x̂)) (dx
/// overwritten), dγ += Σ_rows dy·x̂, dβ += Σ_rows dy. stat: 2R words.
/// Loops layernorm_grad_reduce, layernorm_grad_input, layernorm_grad_params.
template <int LANES, int B>
void layernorm_grad_kernel(const float dy_mem[][B], int dy_off, const float xhat_mem[][B], int xhat_off,
                           const float rstd_mem[][B], int rstd_off, const float gamma_mem[][B], int gamma_off,
                           float dx_mem[][B], int dx_off, float dgamma_mem[][B], int dgamma_off, float dbeta_mem[][B],
                           int dbeta_off, int R, int cols, float stat_mem[][B], int stat_off) {
  const Banked<const float, B> dy(dy_mem, dy_off);
  const Banked<const float, B> xhat(xhat_mem, xhat_off);
  const Banked<const float, B> rstd(rstd_mem, rstd_off);
  const Banked<const float, B> gamma(gamma_mem, gamma_off);
  const Banked<float, B> dx(dx_mem, dx_off);
  const Banked<float, B> dgamma(dgamma_mem, dgamma_off);
  const Banked<float, B> dbeta(dbeta_mem, dbeta_off);
  const Banked<float, B> stat(stat_mem, stat_off);
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
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_GRAD_REDUCE
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_GRAD_REDUCE_MIN max = TTSIM_TRIPS_LAYERNORM_GRAD_REDUCE_MAX
#pragma HLS DEPENDENCE variable = acc1 type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = acc2 type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("layernorm_grad_reduce");
      const int r = c.row();
      if (r < R) {
        const int base = r * cols + c.t * LANES;
        const int nl = tile_lanes<LANES>(c.t * LANES, cols);
        float dyv[LANES], gv[LANES], hv[LANES];
#pragma HLS ARRAY_PARTITION variable = dyv complete
#pragma HLS ARRAY_PARTITION variable = gv complete
#pragma HLS ARRAY_PARTITION variable = hv complete
        lane_read<LANES>("dy", dy, base, nl, dyv);
        lane_read<LANES>("gamma", gamma, c.t * LANES, nl, gv);
        lane_read<LANES>("xhat", xhat, base, nl, hv);
        float v1[LANES], v2[LANES];
#pragma HLS ARRAY_PARTITION variable = v1 complete
#pragma HLS ARRAY_PARTITION variable = v2 complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          float g = 0.0f, gx = 0.0f;
          if (j < cols) {
            g = dyv[l] * gv[l];
            gx = g * hv[l];
          }
          v1[l] = g;
          v2[l] = gx;
        }
        const float p1 = LaneTree<LANES>::sum(v1), p2 = LaneTree<LANES>::sum(v2);
        const float s1 = c.t == 0 ? p1 : acc_read("acc", acc1, c.s) + p1;
        const float s2 = c.t == 0 ? p2 : acc_read("acc", acc2, c.s) + p2;
        acc_write("acc", acc1, c.s) = s1;
        acc_write("acc", acc2, c.s) = s2;
        if (c.t == tiles - 1) {
          bank_write("stat", stat, r, s1 * inv_cols);
          bank_write("stat", stat, R + r, s2 * inv_cols);
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
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_GRAD_INPUT
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_GRAD_INPUT_MIN max = TTSIM_TRIPS_LAYERNORM_GRAD_INPUT_MAX
      TTSIM_LOOP_ITER("layernorm_grad_input");
      const float m1 = bank_read("stat", stat, c.r), m2 = bank_read("stat", stat, R + c.r);
      const float rs = bank_read("rstd", rstd, c.r);
      const int base = c.r * cols + c.t * LANES;
      const int nl = tile_lanes<LANES>(c.t * LANES, cols);
      float dyv[LANES], gv[LANES], hv[LANES], ov[LANES];
#pragma HLS ARRAY_PARTITION variable = dyv complete
#pragma HLS ARRAY_PARTITION variable = gv complete
#pragma HLS ARRAY_PARTITION variable = hv complete
#pragma HLS ARRAY_PARTITION variable = ov complete
      lane_read<LANES>("dy", dy, base, nl, dyv);
      lane_read<LANES>("gamma", gamma, c.t * LANES, nl, gv);
      lane_read<LANES>("xhat", xhat, base, nl, hv);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.t * LANES + l;
        float o = 0.0f;
        if (j < cols) {
          const float g = dyv[l] * gv[l];
          o = rs * (g - m1 - hv[l] * m2);
        }
        ov[l] = o;
      }
      lane_write<LANES>("dx", dx, base, nl, ov);
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
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_GRAD_PARAMS
// dgamma[j] / dbeta[j] are read and written once per call, in the iteration of the last row.
#pragma HLS DEPENDENCE variable = dgamma_mem type = inter false
#pragma HLS DEPENDENCE variable = dbeta_mem type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_GRAD_PARAMS_MIN max = TTSIM_TRIPS_LAYERNORM_GRAD_PARAMS_MAX
#pragma HLS DEPENDENCE variable = accg type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = accb type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("layernorm_grad_params");
      const int t = c.tile();
      if (t < tiles) {
        const int base = c.r * cols + t * LANES;
        const int nl = tile_lanes<LANES>(t * LANES, cols);
        float dyv[LANES], hv[LANES], sgv[LANES], sbv[LANES];
#pragma HLS ARRAY_PARTITION variable = dyv complete
#pragma HLS ARRAY_PARTITION variable = hv complete
#pragma HLS ARRAY_PARTITION variable = sgv complete
#pragma HLS ARRAY_PARTITION variable = sbv complete
        lane_read<LANES>("dy", dy, base, nl, dyv);
        lane_read<LANES>("xhat", xhat, base, nl, hv);
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = t * LANES + l;
          float sg = 0.0f, sb = 0.0f;
          if (j < cols) {
            const float d = dyv[l];
            sg = (c.r == 0 ? 0.0f : acc_read("acc", accg, c.s)[l]) + d * hv[l];
            sb = (c.r == 0 ? 0.0f : acc_read("acc", accb, c.s)[l]) + d;
            acc_write("acc", accg, c.s)[l] = sg;
            acc_write("acc", accb, c.s)[l] = sb;
          }
          sgv[l] = sg;
          sbv[l] = sb;
        }
        if (c.r == R - 1) {
          // The column sums are added to dgamma / dbeta at the last row (valid lanes only).
          float dgv[LANES], dbv[LANES];
#pragma HLS ARRAY_PARTITION variable = dgv complete
#pragma HLS ARRAY_PARTITION variable = dbv complete
          lane_read<LANES>("dgamma", dgamma, t * LANES, nl, dgv);
          lane_read<LANES>("dbeta", dbeta, t * LANES, nl, dbv);
          for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
            dgv[l] = dgv[l] + sgv[l];
            dbv[l] = dbv[l] + sbv[l];
          }
          lane_write<LANES>("dgamma", dgamma, t * LANES, nl, dgv);
          lane_write<LANES>("dbeta", dbeta, t * LANES, nl, dbv);
        }
      }
      c.next();
    }
  }
}

/// GELU, tanh form, y = x · σ(kGeluK·x·(1 + kGeluC·x²)) over R rows of cols. Loop gelu.
template <int LANES, int B>
void gelu_kernel(const float x_mem[][B], int x_off, float y_mem[][B], int y_off, int R, int cols) {
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<float, B> y(y_mem, y_off);
  const int tiles = (cols + LANES - 1) / LANES;
  detail::RowTiles c(tiles);
  const long total = detail::trip(ttsim_spec::kTripElementwise, R, cols, LANES);
  TTSIM_LOOP_BEGIN("gelu");
gelu:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_GELU
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_GELU_MIN max = TTSIM_TRIPS_GELU_MAX
    TTSIM_LOOP_ITER("gelu");
    const int base = c.r * cols + c.t * LANES;
    const int nl = tile_lanes<LANES>(c.t * LANES, cols);
    float xv[LANES], yv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
#pragma HLS ARRAY_PARTITION variable = yv complete
    lane_read<LANES>("x", x, base, nl, xv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = c.t * LANES + l;
      float o = 0.0f;
      if (j < cols) {
        const float v = xv[l];
        const float w = kGeluK * v * (1.0f + kGeluC * v * v);
        o = v / (1.0f + std::exp(-w));
      }
      yv[l] = o;
    }
    lane_write<LANES>("y", y, base, nl, yv);
    c.next();
  }
}

/// GELU gradient: dx = dy · (s + x·s·(1 − s)·kGeluK·(1 + 3·kGeluC·x²)), s = σ(w) as in
/// gelu_kernel; x is the saved pre-activation. dx may alias dy. Loop gelu_grad.
template <int LANES, int B>
void gelu_grad_kernel(const float x_mem[][B], int x_off, const float dy_mem[][B], int dy_off, float dx_mem[][B],
                      int dx_off, int R, int cols) {
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<const float, B> dy(dy_mem, dy_off);
  const Banked<float, B> dx(dx_mem, dx_off);
  const int tiles = (cols + LANES - 1) / LANES;
  detail::RowTiles c(tiles);
  const long total = detail::trip(ttsim_spec::kTripElementwise, R, cols, LANES);
  TTSIM_LOOP_BEGIN("gelu_grad");
gelu_grad:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_GELU_GRAD
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_GELU_GRAD_MIN max = TTSIM_TRIPS_GELU_GRAD_MAX
    TTSIM_LOOP_ITER("gelu_grad");
    const int base = c.r * cols + c.t * LANES;
    const int nl = tile_lanes<LANES>(c.t * LANES, cols);
    float xv[LANES], dyv[LANES], ov[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
#pragma HLS ARRAY_PARTITION variable = dyv complete
#pragma HLS ARRAY_PARTITION variable = ov complete
    lane_read<LANES>("x", x, base, nl, xv);
    lane_read<LANES>("dy", dy, base, nl, dyv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = c.t * LANES + l;
      float o = 0.0f;
      if (j < cols) {
        const float v = xv[l];
        const float w = kGeluK * v * (1.0f + kGeluC * v * v);
        const float s = 1.0f / (1.0f + std::exp(-w));
        const float dw = kGeluK * (1.0f + 3.0f * kGeluC * v * v);
        o = dyv[l] * (s + v * s * (1.0f - s) * dw);
      }
      ov[l] = o;
    }
    lane_write<LANES>("dx", dx, base, nl, ov);
    c.next();
  }
}

/// out[r·o_rs + j] = a[r·a_rs + j] + b[r·b_rs + j] for R rows of cols (a row stride of
/// 0 broadcasts one row, e.g. a bias). Loop add.
template <int LANES, int B>
void add_kernel(const float a_mem[][B], int a_off, const float b_mem[][B], int b_off, float out_mem[][B], int out_off,
                int R, int cols, int a_rs, int b_rs, int o_rs) {
  const Banked<const float, B> a(a_mem, a_off);
  const Banked<const float, B> b(b_mem, b_off);
  const Banked<float, B> out(out_mem, out_off);
  const int tiles = (cols + LANES - 1) / LANES;
  detail::RowTiles c(tiles);
  const long total = detail::trip(ttsim_spec::kTripElementwise, R, cols, LANES);
  TTSIM_LOOP_BEGIN("add");
add:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_ADD
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_ADD_MIN max = TTSIM_TRIPS_ADD_MAX
    TTSIM_LOOP_ITER("add");
    const int nl = tile_lanes<LANES>(c.t * LANES, cols);
    float av[LANES], bv[LANES], ov[LANES];
#pragma HLS ARRAY_PARTITION variable = av complete
#pragma HLS ARRAY_PARTITION variable = bv complete
#pragma HLS ARRAY_PARTITION variable = ov complete
    lane_read<LANES>("a", a, c.r * a_rs + c.t * LANES, nl, av);
    lane_read<LANES>("b", b, c.r * b_rs + c.t * LANES, nl, bv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = c.t * LANES + l;
      ov[l] = j < cols ? av[l] + bv[l] : 0.0f;
    }
    lane_write<LANES>("out", out, c.r * o_rs + c.t * LANES, nl, ov);
    c.next();
  }
}

/// acc[r·acc_rs + j] += x[r·x_rs + j] for R rows of cols; every acc element distinct
/// (acc_rs >= cols; column sums are column_sum_kernel). Loop add_accumulate.
template <int LANES, int B>
void add_accumulate_kernel(const float x_mem[][B], int x_off, float acc_mem[][B], int acc_off, int R, int cols,
                           int x_rs, int acc_rs) {
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<float, B> acc(acc_mem, acc_off);
  const int tiles = (cols + LANES - 1) / LANES;
  detail::RowTiles c(tiles);
  const long total = detail::trip(ttsim_spec::kTripElementwise, R, cols, LANES);
  TTSIM_LOOP_BEGIN("add_accumulate");
add_accumulate:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_ADD_ACCUMULATE
// every acc element is read and written in one iteration (acc_rs >= cols: distinct elements).
#pragma HLS DEPENDENCE variable = acc_mem type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_ADD_ACCUMULATE_MIN max = TTSIM_TRIPS_ADD_ACCUMULATE_MAX
    TTSIM_LOOP_ITER("add_accumulate");
    const int k = c.r * acc_rs + c.t * LANES;
    const int nl = tile_lanes<LANES>(c.t * LANES, cols);
    float av[LANES], xv[LANES];
#pragma HLS ARRAY_PARTITION variable = av complete
#pragma HLS ARRAY_PARTITION variable = xv complete
    lane_read<LANES>("acc", acc, k, nl, av);
    lane_read<LANES>("x", x, c.r * x_rs + c.t * LANES, nl, xv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = c.t * LANES + l;
      av[l] = j < cols ? av[l] + xv[l] : 0.0f;
    }
    lane_write<LANES>("acc", acc, k, nl, av);
    c.next();
  }
}

/// sum[j] += Σ_r x[r·x_rs + j] for R rows of cols (the bias gradient as column sums of
/// dY). Loop column_sum.
template <int LANES, int B>
void column_sum_kernel(const float x_mem[][B], int x_off, float sum_mem[][B], int sum_off, int R, int cols, int x_rs) {
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<float, B> sum(sum_mem, sum_off);
  const int tiles = (cols + LANES - 1) / LANES;
  float acc[kAccSlots][LANES];
#pragma HLS ARRAY_PARTITION variable = acc dim = 2 complete
  detail::ColumnSlots c(R);
  const long total = detail::trip(ttsim_spec::kTripColumnSlots, R, cols, LANES);
  TTSIM_LOOP_BEGIN("column_sum");
column_sum:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_COLUMN_SUM
// sum[j] is read and written once per call, in the iteration of the last row.
#pragma HLS DEPENDENCE variable = sum_mem type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_COLUMN_SUM_MIN max = TTSIM_TRIPS_COLUMN_SUM_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("column_sum");
    const int t = c.tile();
    if (t < tiles) {
      const int nl = tile_lanes<LANES>(t * LANES, cols);
      float xv[LANES], sv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
#pragma HLS ARRAY_PARTITION variable = sv complete
      lane_read<LANES>("x", x, c.r * x_rs + t * LANES, nl, xv);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = t * LANES + l;
        float s = 0.0f;
        if (j < cols) {
          s = (c.r == 0 ? 0.0f : acc_read("acc", acc, c.s)[l]) + xv[l];
          acc_write("acc", acc, c.s)[l] = s;
        }
        sv[l] = s;
      }
      if (c.r == R - 1) {
        // The column sums are added to sum at the last row (valid lanes only).
        float ov[LANES];
#pragma HLS ARRAY_PARTITION variable = ov complete
        lane_read<LANES>("sum", sum, t * LANES, nl, ov);
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          ov[l] = ov[l] + sv[l];
        }
        lane_write<LANES>("sum", sum, t * LANES, nl, ov);
      }
    }
    c.next();
  }
}

/// Softmax cross-entropy over R rows of `cols` logits with integer labels, label of row r
/// = index[labels_off + r] (label < 0: row ignored, zero loss and gradient). dlogits = scale·(softmax − onehot).
/// Returns scale · Σ_rows (logsumexp − logit[label]). stat: 2R words (row max, then
/// scale / row sum or 0). Loops loss_max, loss_exp_sum, loss_grad; the kAccSlots partial
/// losses are summed by a tree after loss_exp_sum.
template <int LANES, int B>
float loss_kernel(const float logits_mem[][B], int logits_off, const int index[], int labels_off,
                  float dlogits_mem[][B], int dlogits_off, int R, int cols, float scale, float stat_mem[][B],
                  int stat_off) {
  const Banked<const float, B> logits(logits_mem, logits_off);
  const Banked<float, B> dlogits(dlogits_mem, dlogits_off);
  const Banked<float, B> stat(stat_mem, stat_off);
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
#pragma HLS PIPELINE II = TTSIM_II_LOSS_MAX
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LOSS_MAX_MIN max = TTSIM_TRIPS_LOSS_MAX_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("loss_max");
      const int r = c.row();
      if (r < R) {
        const int nl = tile_lanes<LANES>(c.t * LANES, cols);
        float xv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
        lane_read<LANES>("logits", logits, r * cols + c.t * LANES, nl, xv);
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          v[l] = j < cols ? xv[l] : -INFINITY;
        }
        const float m = LaneTree<LANES>::max(v);
        float run = m;
        if (c.t > 0) {
          const float prev = acc_read("acc", acc, c.s);
          run = m > prev ? m : prev;
        }
        acc_write("acc", acc, c.s) = run;
        if (c.t == tiles - 1) bank_write("stat", stat, r, run);
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
#pragma HLS PIPELINE II = TTSIM_II_LOSS_EXP_SUM
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LOSS_EXP_SUM_MIN max = TTSIM_TRIPS_LOSS_EXP_SUM_MAX
// stat is read in its first half (row r) and written in its second (R + r) only.
#pragma HLS DEPENDENCE variable = stat_mem type = inter false
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = xl type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = lacc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
      TTSIM_LOOP_ITER("loss_exp_sum");
      const int r = c.row();
      if (r < R) {
        const float mx = bank_read("stat", stat, r);
        const int label = plain_read("labels", index, labels_off + r);
        const int base = r * cols + c.t * LANES;
        const int nl = tile_lanes<LANES>(c.t * LANES, cols);
        float xv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
        lane_read<LANES>("logits", logits, base, nl, xv);
        float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
        for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
          const int j = c.t * LANES + l;
          v[l] = j < cols ? std::exp(xv[l] - mx) : 0.0f;
        }
        // The label's logit, when it lies in this tile: one lane selected by a LANES:1
        // multiplexer, one register write per iteration.
        const int ll = label - c.t * LANES;
        if (ll >= 0 && ll < nl) {
          acc_write("label_logit", xl, c.s) = xv[ll];
        }
        lane_write<LANES>("dlogits", dlogits, base, nl, v);
        const float part = LaneTree<LANES>::sum(v);
        const float s = c.t == 0 ? part : acc_read("acc", acc, c.s) + part;
        acc_write("acc", acc, c.s) = s;
        if (c.t == tiles - 1) {
          const bool used = label >= 0;
          if (used) {
            const float lse = scale * (std::log(s) + mx - acc_read("label_logit", xl, c.s));
            const float sum = acc_read("loss_acc", lacc, c.s) + lse;
            acc_write("loss_acc", lacc, c.s) = sum;
          }
          bank_write("stat", stat, R + r, used ? scale / s : 0.0f);
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
#pragma HLS PIPELINE II = TTSIM_II_LOSS_GRAD
// dlogits[k] is read and written in the same iteration only.
#pragma HLS DEPENDENCE variable = dlogits_mem type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LOSS_GRAD_MIN max = TTSIM_TRIPS_LOSS_GRAD_MAX
      TTSIM_LOOP_ITER("loss_grad");
      const float a = bank_read("stat", stat, R + c.r);
      const int label = plain_read("labels", index, labels_off + c.r);
      const int base = c.r * cols + c.t * LANES;
      const int nl = tile_lanes<LANES>(c.t * LANES, cols);
      float dv[LANES];
#pragma HLS ARRAY_PARTITION variable = dv complete
      lane_read<LANES>("dlogits", dlogits, base, nl, dv);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.t * LANES + l;
        float o = 0.0f;
        if (j < cols) {
          const float y = j == label ? scale : 0.0f;
          o = dv[l] * a - y;
        }
        dv[l] = o;
      }
      lane_write<LANES>("dlogits", dlogits, base, nl, dv);
      c.next();
    }
  }
  return loss;
}

/// SGD in place over `words` parameters: w −= lr·g, then g = 0 (so the next step's
/// gradients start from zero without a separate clearing pass). Loop sgd_update,
/// trip ceil(words / LANES) (shape rows 1, cols words).
template <int LANES, int B>
void sgd_kernel(float w_mem[][B], int w_off, float g_mem[][B], int g_off, int words, float lr) {
  const Banked<float, B> w(w_mem, w_off);
  const Banked<float, B> g(g_mem, g_off);
  const int tiles = (words + LANES - 1) / LANES;
  const long total = detail::trip(ttsim_spec::kTripElementwise, 1, words, LANES);
  TTSIM_LOOP_BEGIN("sgd_update");
sgd_update:
  for (long t = 0; t < total; ++t) {
#pragma HLS PIPELINE II = TTSIM_II_SGD_UPDATE
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SGD_UPDATE_MIN max = TTSIM_TRIPS_SGD_UPDATE_MAX
// w[k] and g[k] are read and written in the same iteration only.
#pragma HLS DEPENDENCE variable = w_mem type = inter false
#pragma HLS DEPENDENCE variable = g_mem type = inter false
    TTSIM_LOOP_ITER("sgd_update");
    const int first = static_cast<int>(t) * LANES;
    const int nl = tile_lanes<LANES>(first, words);
    float wv[LANES], gv[LANES], zv[LANES];
#pragma HLS ARRAY_PARTITION variable = wv complete
#pragma HLS ARRAY_PARTITION variable = gv complete
#pragma HLS ARRAY_PARTITION variable = zv complete
    lane_read<LANES>("w", w, first, nl, wv);
    lane_read<LANES>("g", g, first, nl, gv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = first + l;
      wv[l] = j < words ? wv[l] - lr * gv[l] : 0.0f;
      zv[l] = 0.0f;
    }
    lane_write<LANES>("w", w, first, nl, wv);
    lane_write<LANES>("g", g, first, nl, zv);
  }
  (void)tiles;
}

/// softmax_kernel on Banked views (host code and tests).
template <int LANES, int B>
void softmax_kernel(Banked<const float, B> in, Banked<float, B> out, int R, int cols, int valid_cols,
                    Banked<float, B> stat) {
  softmax_kernel<LANES, B>(in.rows, in.off, out.rows, out.off, R, cols, valid_cols, stat.rows, stat.off);
}

/// softmax_grad_kernel on Banked views (host code and tests).
template <int LANES, int B>
void softmax_grad_kernel(Banked<const float, B> P, Banked<const float, B> dP, Banked<float, B> dS, int R, int cols,
                         Banked<float, B> stat) {
  softmax_grad_kernel<LANES, B>(P.rows, P.off, dP.rows, dP.off, dS.rows, dS.off, R, cols, stat.rows, stat.off);
}

/// layernorm_kernel on Banked views (host code and tests).
template <int LANES, int B>
void layernorm_kernel(Banked<const float, B> x, Banked<const float, B> gamma, Banked<const float, B> beta,
                      Banked<float, B> y, Banked<float, B> xhat, Banked<float, B> rstd, int R, int cols,
                      Banked<float, B> stat) {
  layernorm_kernel<LANES, B>(x.rows, x.off, gamma.rows, gamma.off, beta.rows, beta.off, y.rows, y.off, xhat.rows,
                             xhat.off, rstd.rows, rstd.off, R, cols, stat.rows, stat.off);
}

/// layernorm_grad_kernel on Banked views (host code and tests).
template <int LANES, int B>
void layernorm_grad_kernel(Banked<const float, B> dy, Banked<const float, B> xhat, Banked<const float, B> rstd,
                           Banked<const float, B> gamma, Banked<float, B> dx, Banked<float, B> dgamma,
                           Banked<float, B> dbeta, int R, int cols, Banked<float, B> stat) {
  layernorm_grad_kernel<LANES, B>(dy.rows, dy.off, xhat.rows, xhat.off, rstd.rows, rstd.off, gamma.rows, gamma.off,
                                  dx.rows, dx.off, dgamma.rows, dgamma.off, dbeta.rows, dbeta.off, R, cols, stat.rows,
                                  stat.off);
}

/// gelu_kernel on Banked views (host code and tests).
template <int LANES, int B>
void gelu_kernel(Banked<const float, B> x, Banked<float, B> y, int R, int cols) {
  gelu_kernel<LANES, B>(x.rows, x.off, y.rows, y.off, R, cols);
}

/// gelu_grad_kernel on Banked views (host code and tests).
template <int LANES, int B>
void gelu_grad_kernel(Banked<const float, B> x, Banked<const float, B> dy, Banked<float, B> dx, int R, int cols) {
  gelu_grad_kernel<LANES, B>(x.rows, x.off, dy.rows, dy.off, dx.rows, dx.off, R, cols);
}

/// add_kernel on Banked views (host code and tests).
template <int LANES, int B>
void add_kernel(Banked<const float, B> a, Banked<const float, B> b, Banked<float, B> out, int R, int cols, int a_rs,
                int b_rs, int o_rs) {
  add_kernel<LANES, B>(a.rows, a.off, b.rows, b.off, out.rows, out.off, R, cols, a_rs, b_rs, o_rs);
}

/// add_accumulate_kernel on Banked views (host code and tests).
template <int LANES, int B>
void add_accumulate_kernel(Banked<const float, B> x, Banked<float, B> acc, int R, int cols, int x_rs, int acc_rs) {
  add_accumulate_kernel<LANES, B>(x.rows, x.off, acc.rows, acc.off, R, cols, x_rs, acc_rs);
}

/// column_sum_kernel on Banked views (host code and tests).
template <int LANES, int B>
void column_sum_kernel(Banked<const float, B> x, Banked<float, B> sum, int R, int cols, int x_rs) {
  column_sum_kernel<LANES, B>(x.rows, x.off, sum.rows, sum.off, R, cols, x_rs);
}

/// loss_kernel on Banked views (host code and tests).
template <int LANES, int B>
float loss_kernel(Banked<const float, B> logits, const int* labels, Banked<float, B> dlogits, int R, int cols,
                  float scale, Banked<float, B> stat) {
  return loss_kernel<LANES, B>(logits.rows, logits.off, labels, 0, dlogits.rows, dlogits.off, R, cols, scale, stat.rows,
                               stat.off);
}

/// sgd_kernel on Banked views (host code and tests).
template <int LANES, int B>
void sgd_kernel(Banked<float, B> w, Banked<float, B> g, int words, float lr) {
  sgd_kernel<LANES, B>(w.rows, w.off, g.rows, g.off, words, lr);
}

}  // namespace ttsim_hls
