#pragma once
// Softmax over rows (the attention probabilities, key padding masked) and its gradient.
// Loops, trip counts and accesses: hls/include/kernel_spec.h ("ttsim_softmax",
// "ttsim_softmax_grad"); loop structure, arguments and arithmetic: row_reduce.h. The II of
// each loop is its TTSIM_II_<LOOP> of design_config.h.

#include <cmath>

#include "hls/kernels/row_reduce.h"

namespace ttsim_hls {

namespace detail {

/// softmax_max: stat[r] = max of row r of `in` over its first valid_cols columns.
template <int LANES, int B, bool ALIGNED>
void softmax_max_loop(const float in_mem[][B], int in_off, int R, int cols, int ld, int valid_cols, float stat_mem[][B],
                      int stat_off, float (&acc)[kAccSlots]) {
#pragma HLS INLINE
  const Banked<const float, B> in(in_mem, in_off);
  const Banked<float, B> stat(stat_mem, stat_off);
  RowReduce<LANES, TTSIM_II_SOFTMAX_MAX, ALIGNED> c(R, cols, ld);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("softmax_max");
softmax_max:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_SOFTMAX_MAX
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_MAX_MIN max = TTSIM_TRIPS_SOFTMAX_MAX_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("softmax_max");
    if (c.active()) {
      // Only the unmasked columns (j < valid_cols) are read.
      float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
      c.read_masked("in", in, valid_cols, -INFINITY, v);
      const float run = c.max("acc", acc, v);
      if (c.last_tile()) bank_write("stat", stat, c.row(), run);
    }
    c.next();
  }
}

/// softmax_exp_sum: out = exp(in − stat[r]) on the unmasked columns, 0 on the others;
/// stat[R + r] = 1 / row sum.
template <int LANES, int B, bool ALIGNED>
void softmax_exp_sum_loop(const float in_mem[][B], int in_off, float out_mem[][B], int out_off, int R, int cols,
                          int ld, int valid_cols, float stat_mem[][B], int stat_off, float (&acc)[kAccSlots]) {
#pragma HLS INLINE
  const Banked<const float, B> in(in_mem, in_off);
  const Banked<float, B> out(out_mem, out_off);
  const Banked<float, B> stat(stat_mem, stat_off);
  RowReduce<LANES, TTSIM_II_SOFTMAX_EXP_SUM, ALIGNED> c(R, cols, ld);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("softmax_exp_sum");
softmax_exp_sum:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_SOFTMAX_EXP_SUM
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_EXP_SUM_MIN max = TTSIM_TRIPS_SOFTMAX_EXP_SUM_MAX
// stat is read in its first half (row r) and written in its second (R + r) only.
#pragma HLS DEPENDENCE variable = stat_mem type = inter false
// `out` is `in` in place in the build (one argument, P: modules.cc): each element is read
// and written in its own iteration only.
#pragma HLS DEPENDENCE variable = out_mem type = inter false
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("softmax_exp_sum");
    if (c.active()) {
      const int r = c.row();
      const float mx = bank_read("stat", stat, r);
      // `in` is read for the unmasked columns, `out` written for every column of the tile.
      float xv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
      lane_read<LANES, ALIGNED>("in", in, c.base(), c.lanes(valid_cols), xv);
      float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.first() + l;
        float e = 0.0f;
        if (j < cols) e = j < valid_cols ? std::exp(xv[l] - mx) : 0.0f;
        v[l] = e;
      }
      lane_write<LANES, ALIGNED>("out", out, c.base(), c.lanes(), v);
      const float s = c.sum("acc", acc, v);
      if (c.last_tile()) bank_write("stat", stat, R + r, 1.0f / s);
    }
    c.next();
  }
}

