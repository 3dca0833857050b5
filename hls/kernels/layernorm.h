#pragma once
// LayerNorm over rows (forward, saving x̂ and rstd) and its gradient (input, γ and β).
// Loops, trip counts and accesses: hls/include/kernel_spec.h ("ttsim_layernorm",
// "ttsim_layernorm_grad"); loop structure, arguments and arithmetic: row_reduce.h. The II
// of each loop is its TTSIM_II_<LOOP> of design_config.h.
// ALIGNED (each kernel's last template argument; design_config.h k<Unit>Aligned): the
// caller guarantees that every row starts at a multiple of LANES (every word offset and
// `cols` are multiples of LANES, model_step.h lane_granule), so every lane access is the
// aligned one of banked.h (a select within each lane's residue class of banks instead of a
// rotation over all of them; same banks, ports, trips and values).

#include <cmath>

#include "hls/kernels/row_reduce.h"

namespace ttsim_hls {

/// LayerNorm epsilon added to the variance.
constexpr float kLayerNormEps = 1e-5f;

namespace detail {

/// layernorm_mean: stat[r] = row mean of x (inv_cols = 1 / cols).
template <int LANES, int B, bool ALIGNED = false>
void layernorm_mean_loop(const float x_mem[][B], int x_off, int R, int cols, float inv_cols, float stat_mem[][B],
                         int stat_off, float (&acc)[kAccSlots]) {
#pragma HLS INLINE
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<float, B> stat(stat_mem, stat_off);
  RowReduce<LANES, TTSIM_II_LAYERNORM_MEAN, ALIGNED> c(R, cols);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("layernorm_mean");
layernorm_mean:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_MEAN
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_MEAN_MIN max = TTSIM_TRIPS_LAYERNORM_MEAN_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("layernorm_mean");
    if (c.active()) {
      float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
      c.read_masked("x", x, cols, 0.0f, v);
      const float s = c.sum("acc", acc, v);
      if (c.last_tile()) bank_write("stat", stat, c.row(), s * inv_cols);
    }
    c.next();
  }
}

/// layernorm_var: rstd[r] = 1/√(biased variance of row r + eps), mean from stat[r].
template <int LANES, int B, bool ALIGNED = false>
void layernorm_var_loop(const float x_mem[][B], int x_off, float rstd_mem[][B], int rstd_off, int R, int cols,
                        float inv_cols, float stat_mem[][B], int stat_off, float (&acc)[kAccSlots]) {
#pragma HLS INLINE
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<float, B> rstd(rstd_mem, rstd_off);
  const Banked<float, B> stat(stat_mem, stat_off);
  RowReduce<LANES, TTSIM_II_LAYERNORM_VAR, ALIGNED> c(R, cols);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("layernorm_var");
layernorm_var:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_VAR
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_VAR_MIN max = TTSIM_TRIPS_LAYERNORM_VAR_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("layernorm_var");
    if (c.active()) {
      const int r = c.row();
      const float mean = bank_read("stat", stat, r);
      float xv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
      lane_read<LANES, ALIGNED>("x", x, c.base(), c.lanes(), xv);
      float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.first() + l;
        const float d = j < cols ? xv[l] - mean : 0.0f;
        v[l] = d * d;
      }
      const float s = c.sum("acc", acc, v);
      if (c.last_tile()) bank_write("rstd", rstd, r, 1.0f / std::sqrt(s * inv_cols + kLayerNormEps));
    }
    c.next();
  }
}

