#pragma once
// The elementwise-unit kernels (TaskOp add): in-place accumulate (bias, position and
// residual adds, embedding gradients), the bias gradient as column sums, and the transposed
// copy. Loops, trip counts and accesses: hls/include/kernel_spec.h ("ttsim_add_accumulate":
// add_accumulate, column_sum, transpose);
// loop structure and arguments of the first three: row_reduce.h. The II of each loop is its TTSIM_II_<LOOP>
// of design_config.h.

#include "hls/kernels/row_reduce.h"

namespace ttsim_hls {

/// acc[r·acc_rs + j] += x[r·x_rs + j] for R rows of cols; every acc element distinct
/// (acc_rs >= cols; column sums are column_sum_kernel). Loop add_accumulate
/// (II: TTSIM_II_ADD_ACCUMULATE).
template <int LANES, int B>
void add_accumulate_kernel(const float x_mem[][B], int x_off, float acc_mem[][B], int acc_off, int R, int cols,
                           int x_rs, int acc_rs) {
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<float, B> acc(acc_mem, acc_off);
  Elementwise<LANES, TTSIM_II_ADD_ACCUMULATE> c(R, cols, acc_rs, x_rs);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("add_accumulate");
add_accumulate:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_ADD_ACCUMULATE
// every acc element is read and written in one iteration (acc_rs >= cols: distinct elements).
#pragma HLS DEPENDENCE variable = acc_mem type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_ADD_ACCUMULATE_MIN max = TTSIM_TRIPS_ADD_ACCUMULATE_MAX
    TTSIM_LOOP_ITER("add_accumulate");
    const int k = c.at(0);
    float av[LANES], xv[LANES];
#pragma HLS ARRAY_PARTITION variable = av complete
#pragma HLS ARRAY_PARTITION variable = xv complete
    lane_read<LANES>("acc", acc, k, c.lanes(), av);
    lane_read<LANES>("x", x, c.at(1), c.lanes(), xv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      av[l] = c.valid(l) ? av[l] + xv[l] : 0.0f;
    }
    lane_write<LANES>("acc", acc, k, c.lanes(), av);
    c.next();
  }
}

/// sum[j] += Σ_r x[r·x_rs + j] for R rows of cols (the bias gradient as column sums of
/// dY). Loop column_sum (II: TTSIM_II_COLUMN_SUM).
template <int LANES, int B>
void column_sum_kernel(const float x_mem[][B], int x_off, float sum_mem[][B], int sum_off, int R, int cols, int x_rs) {
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<float, B> sum(sum_mem, sum_off);
  float acc[kAccSlots][LANES];
#pragma HLS ARRAY_PARTITION variable = acc dim = 2 complete
  ColumnReduce<LANES, TTSIM_II_COLUMN_SUM> c(R, cols, x_rs);
  const int total = c.total();
  TTSIM_LOOP_BEGIN("column_sum");
column_sum:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_COLUMN_SUM
// sum[j] is read and written once per call, in the iteration of the last row.
#pragma HLS DEPENDENCE variable = sum_mem type = inter false
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_COLUMN_SUM_MIN max = TTSIM_TRIPS_COLUMN_SUM_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_SLOTS dependent = true
    TTSIM_LOOP_ITER("column_sum");
    if (c.active()) {
      float xv[LANES], sv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
#pragma HLS ARRAY_PARTITION variable = sv complete
      lane_read<LANES>("x", x, c.at(0), c.lanes(), xv);
      for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
        sv[l] = c.valid(l) ? c.add("acc", acc, l, xv[l]) : 0.0f;
      }
      // The column sums are added to sum at the last row (valid lanes only).
      if (c.last_row()) c.flush("sum", sum, sv);
    }
    c.next();
  }
}