/// softmax_normalize: out *= stat[R + r] (in place).
template <int LANES, int B, bool ALIGNED>
void softmax_normalize_loop(float out_mem[][B], int out_off, int R, int cols, int ld, float stat_mem[][B],
                            int stat_off) {
#pragma HLS INLINE
  const Banked<float, B> out(out_mem, out_off);
  const Banked<float, B> stat(stat_mem, stat_off);
  Elementwise<LANES, TTSIM_II_SOFTMAX_NORMALIZE> c(R, cols, ld);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("softmax_normalize");
softmax_normalize:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_SOFTMAX_NORMALIZE
// out[k] is read and written in the same iteration only: no carried dependence.
#pragma HLS DEPENDENCE variable = out_mem type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_NORMALIZE_MIN max = TTSIM_TRIPS_SOFTMAX_NORMALIZE_MAX
    TTSIM_LOOP_ITER("softmax_normalize");
    const float inv = bank_read("stat", stat, R + c.row());
    float ov[LANES];
#pragma HLS ARRAY_PARTITION variable = ov complete
    lane_read<LANES, ALIGNED>("out", out, c.base(), c.lanes(), ov);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      ov[l] = c.valid(l) ? ov[l] * inv : 0.0f;
    }
    lane_write<LANES, ALIGNED>("out", out, c.base(), c.lanes(), ov);
    c.next();
  }
}

/// softmax_grad_dot: stat[r] = Σ_j dP·P over row r (dP: the in-out array d, read).
template <int LANES, int B, bool ALIGNED>
void softmax_grad_dot_loop(const float P_mem[][B], int P_off, const float d_mem[][B], int d_off, int R, int cols,
                           int ld, float stat_mem[][B], int stat_off) {
#pragma HLS INLINE
  const Banked<const float, B> P(P_mem, P_off);
  const Banked<const float, B> d(d_mem, d_off);
  const Banked<float, B> stat(stat_mem, stat_off);
  float acc[kAccSlots];
  RowReduce<LANES, TTSIM_II_SOFTMAX_GRAD_DOT, ALIGNED> c(R, cols, ld);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("softmax_grad_dot");
softmax_grad_dot:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_SOFTMAX_GRAD_DOT
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_GRAD_DOT_MIN max = TTSIM_TRIPS_SOFTMAX_GRAD_DOT_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("softmax_grad_dot");
    if (c.active()) {
      float dpv[LANES], pv[LANES];
#pragma HLS ARRAY_PARTITION variable = dpv complete
#pragma HLS ARRAY_PARTITION variable = pv complete
      lane_read<LANES, ALIGNED>("d", d, c.base(), c.lanes(), dpv);
      lane_read<LANES, ALIGNED>("P", P, c.base(), c.lanes(), pv);
      float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.first() + l;
        v[l] = j < cols ? dpv[l] * pv[l] : 0.0f;
      }
      const float s = c.sum("acc", acc, v);
      if (c.last_tile()) bank_write("stat", stat, c.row(), s);
    }
    c.next();
  }
}

/// softmax_grad_apply: d = (d − stat[r])·P in place (d: dP in, dS out).
template <int LANES, int B, bool ALIGNED>
void softmax_grad_apply_loop(const float P_mem[][B], int P_off, float d_mem[][B], int d_off, int R, int cols,
                             int ld, float stat_mem[][B], int stat_off) {
#pragma HLS INLINE
  const Banked<const float, B> P(P_mem, P_off);
  const Banked<float, B> d(d_mem, d_off);
  const Banked<float, B> stat(stat_mem, stat_off);
  Elementwise<LANES, TTSIM_II_SOFTMAX_GRAD_APPLY> c(R, cols, ld);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("softmax_grad_apply");
softmax_grad_apply:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_SOFTMAX_GRAD_APPLY
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_SOFTMAX_GRAD_APPLY_MIN max = TTSIM_TRIPS_SOFTMAX_GRAD_APPLY_MAX
// every d element is read and written in one iteration, no other iteration touches it.
#pragma HLS DEPENDENCE variable = d_mem type = inter false
    TTSIM_LOOP_ITER("softmax_grad_apply");
    const float dot = bank_read("stat", stat, c.row());
    float dpv[LANES], pv[LANES], ov[LANES];
#pragma HLS ARRAY_PARTITION variable = dpv complete
#pragma HLS ARRAY_PARTITION variable = pv complete
#pragma HLS ARRAY_PARTITION variable = ov complete
    lane_read<LANES, ALIGNED>("d", d, c.base(), c.lanes(), dpv);
    lane_read<LANES, ALIGNED>("P", P, c.base(), c.lanes(), pv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      ov[l] = c.valid(l) ? (dpv[l] - dot) * pv[l] : 0.0f;
    }
    lane_write<LANES, ALIGNED>("d", d, c.base(), c.lanes(), ov);
    c.next();
  }
}

}  // namespace detail