/// layernorm_normalize: x̂ = (x − stat[r])·rstd[r], y = x̂·γ + β.
template <int LANES, int B, bool ALIGNED = false>
void layernorm_normalize_loop(const float x_mem[][B], int x_off, const float gamma_mem[][B], int gamma_off,
                              const float beta_mem[][B], int beta_off, float y_mem[][B], int y_off,
                              float xhat_mem[][B], int xhat_off, float rstd_mem[][B], int rstd_off, int R, int cols,
                              float stat_mem[][B], int stat_off) {
#pragma HLS INLINE
  const Banked<const float, B> x(x_mem, x_off), gamma(gamma_mem, gamma_off), beta(beta_mem, beta_off);
  const Banked<float, B> y(y_mem, y_off), xhat(xhat_mem, xhat_off), rstd(rstd_mem, rstd_off);
  const Banked<float, B> stat(stat_mem, stat_off);
  Elementwise<LANES, TTSIM_II_LAYERNORM_NORMALIZE> c(R, cols);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("layernorm_normalize");
layernorm_normalize:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_NORMALIZE
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_NORMALIZE_MIN max = TTSIM_TRIPS_LAYERNORM_NORMALIZE_MAX
// x̂ and rstd are one argument in the build (modules.cc): x̂ is written here and never read,
// rstd read and never written, so no write feeds a later iteration.
#pragma HLS DEPENDENCE variable = xhat_mem type = inter false
    TTSIM_LOOP_ITER("layernorm_normalize");
    const float mean = bank_read("stat", stat, c.row());
    const float rs = bank_read("rstd", rstd, c.row());
    const int base = c.base(), nl = c.lanes();
    float xv[LANES], gv[LANES], bv[LANES], hv[LANES], yv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
#pragma HLS ARRAY_PARTITION variable = gv complete
#pragma HLS ARRAY_PARTITION variable = bv complete
#pragma HLS ARRAY_PARTITION variable = hv complete
#pragma HLS ARRAY_PARTITION variable = yv complete
    lane_read<LANES, ALIGNED>("x", x, base, nl, xv);
    lane_read<LANES, ALIGNED>("gamma", gamma, c.first(), nl, gv);
    lane_read<LANES, ALIGNED>("beta", beta, c.first(), nl, bv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      float h = 0.0f, o = 0.0f;
      if (c.valid(l)) {
        h = (xv[l] - mean) * rs;
        o = h * gv[l] + bv[l];
      }
      hv[l] = h;
      yv[l] = o;
    }
    lane_write<LANES, ALIGNED>("xhat", xhat, base, nl, hv);
    lane_write<LANES, ALIGNED>("y", y, base, nl, yv);
    c.next();
  }
}

/// layernorm_grad_reduce: with g = dy·γ, stat[r] = mean(g), stat[R + r] = mean(g·x̂).
template <int LANES, int B, bool ALIGNED = false>
void layernorm_grad_reduce_loop(const float dy_mem[][B], int dy_off, const float xhat_mem[][B], int xhat_off,
                                const float gamma_mem[][B], int gamma_off, int R, int cols, float inv_cols,
                                float stat_mem[][B], int stat_off) {
#pragma HLS INLINE
  const Banked<const float, B> dy(dy_mem, dy_off), xhat(xhat_mem, xhat_off), gamma(gamma_mem, gamma_off);
  const Banked<float, B> stat(stat_mem, stat_off);
  float acc1[kAccSlots], acc2[kAccSlots];
  RowReduce<LANES, TTSIM_II_LAYERNORM_GRAD_REDUCE, ALIGNED> c(R, cols);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("layernorm_grad_reduce");
layernorm_grad_reduce:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_GRAD_REDUCE
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_GRAD_REDUCE_MIN max = TTSIM_TRIPS_LAYERNORM_GRAD_REDUCE_MAX
#pragma HLS DEPENDENCE variable = acc1 type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = acc2 type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("layernorm_grad_reduce");
    if (c.active()) {
      const int r = c.row();
      float dyv[LANES], gv[LANES], hv[LANES];
#pragma HLS ARRAY_PARTITION variable = dyv complete
#pragma HLS ARRAY_PARTITION variable = gv complete
#pragma HLS ARRAY_PARTITION variable = hv complete
      lane_read<LANES, ALIGNED>("dy", dy, c.base(), c.lanes(), dyv);
      lane_read<LANES, ALIGNED>("gamma", gamma, c.first(), c.lanes(), gv);
      lane_read<LANES, ALIGNED>("xhat", xhat, c.base(), c.lanes(), hv);
      float v1[LANES], v2[LANES];
#pragma HLS ARRAY_PARTITION variable = v1 complete
#pragma HLS ARRAY_PARTITION variable = v2 complete
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.first() + l;
        float g = 0.0f, gx = 0.0f;
        if (j < cols) {
          g = dyv[l] * gv[l];
          gx = g * hv[l];
        }
        v1[l] = g;
        v2[l] = gx;
      }
      const float s1 = c.sum("acc1", acc1, v1), s2 = c.sum("acc2", acc2, v2);
      if (c.last_tile()) {
        bank_write("stat", stat, r, s1 * inv_cols);
        bank_write("stat", stat, R + r, s2 * inv_cols);
      }
    }
    c.next();
  }
}