namespace detail {
// The transpose's NB tile buffers of LANES × LANES words, skewed over LANES memories
// (LUTRAM, one write and one read port each): element (r, c) of buffer b lives in memory
// (r + c) mod LANES at word b · LANES + r. A tile row and a tile column each hold one word
// in every memory, so a row is written and a column read by one access per memory, the
// words moved to and from the lanes by two barrel rotators (banked.h barrel_rotate) —
// instead of LANES × LANES × NB registers whose column read would be an (NB · LANES):1
// select per lane. Priced by ttsim_hls::transpose_tile_luts (hls/include/banked.h).

/// Writes row r (the words row[c], c < LANES) into tile buffer b: memory k takes
/// row[(k − r) mod LANES] at word b · LANES + r (the row rotated right by r).
template <int LANES, int NB>
inline void tile_write_row(float (&tile)[LANES][NB * LANES], int b, int r, const float (&row)[LANES]) {
#pragma HLS INLINE
  float w[LANES];
#pragma HLS ARRAY_PARTITION variable = w complete
  for (int k = 0; k < LANES; ++k) {
#pragma HLS UNROLL
    w[k] = row[k];
  }
  barrel_rotate<LANES>(w, r == 0 ? 0 : LANES - r);  // left by LANES − r = right by r
  for (int k = 0; k < LANES; ++k) {
#pragma HLS UNROLL
    tile[k][b * LANES + r] = w[k];
    TTSIM_REG_WR("tile", k * NB * LANES + b * LANES + r);
  }
}

/// Reads column c of tile buffer b into col[r], r < LANES: memory k holds row (k − c) mod
/// LANES of it, each memory read at its own word; rotated left by c into the lanes.
template <int LANES, int NB>
inline void tile_read_column(const float (&tile)[LANES][NB * LANES], int b, int c, float (&col)[LANES]) {
#pragma HLS INLINE
  for (int k = 0; k < LANES; ++k) {
#pragma HLS UNROLL
    const int r = k >= c ? k - c : k + LANES - c;
    col[k] = tile[k][b * LANES + r];
    TTSIM_REG_RD("tile", k * NB * LANES + b * LANES + r);
  }
  barrel_rotate<LANES>(col, c);  // col[r] = the word of memory (r + c) mod LANES
}
}  // namespace detail

