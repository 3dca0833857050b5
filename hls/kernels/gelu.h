#pragma once
// GELU (tanh form), the feed-forward activation, and its gradient: element-wise over rows.
// Loops, trip counts and accesses: hls/include/kernel_spec.h ("ttsim_gelu",
// "ttsim_gelu_grad"); loop structure and arguments: row_reduce.h. The II of each loop is
// its TTSIM_II_<LOOP> of design_config.h.
// ALIGNED (each kernel's last template argument; design_config.h k<Unit>Aligned): the
// caller guarantees that every row starts at a multiple of LANES (every word offset and
// `cols` are multiples of LANES, model_step.h lane_granule), so every lane access is the
// aligned one of banked.h (a select within each lane's residue class of banks instead of a
// rotation over all of them; same banks, ports, trips and values).

#include <cmath>

#include "hls/kernels/row_reduce.h"

namespace ttsim_hls {

/// GELU (tanh form): gelu(x) = x · σ(2u), u = √(2/π)·(x + 0.044715·x³); 2√(2/π):
constexpr float kGeluK = 1.5957691216057308f;
constexpr float kGeluC = 0.044715f;

/// GELU, tanh form, y = x · σ(kGeluK·x·(1 + kGeluC·x²)) over R rows of cols. Loop gelu
/// (II: TTSIM_II_GELU).
template <int LANES, int B, bool ALIGNED = false>
void gelu_kernel(const float x_mem[][B], int x_off, float y_mem[][B], int y_off, int R, int cols) {
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<float, B> y(y_mem, y_off);
  Elementwise<LANES, TTSIM_II_GELU> c(R, cols);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("gelu");
gelu:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_GELU
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_GELU_MIN max = TTSIM_TRIPS_GELU_MAX
    TTSIM_LOOP_ITER("gelu");
    float xv[LANES], yv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
#pragma HLS ARRAY_PARTITION variable = yv complete
    lane_read<LANES, ALIGNED>("x", x, c.base(), c.lanes(), xv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      float o = 0.0f;
      if (c.valid(l)) {
        const float v = xv[l];
        const float w = kGeluK * v * (1.0f + kGeluC * v * v);
        o = v / (1.0f + std::exp(-w));
      }
      yv[l] = o;
    }
    lane_write<LANES, ALIGNED>("y", y, c.base(), c.lanes(), yv);
    c.next();
  }
}

/// GELU gradient in place: d = d · (s + x·s·(1 − s)·kGeluK·(1 + 3·kGeluC·x²)), s = σ(w) as
/// in gelu_kernel; x is the saved pre-activation, d holds dy on entry and dx on return (one
/// in-out argument: the gradient is never bound to two arguments of one call). Loop
/// gelu_grad (II: TTSIM_II_GELU_GRAD).
template <int LANES, int B, bool ALIGNED = false>
void gelu_grad_kernel(const float x_mem[][B], int x_off, float d_mem[][B], int d_off, int R, int cols) {
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<float, B> d(d_mem, d_off);
  Elementwise<LANES, TTSIM_II_GELU_GRAD> c(R, cols);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("gelu_grad");
gelu_grad:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_GELU_GRAD
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_GELU_GRAD_MIN max = TTSIM_TRIPS_GELU_GRAD_MAX
// every d element is read and written in one iteration, no other iteration touches it.
#pragma HLS DEPENDENCE variable = d_mem type = inter false
    TTSIM_LOOP_ITER("gelu_grad");
    float xv[LANES], dyv[LANES], ov[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
#pragma HLS ARRAY_PARTITION variable = dyv complete
#pragma HLS ARRAY_PARTITION variable = ov complete
    lane_read<LANES, ALIGNED>("x", x, c.base(), c.lanes(), xv);
    lane_read<LANES, ALIGNED>("d", d, c.base(), c.lanes(), dyv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      float o = 0.0f;
      if (c.valid(l)) {
        const float v = xv[l];
        const float w = kGeluK * v * (1.0f + kGeluC * v * v);
        const float s = 1.0f / (1.0f + std::exp(-w));
        const float dw = kGeluK * (1.0f + 3.0f * kGeluC * v * v);
        o = dyv[l] * (s + v * s * (1.0f - s) * dw);
      }
      ov[l] = o;
    }
    lane_write<LANES, ALIGNED>("d", d, c.base(), c.lanes(), ov);
    c.next();
  }
}

/// gelu_kernel on Banked views (host code and tests).
template <int LANES, int B, bool ALIGNED = false>
void gelu_kernel(Banked<const float, B> x, Banked<float, B> y, int R, int cols) {
  gelu_kernel<LANES, B, ALIGNED>(x.rows, x.off, y.rows, y.off, R, cols);
}

/// gelu_grad_kernel on Banked views (host code and tests).
template <int LANES, int B, bool ALIGNED = false>
void gelu_grad_kernel(Banked<const float, B> x, Banked<float, B> d, int R, int cols) {
  gelu_grad_kernel<LANES, B, ALIGNED>(x.rows, x.off, d.rows, d.off, R, cols);
}

}  // namespace ttsim_hls
