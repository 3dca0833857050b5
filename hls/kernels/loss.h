#pragma once
// Softmax cross-entropy loss over rows of logits with integer labels, and its gradient.
// Loops, trip counts and accesses: hls/include/kernel_spec.h ("ttsim_loss"); loop
// structure, arguments and arithmetic: row_reduce.h. The II of each loop is its
// TTSIM_II_<LOOP> of design_config.h.

#include <cmath>

#include "hls/kernels/row_reduce.h"

namespace ttsim_hls {

namespace detail {

/// loss_max: stat[r] = max of row r of the logits.
template <int LANES, int B, bool ALIGNED>
void loss_max_loop(const float logits_mem[][B], int logits_off, int R, int cols, int ld, float stat_mem[][B],
                   int stat_off, float (&acc)[kAccSlots]) {
#pragma HLS INLINE
  const Banked<const float, B> logits(logits_mem, logits_off);
  const Banked<float, B> stat(stat_mem, stat_off);
  RowReduce<LANES, TTSIM_II_LOSS_MAX, ALIGNED> c(R, cols, ld);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("loss_max");
loss_max:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_LOSS_MAX
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LOSS_MAX_MIN max = TTSIM_TRIPS_LOSS_MAX_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("loss_max");
    if (c.active()) {
      float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
      c.read_masked("logits", logits, cols, -INFINITY, v);
      const float run = c.max("acc", acc, v);
      if (c.last_tile()) bank_write("stat", stat, c.row(), run);
    }
    c.next();
  }
}

/// loss_exp_sum: dlogits = exp(logits − stat[r]); stat[R + r] = scale / row sum (0 for an
/// ignored row); loss_acc[slot] += scale·(logsumexp − logit[label]) of each used row.
template <int LANES, int B, bool ALIGNED>
void loss_exp_sum_loop(const float logits_mem[][B], int logits_off, const int index[], int labels_off,
                       float dlogits_mem[][B], int dlogits_off, int R, int cols, int ld, float scale,
                       float stat_mem[][B], int stat_off, float (&acc)[kAccSlots], float (&label_logit)[kAccSlots],
                       float (&loss_acc)[kAccSlots]) {
#pragma HLS INLINE
  const Banked<const float, B> logits(logits_mem, logits_off);
  const Banked<float, B> dlogits(dlogits_mem, dlogits_off), stat(stat_mem, stat_off);
  RowReduce<LANES, TTSIM_II_LOSS_EXP_SUM, ALIGNED> c(R, cols, ld);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("loss_exp_sum");
loss_exp_sum:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_LOSS_EXP_SUM
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LOSS_EXP_SUM_MIN max = TTSIM_TRIPS_LOSS_EXP_SUM_MAX
// stat is read in its first half (row r) and written in its second (R + r) only.
#pragma HLS DEPENDENCE variable = stat_mem type = inter false
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = label_logit type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = loss_acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("loss_exp_sum");
    if (c.active()) {
      const int r = c.row();
      const float mx = bank_read("stat", stat, r);
      const int label = plain_read("labels", index, labels_off + r);
      const int nl = c.lanes();
      float xv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
      lane_read<LANES, ALIGNED>("logits", logits, c.base(), nl, xv);
      float v[LANES];
#pragma HLS ARRAY_PARTITION variable = v complete
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        const int j = c.first() + l;
        v[l] = j < cols ? std::exp(xv[l] - mx) : 0.0f;
      }
      // The label's logit, when it lies in this tile: one lane selected by a LANES:1
      // multiplexer, one register write per iteration.
      const int ll = label - c.first();
      if (ll >= 0 && ll < nl) {
        acc_write("label_logit", label_logit, c.slot()) = xv[ll];
      }
      lane_write<LANES, ALIGNED>("dlogits", dlogits, c.base(), nl, v);
      const float s = c.sum("acc", acc, v);
      if (c.last_tile()) {
        const bool used = label >= 0;
        if (used) {
          const float lse = scale * (std::log(s) + mx - acc_read("label_logit", label_logit, c.slot()));
          const float sum = acc_read("loss_acc", loss_acc, c.slot()) + lse;
          acc_write("loss_acc", loss_acc, c.slot()) = sum;
        }
        bank_write("stat", stat, R + r, used ? scale / s : 0.0f);
      }
    }
    c.next();
  }
}