/// Softmax over the first `valid_cols` columns of each of R rows of `cols`, row r at word
/// r·ld (`in` and `out` alike; may alias); columns >= valid_cols get probability 0 (key
/// padding mask). stat: 2R words scratch (row max, then 1 / row sum). Loops softmax_max,
/// softmax_exp_sum, softmax_normalize (II: TTSIM_II_SOFTMAX_MAX, _EXP_SUM, _NORMALIZE).
/// ALIGNED: in_off, out_off and ld are multiples of LANES (aligned lane accesses, banked.h;
/// asserted in C simulation). Requires 1 <= valid_cols <= cols <= ld.
template <int LANES, int B, bool ALIGNED = false>
void softmax_kernel(const float in_mem[][B], int in_off, float out_mem[][B], int out_off, int R, int cols, int ld,
                    int valid_cols, float stat_mem[][B], int stat_off) {
  float acc[kAccSlots];
  detail::softmax_max_loop<LANES, B, ALIGNED>(in_mem, in_off, R, cols, ld, valid_cols, stat_mem, stat_off, acc);
  detail::softmax_exp_sum_loop<LANES, B, ALIGNED>(in_mem, in_off, out_mem, out_off, R, cols, ld, valid_cols, stat_mem,
                                                  stat_off, acc);
  detail::softmax_normalize_loop<LANES, B, ALIGNED>(out_mem, out_off, R, cols, ld, stat_mem, stat_off);
}

/// Softmax gradient in place: d = P ⊙ (d − rowsum(d ⊙ P)), d holding dP on entry and dS on
/// return (one in-out argument). R rows of `cols`, row r at word r·ld of P and d; stat: R
/// words. Loops softmax_grad_dot, softmax_grad_apply (II: TTSIM_II_SOFTMAX_GRAD_DOT,
/// _APPLY). ALIGNED: P_off, d_off and ld multiples of LANES. Requires cols <= ld.
template <int LANES, int B, bool ALIGNED = false>
void softmax_grad_kernel(const float P_mem[][B], int P_off, float d_mem[][B], int d_off, int R, int cols, int ld,
                         float stat_mem[][B], int stat_off) {
  detail::softmax_grad_dot_loop<LANES, B, ALIGNED>(P_mem, P_off, d_mem, d_off, R, cols, ld, stat_mem, stat_off);
  detail::softmax_grad_apply_loop<LANES, B, ALIGNED>(P_mem, P_off, d_mem, d_off, R, cols, ld, stat_mem, stat_off);
}

/// softmax_kernel on Banked views (host code and tests), rows of `cols` words apart.
template <int LANES, int B>
void softmax_kernel(Banked<const float, B> in, Banked<float, B> out, int R, int cols, int valid_cols,
                    Banked<float, B> stat) {
  softmax_kernel<LANES, B>(in.rows, in.off, out.rows, out.off, R, cols, cols, valid_cols, stat.rows, stat.off);
}

/// softmax_grad_kernel on Banked views (host code and tests), rows of `cols` words apart.
template <int LANES, int B>
void softmax_grad_kernel(Banked<const float, B> P, Banked<float, B> d, int R, int cols, Banked<float, B> stat) {
  softmax_grad_kernel<LANES, B>(P.rows, P.off, d.rows, d.off, R, cols, cols, stat.rows, stat.off);
}

}  // namespace ttsim_hls