/// layernorm_grad_input: dx = rstd[r]·(g − stat[r] − x̂·stat[R + r]), g = dy·γ.
template <int LANES, int B, bool ALIGNED = false>
void layernorm_grad_input_loop(const float dy_mem[][B], int dy_off, const float xhat_mem[][B], int xhat_off,
                               const float rstd_mem[][B], int rstd_off, const float gamma_mem[][B], int gamma_off,
                               float dx_mem[][B], int dx_off, int R, int cols, float stat_mem[][B], int stat_off) {
#pragma HLS INLINE
  const Banked<const float, B> dy(dy_mem, dy_off), xhat(xhat_mem, xhat_off), rstd(rstd_mem, rstd_off);
  const Banked<const float, B> gamma(gamma_mem, gamma_off);
  const Banked<float, B> dx(dx_mem, dx_off), stat(stat_mem, stat_off);
  Elementwise<LANES, TTSIM_II_LAYERNORM_GRAD_INPUT> c(R, cols);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("layernorm_grad_input");
layernorm_grad_input:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_GRAD_INPUT
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_GRAD_INPUT_MIN max = TTSIM_TRIPS_LAYERNORM_GRAD_INPUT_MAX
    TTSIM_LOOP_ITER("layernorm_grad_input");
    const float m1 = bank_read("stat", stat, c.row()), m2 = bank_read("stat", stat, R + c.row());
    const float rs = bank_read("rstd", rstd, c.row());
    const int base = c.base(), nl = c.lanes();
    float dyv[LANES], gv[LANES], hv[LANES], ov[LANES];
#pragma HLS ARRAY_PARTITION variable = dyv complete
#pragma HLS ARRAY_PARTITION variable = gv complete
#pragma HLS ARRAY_PARTITION variable = hv complete
#pragma HLS ARRAY_PARTITION variable = ov complete
    lane_read<LANES, ALIGNED>("dy", dy, base, nl, dyv);
    lane_read<LANES, ALIGNED>("gamma", gamma, c.first(), nl, gv);
    lane_read<LANES, ALIGNED>("xhat", xhat, base, nl, hv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      float o = 0.0f;
      if (c.valid(l)) {
        const float g = dyv[l] * gv[l];
        o = rs * (g - m1 - hv[l] * m2);
      }
      ov[l] = o;
    }
    lane_write<LANES, ALIGNED>("dx", dx, base, nl, ov);
    c.next();
  }
}