/// out[j·o_rs + i] = x[i·x_rs + j] for i < R, j < cols: x (R rows of cols, row stride
/// x_rs) copied transposed (cols rows of R, row stride o_rs), LANES words per cycle through
/// NB LANES × LANES tile buffers (detail::tile_write_row: skewed LUTRAM). The loop walks the tiles (row tiles outer, column tiles
/// inner) in steps: step t lane-reads the ρ rows of tile t (ρ = LANES, or the rows of a last
/// row tile; LANES consecutive words of x or fewer) into tile buffer t mod NB, one per
/// iteration, and lane-writes the γ columns of tile t − (NB − 1) (LANES consecutive words of
/// out or fewer) from its buffer; NB − 1 more steps drain the last tiles. A step lasts
/// max(ρ, γ, transpose_min_step) iterations, so a skinny matrix (12 columns at 64 lanes)
/// takes 12-iteration steps where its tiles are 12 wide instead of LANES. One lane access
/// per array per iteration: ResMII 1. A buffer is read no sooner than
/// (NB − 2) · transpose_min_step + 1 >= ttsim_spec::kTransposeLag iterations after its last
/// write (NB = transpose_buffers(LANES)), the distance its DEPENDENCE pragma declares: the
/// tile's recurrence (the x read's latency over that distance) keeps RecMII 1. Rows past R
/// and columns past cols are neither read nor written. Loop transpose (II: TTSIM_II_TRANSPOSE); trip ttsim_spec::transpose_trip:
/// the loop leaves after its last step (its bound, (tiles + NB − 1) · LANES, is the longest
/// the steps can take), so the kernel counts steps and needs no divider for its trip.
/// The loop-carried control stays counters, compares and multiplexers, as at LANES-long
/// steps: the next step's ρ, γ and length are selected among constants of the setup by four
/// flags, each one compare of a counter with a setup constant — the next step's index u
/// (u < tiles, u >= the first step of the last row tile, u >= NB − 1) and its write tile's
/// column index wc (at its last) — computed beside the step counter's compare and the exit
/// compare (u = tiles + NB − 1).
template <int LANES, int B>
void transpose_kernel(const float x_mem[][B], int x_off, float out_mem[][B], int out_off, int R, int cols, int x_rs,
                      int o_rs) {
  constexpr int NB = ttsim_spec::transpose_buffers(LANES);
  constexpr int kMinStep = ttsim_spec::transpose_min_step(LANES);
  const Banked<const float, B> x(x_mem, x_off);
  const Banked<float, B> out(out_mem, out_off);
  float tile[LANES][NB * LANES];
#pragma HLS ARRAY_PARTITION variable = tile complete dim = 1
#pragma HLS BIND_STORAGE variable = tile type = ram_s2p impl = lutram
  // Setup: tile counts (divisions by the constant LANES), the one product, and the step
  // lengths a partial tile can give (max with kMinStep: compares of constants' sums).
  const int nr = (R + LANES - 1) / LANES, nc = (cols + LANES - 1) / LANES;
  const int tiles = nr * nc;  // the one setup product
  const int bound = (tiles + NB - 1) * LANES;
  const int last_row_step = tiles - nc;                             // first step reading the last row tile
  const int rl = R - (nr - 1) * LANES, cl = cols - (nc - 1) * LANES;  // its rows; the last column tile's columns
  const int len_r = rl > kMinStep ? rl : kMinStep, len_w = cl > kMinStep ? cl : kMinStep;
  const int len_rw = len_r > len_w ? len_r : len_w;
  int s = 0, rb = 0, wb = 0;  // step in the tile; buffers being read into and written out
  int j0 = 0;                 // first column of the tile being read
  int wi0 = 0, wj0 = 0;       // first row and column of the tile being written
  // This step's rows read and columns written (0: none) and its iterations (step 0: a read,
  // none of an empty matrix).
  int rho = tiles == 0 ? 0 : nr == 1 ? rl : LANES, gamma = 0;
  int len = tiles == 0 ? kMinStep : nr == 1 ? len_r : LANES;
  int u = 1, wc = 0;  // the next step, and its write tile's column tile (while u >= NB − 1)
  // Increment-only addressing: (first row + s)·x_rs and (wj0 + s)·o_rs as running sums, and
  // the tile starts they restart from (LANES·stride: a shift).
  int xrow = 0, xrow0 = 0, orow = 0, orow0 = 0;
  TTSIM_LOOP_BEGIN("transpose");
transpose:
  for (int n = 0; n < bound; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_TRANSPOSE
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_TRANSPOSE_MIN max = TTSIM_TRIPS_TRANSPOSE_MAX
// A tile element is read kTransposeLag or more iterations after its write (the steps'
// minimum length): a true dependence at that distance, which the schedule keeps whatever
// stages csynth gives the read, the rotators and the LUTRAM read. Only RAW is declared: a
// word is rewritten as soon as one iteration after its last read (a step's last column read,
// then row 0 of the next tile into the same buffer position), an anti-dependence Vitis keeps
// ordered — never relax this to `inter false`.
#pragma HLS DEPENDENCE variable = tile type = inter direction = RAW distance = TTSIM_TRANSPOSE_LAG dependent = true
// Within an iteration the row written (buffer rb, step u) and the column read (buffer wb,
// step u − (NB − 1)) are in different buffers (NB − 1 is no multiple of NB): the x → tile and
// tile → out paths run side by side, the loop's depth that of one of them.
#pragma HLS DEPENDENCE variable = tile type = intra false
    TTSIM_LOOP_ITER("transpose");
    if (s < rho) {
      float row[LANES];
#pragma HLS ARRAY_PARTITION variable = row complete
      const int n_cols = cols - j0 < LANES ? cols - j0 : LANES;
      lane_read<LANES>("x", x, xrow + j0, n_cols, row);
      detail::tile_write_row<LANES, NB>(tile, rb, s, row);
    }
    if (s < gamma) {
      float col[LANES];
#pragma HLS ARRAY_PARTITION variable = col complete
      detail::tile_read_column<LANES, NB>(tile, wb, s, col);
      const int n_rows = R - wi0 < LANES ? R - wi0 : LANES;
      lane_write<LANES>("out", out, orow + wi0, n_rows, col);
    }
    xrow += x_rs;
    orow += o_rs;
    // The next step (u): whether it reads, a last row tile, writes, a last column tile.
    const bool n_read = u < tiles, n_read_last = u >= last_row_step;
    const bool n_write = u >= NB - 1, n_write_last = wc == nc - 1;
    if (++s == len) {
      s = 0;
      if (u == tiles + NB - 1) break;
      rho = !n_read ? 0 : n_read_last ? rl : LANES;
      gamma = !n_write ? 0 : n_write_last ? cl : LANES;
      len = (n_read && !n_read_last) || (n_write && !n_write_last) ? LANES
            : n_read && n_write                                 ? len_rw
            : n_read                                            ? len_r
            : n_write                                           ? len_w
                                                                : kMinStep;
      rb = rb + 1 == NB ? 0 : rb + 1;
      if (u > NB - 1) {  // the step that ended wrote a tile: the next write tile
        wb = wb + 1 == NB ? 0 : wb + 1;
        wj0 += LANES;
        orow0 += LANES * o_rs;
        if (wj0 >= cols) {
          wj0 = 0;
          orow0 = 0;
          wi0 += LANES;
        }
      }
      if (n_write) wc = n_write_last ? 0 : wc + 1;  // the write tile of step u + 1
      ++u;
      j0 += LANES;
      if (j0 >= cols) {
        j0 = 0;
        xrow0 += LANES * x_rs;
      }
      xrow = xrow0;
      orow = orow0;
    }
  }
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

/// transpose_kernel on Banked views (host code and tests).
template <int LANES, int B>
void transpose_kernel(Banked<const float, B> x, Banked<float, B> out, int R, int cols, int x_rs, int o_rs) {
  transpose_kernel<LANES, B>(x.rows, x.off, out.rows, out.off, R, cols, x_rs, o_rs);
}

}  // namespace ttsim_hls