/// loss_grad: dlogits = dlogits·stat[R + r] − scale·onehot(label) (in place).
template <int LANES, int B, bool ALIGNED>
void loss_grad_loop(const int index[], int labels_off, float dlogits_mem[][B], int dlogits_off, int R, int cols, int ld,
                    float scale, float stat_mem[][B], int stat_off) {
#pragma HLS INLINE
  const Banked<float, B> dlogits(dlogits_mem, dlogits_off), stat(stat_mem, stat_off);
  Elementwise<LANES, TTSIM_II_LOSS_GRAD> c(R, cols, ld);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("loss_grad");
loss_grad:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_LOSS_GRAD
// dlogits[k] is read and written in the same iteration only.
#pragma HLS DEPENDENCE variable = dlogits_mem type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_LOSS_GRAD_MIN max = TTSIM_TRIPS_LOSS_GRAD_MAX
    TTSIM_LOOP_ITER("loss_grad");
    const float a = bank_read("stat", stat, R + c.row());
    const int label = plain_read("labels", index, labels_off + c.row());
    float dv[LANES];
#pragma HLS ARRAY_PARTITION variable = dv complete
    lane_read<LANES, ALIGNED>("dlogits", dlogits, c.base(), c.lanes(), dv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = c.first() + l;
      float o = 0.0f;
      if (j < cols) {
        const float y = j == label ? scale : 0.0f;
        o = dv[l] * a - y;
      }
      dv[l] = o;
    }
    lane_write<LANES, ALIGNED>("dlogits", dlogits, c.base(), c.lanes(), dv);
    c.next();
  }
}

}  // namespace detail

/// Softmax cross-entropy over R rows of `cols` logits with integer labels, row r at word
/// r·ld of logits and dlogits, label of row r = index[labels_off + r] (label < 0: row
/// ignored, zero loss and gradient). dlogits = scale·(softmax − onehot).
/// Returns scale · Σ_rows (logsumexp − logit[label]). stat: 2R words (row max, then
/// scale / row sum or 0). Loops loss_max, loss_exp_sum, loss_grad (II: TTSIM_II_LOSS_MAX,
/// _EXP_SUM, _GRAD); the kAccSlots partial losses are summed by a tree after loss_exp_sum.
/// ALIGNED: logits_off, dlogits_off and ld (when R > 1) are multiples of LANES (aligned
/// lane accesses, banked.h; asserted in C simulation). Requires cols <= ld.
template <int LANES, int B, bool ALIGNED = false>
float loss_kernel(const float logits_mem[][B], int logits_off, const int index[], int labels_off,
                  float dlogits_mem[][B], int dlogits_off, int R, int cols, int ld, float scale, float stat_mem[][B],
                  int stat_off) {
  float acc[kAccSlots], label_logit[kAccSlots], loss_acc[kAccSlots];
  detail::loss_max_loop<LANES, B, ALIGNED>(logits_mem, logits_off, R, cols, ld, stat_mem, stat_off, acc);
  for (int s = 0; s < kAccSlots; ++s) {
#pragma HLS UNROLL
    loss_acc[s] = 0.0f;
  }
  detail::loss_exp_sum_loop<LANES, B, ALIGNED>(logits_mem, logits_off, index, labels_off, dlogits_mem, dlogits_off, R,
                                               cols, ld, scale, stat_mem, stat_off, acc, label_logit, loss_acc);
  const float loss = LaneTree<kAccSlots>::sum(loss_acc);
  detail::loss_grad_loop<LANES, B, ALIGNED>(index, labels_off, dlogits_mem, dlogits_off, R, cols, ld, scale, stat_mem,
                                            stat_off);
  return loss;
}

/// loss_kernel on Banked views (host code and tests), rows of `cols` words apart.
template <int LANES, int B>
float loss_kernel(Banked<const float, B> logits, const int* labels, Banked<float, B> dlogits, int R, int cols,
                  float scale, Banked<float, B> stat) {
  return loss_kernel<LANES, B>(logits.rows, logits.off, labels, 0, dlogits.rows, dlogits.off, R, cols, cols, scale,
                               stat.rows, stat.off);
}

}  // namespace ttsim_hls
