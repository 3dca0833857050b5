#pragma once
// The SGD update of the parameters, element-wise (one row of `words`: the loop counts the
// tiles itself). Loop, trip count and accesses: hls/include/kernel_spec.h
// ("ttsim_sgd_update"); arguments: row_reduce.h. The loop's II is TTSIM_II_SGD_UPDATE of
// design_config.h.

#include "hls/kernels/row_reduce.h"

namespace ttsim_hls {

/// SGD in place over `words` parameters: w −= lr·g, then g = 0 (so the next step's
/// gradients start from zero without a separate clearing pass). Loop sgd_update
/// (II: TTSIM_II_SGD_UPDATE), trip ceil(words / LANES) (shape rows 1, cols words).
/// ALIGNED: w_off and g_off are multiples of LANES (aligned lane accesses, banked.h;
/// asserted in C simulation).
template <int LANES, int B, bool ALIGNED = false>
void sgd_kernel(float w_mem[][B], int w_off, float g_mem[][B], int g_off, int words, float lr) {
  const Banked<float, B> w(w_mem, w_off);
  const Banked<float, B> g(g_mem, g_off);
  const int total = detail::trip(ttsim_spec::kTripElementwise, 1, words, LANES);
  TTSIM_LOOP_BEGIN("sgd_update");
sgd_update:
  for (int t = 0; t < total; ++t) {
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
    lane_read<LANES, ALIGNED>("w", w, first, nl, wv);
    lane_read<LANES, ALIGNED>("g", g, first, nl, gv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = first + l;
      wv[l] = j < words ? wv[l] - lr * gv[l] : 0.0f;
      zv[l] = 0.0f;
    }
    lane_write<LANES, ALIGNED>("w", w, first, nl, wv);
    lane_write<LANES, ALIGNED>("g", g, first, nl, zv);
  }
}

/// sgd_kernel on Banked views (host code and tests).
template <int LANES, int B>
void sgd_kernel(Banked<float, B> w, Banked<float, B> g, int words, float lr) {
  sgd_kernel<LANES, B>(w.rows, w.off, g.rows, g.off, words, lr);
}

}  // namespace ttsim_hls