/// layernorm_grad_params: dγ = Σ_rows dy·x̂, dβ = Σ_rows dy (column sums), written: the step
/// computes each LayerNorm's parameter gradients in one call, so the sums need not be added to
/// what dγ and dβ held — and with no read sites on them the loop's two lane writes fit the
/// banks' two ports (II 1; a read-modify-write of both took four accesses per bank, II 2).
template <int LANES, int B, bool ALIGNED = false>
void layernorm_grad_params_loop(const float dy_mem[][B], int dy_off, const float xhat_mem[][B], int xhat_off,
                                float dgamma_mem[][B], int dgamma_off, float dbeta_mem[][B], int dbeta_off, int R,
                                int cols) {
#pragma HLS INLINE
  const Banked<const float, B> dy(dy_mem, dy_off), xhat(xhat_mem, xhat_off);
  const Banked<float, B> dgamma(dgamma_mem, dgamma_off), dbeta(dbeta_mem, dbeta_off);
  float accg[kAccSlots][LANES], accb[kAccSlots][LANES];
#pragma HLS ARRAY_PARTITION variable = accg dim = 2 complete
#pragma HLS ARRAY_PARTITION variable = accb dim = 2 complete
  ColumnReduce<LANES, TTSIM_II_LAYERNORM_GRAD_PARAMS, ALIGNED> c(R, cols);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("layernorm_grad_params");
layernorm_grad_params:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_LAYERNORM_GRAD_PARAMS
// dgamma[j] / dbeta[j] are written once per call, in the iteration of the last row.
#pragma HLS DEPENDENCE variable = dgamma_mem type = inter false
#pragma HLS DEPENDENCE variable = dbeta_mem type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LAYERNORM_GRAD_PARAMS_MIN max = TTSIM_TRIPS_LAYERNORM_GRAD_PARAMS_MAX
#pragma HLS DEPENDENCE variable = accg type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = accb type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("layernorm_grad_params");
    if (c.active()) {
      const int base = c.at(0);
      float dyv[LANES], hv[LANES], sgv[LANES], sbv[LANES];
#pragma HLS ARRAY_PARTITION variable = dyv complete
#pragma HLS ARRAY_PARTITION variable = hv complete
#pragma HLS ARRAY_PARTITION variable = sgv complete
#pragma HLS ARRAY_PARTITION variable = sbv complete
      lane_read<LANES, ALIGNED>("dy", dy, base, c.lanes(), dyv);
      lane_read<LANES, ALIGNED>("xhat", xhat, base, c.lanes(), hv);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        float sg = 0.0f, sb = 0.0f;
        if (c.valid(l)) {
          const float d = dyv[l];
          sg = c.add("accg", accg, l, d * hv[l]);
          sb = c.add("accb", accb, l, d);
        }
        sgv[l] = sg;
        sbv[l] = sb;
      }
      if (c.last_row()) {
        // The column sums are written to dgamma / dbeta at the last row (valid lanes only).
        lane_write<LANES, ALIGNED>("dgamma", dgamma, c.first(), c.lanes(), sgv);
        lane_write<LANES, ALIGNED>("dbeta", dbeta, c.first(), c.lanes(), sbv);
      }
    }
    c.next();
  }
}

}  // namespace detail

/// LayerNorm of R rows of `cols`: y = x̂·γ + β, x̂ = (x − mean)·rstd,
/// rstd = 1/√(var + eps) (biased variance). Saves x̂ (R × cols) and rstd (R) for the
/// gradient. stat: R words (row means). Loops layernorm_mean, layernorm_var,
/// layernorm_normalize (II: TTSIM_II_LAYERNORM_MEAN, _VAR, _NORMALIZE).
template <int LANES, int B, bool ALIGNED = false>
void layernorm_kernel(const float x_mem[][B], int x_off, const float gamma_mem[][B], int gamma_off,
                      const float beta_mem[][B], int beta_off, float y_mem[][B], int y_off, float xhat_mem[][B],
                      int xhat_off, float rstd_mem[][B], int rstd_off, int R, int cols, float stat_mem[][B],
                      int stat_off) {
  const float inv_cols = 1.0f / static_cast<float>(cols);
  float acc[kAccSlots];
  detail::layernorm_mean_loop<LANES, B, ALIGNED>(x_mem, x_off, R, cols, inv_cols, stat_mem, stat_off, acc);
  detail::layernorm_var_loop<LANES, B, ALIGNED>(x_mem, x_off, rstd_mem, rstd_off, R, cols, inv_cols, stat_mem, stat_off, acc);
  detail::layernorm_normalize_loop<LANES, B, ALIGNED>(x_mem, x_off, gamma_mem, gamma_off, beta_mem, beta_off, y_mem, y_off,
                                             xhat_mem, xhat_off, rstd_mem, rstd_off, R, cols, stat_mem, stat_off);
}

/// LayerNorm gradient. With g = dy·γ: dx = rstd · (g − mean(g) − x̂·mean(g·x̂)) (dx
/// overwritten), dγ = Σ_rows dy·x̂, dβ = Σ_rows dy (overwritten). stat: 2R words.
/// Loops layernorm_grad_reduce, layernorm_grad_input, layernorm_grad_params
/// (II: TTSIM_II_LAYERNORM_GRAD_REDUCE, _INPUT, _PARAMS).
template <int LANES, int B, bool ALIGNED = false>
void layernorm_grad_kernel(const float dy_mem[][B], int dy_off, const float xhat_mem[][B], int xhat_off,
                           const float rstd_mem[][B], int rstd_off, const float gamma_mem[][B], int gamma_off,
                           float dx_mem[][B], int dx_off, float dgamma_mem[][B], int dgamma_off, float dbeta_mem[][B],
                           int dbeta_off, int R, int cols, float stat_mem[][B], int stat_off) {
  const float inv_cols = 1.0f / static_cast<float>(cols);
  detail::layernorm_grad_reduce_loop<LANES, B, ALIGNED>(dy_mem, dy_off, xhat_mem, xhat_off, gamma_mem, gamma_off, R, cols,
                                               inv_cols, stat_mem, stat_off);
  detail::layernorm_grad_input_loop<LANES, B, ALIGNED>(dy_mem, dy_off, xhat_mem, xhat_off, rstd_mem, rstd_off, gamma_mem,
                                              gamma_off, dx_mem, dx_off, R, cols, stat_mem, stat_off);
  detail::layernorm_grad_params_loop<LANES, B, ALIGNED>(dy_mem, dy_off, xhat_mem, xhat_off, dgamma_mem, dgamma_off,
                                               dbeta_mem, dbeta_off, R, cols);
}

/// layernorm_kernel on Banked views (host code and tests).
template <int LANES, int B, bool ALIGNED = false>
void layernorm_kernel(Banked<const float, B> x, Banked<const float, B> gamma, Banked<const float, B> beta,
                      Banked<float, B> y, Banked<float, B> xhat, Banked<float, B> rstd, int R, int cols,
                      Banked<float, B> stat) {
  layernorm_kernel<LANES, B, ALIGNED>(x.rows, x.off, gamma.rows, gamma.off, beta.rows, beta.off, y.rows, y.off, xhat.rows,
                             xhat.off, rstd.rows, rstd.off, R, cols, stat.rows, stat.off);
}

/// layernorm_grad_kernel on Banked views (host code and tests).
template <int LANES, int B, bool ALIGNED = false>
void layernorm_grad_kernel(Banked<const float, B> dy, Banked<const float, B> xhat, Banked<const float, B> rstd,
                           Banked<const float, B> gamma, Banked<float, B> dx, Banked<float, B> dgamma,
                           Banked<float, B> dbeta, int R, int cols, Banked<float, B> stat) {
  layernorm_grad_kernel<LANES, B, ALIGNED>(dy.rows, dy.off, xhat.rows, xhat.off, rstd.rows, rstd.off, gamma.rows, gamma.off,
                                  dx.rows, dx.off, dgamma.rows, dgamma.off, dbeta.rows, dbeta.off, R, cols, stat.rows,
                                  stat.off);
}

}  // namespace ttsim_hls
