#pragma once
// row_reduce.h — what the row-wise and element-wise training kernels share: the loop
// counters and trip counts of their three loop shapes and the steps of a row or column
// reduction, used inside each kernel's loops. The kernels, one family per header:
//   softmax.h    softmax (forward, gradient)
//   layernorm.h  LayerNorm (forward, gradient)
//   gelu.h       GELU (forward, gradient)
//   add.h        residual/bias add, in-place accumulate, bias-gradient column sums
//   loss.h       softmax cross-entropy loss with its gradient
//   sgd.h        the SGD update
//
// Loop structure and trip counts: hls/include/kernel_spec.h (one pipelined loop per pass,
// LANES adjacent columns per iteration, UNROLL). Element-wise passes run (row, column
// tile): Elementwise. Row reductions (max, sums) interleave kAccSlots rows: the loop runs
// (row block, column tile, row in block), each row's accumulator (a register slot) is
// updated every kAccSlots iterations and the LANES values of one iteration are reduced by
// an adder (or max) tree first; the row statistic is written to `stat` at the row's last
// tile: RowReduce. Column sums (γ/β and bias gradients) interleave kAccSlots column tiles
// the same way: (tile block, row, tile in block): ColumnReduce. No floating-point value is
// carried from one iteration to the next, so every loop reaches II = 1 at the clocks the
// device files list (RecMII = ceil(fadd latency / kAccSlots) = 1); rows or tiles beyond
// the last block are idle slots, counted in the trip.
//
// Each loop is written out in its kernel's header: its label, its PIPELINE,
// LOOP_TRIPCOUNT and DEPENDENCE pragmas (II = TTSIM_II_<LOOP>, trips TTSIM_TRIPS_<LOOP>_*
// of design_config.h) and its probes (TTSIM_LOOP_BEGIN / TTSIM_LOOP_ITER, access_probe.h):
// the specification, the csynth reports and the tests find a loop by its label. A kernel
// with several loops runs one inlined function per loop (`<label>_loop`, namespace
// detail), so the loops stay in the kernel's module. The cursors here (RowReduce,
// ColumnReduce, Elementwise) are the loop's counter; their II template argument is the
// loop's TTSIM_II_<LOOP> (the same macro as its PIPELINE pragma): one accumulator slot of a
// reduction is updated every kAccSlots·II cycles.
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

namespace detail {

/// Row offsets r·stride[k] of up to kMax arrays with their own row strides, kept by
/// increments as the loop's row r advances (down: r + 1), restarts (restore: back to the
/// marked row; reset: row 0) or is marked (mark) — increment-only addressing: the loop
/// bodies add and compare, never multiply a runtime row by a runtime stride.
struct RowOffsets {
  static constexpr int kMax = 3;
  int stride[kMax] = {0, 0, 0};
  int off[kMax] = {0, 0, 0};
  int marked[kMax] = {0, 0, 0};
  RowOffsets(int s0, int s1, int s2) : stride{s0, s1, s2} {}
  void down() {
    for (int k = 0; k < kMax; ++k) off[k] += stride[k];
  }
  void mark() {
    for (int k = 0; k < kMax; ++k) marked[k] = off[k];
  }
  void restore() {
    for (int k = 0; k < kMax; ++k) off[k] = marked[k];
  }
  void reset() {
    for (int k = 0; k < kMax; ++k) off[k] = marked[k] = 0;
  }
};

/// (block, tile, slot) counter of a row-slot loop: row = block·kAccSlots + slot (a shift:
/// kAccSlots is a power of two); `rows` holds row·stride of the loop's arrays.
struct RowSlots {
  int tiles, block = 0, t = 0, s = 0;
  RowOffsets rows;
  RowSlots(int tiles_, int s0, int s1, int s2) : tiles(tiles_), rows(s0, s1, s2) {}
  int row() const { return block * kAccSlots + s; }
  void next() {
    if (++s < kAccSlots) {
      rows.down();
      return;
    }
    s = 0;
    if (++t < tiles) {
      rows.restore();  // the block's first row again, next tile
      return;
    }
    t = 0;
    ++block;
    rows.down();  // the row after the block's last: the next block's first
    rows.mark();
  }
};

/// (block, row, slot) counter of a column-slot loop: tile = block·kAccSlots + slot; `rows`
/// holds r·stride of the loop's arrays.
struct ColumnSlots {
  int nrows, block = 0, r = 0, s = 0;
  RowOffsets rows;
  ColumnSlots(int rows_, int s0, int s1, int s2) : nrows(rows_), rows(s0, s1, s2) {}
  int tile() const { return block * kAccSlots + s; }
  void next() {
    if (++s < kAccSlots) return;
    s = 0;
    if (++r < nrows) {
      rows.down();
      return;
    }
    r = 0;
    rows.reset();
    ++block;
  }
};

/// (row, tile) counter of an element-wise loop; `rows` holds r·stride of the loop's arrays.
struct RowTiles {
  int tiles, r = 0, t = 0;
  RowOffsets rows;
  RowTiles(int tiles_, int s0, int s1, int s2) : tiles(tiles_), rows(s0, s1, s2) {}
  void next() {
    if (++t < tiles) return;
    t = 0;
    ++r;
    rows.down();
  }
};

/// Trip count of a loop of kind k over R rows of cols (kernel_spec.h loop_trip, batch 1).
inline int trip(ttsim_spec::TripKind k, int R, int cols, int lanes) {
  return ttsim_spec::loop_trip<int>(k, -1, 0, 1, R, 1, cols, lanes);
}

}  // namespace detail

/// Cursor of a row reduction over R rows of `cols` (row-major, word r·ld + j; ld = cols by default):
/// iterations (row block, column tile, row in block), kTripRowSlots. II: the loop's
/// PIPELINE II (TTSIM_II_<LOOP>). In the body: act when active() (a row, not an idle
/// slot), fold the tile's LANES values into the row's slot with sum() or max(), write the
/// row statistic at last_tile(), then next().
/// ALIGNED: every row starts at a multiple of LANES (offset and ld), so read_masked is
/// an aligned lane read (banked.h lane_read<LANES, true>).
template <int LANES, int II, bool ALIGNED = false>
class RowReduce {
 public:
  static_assert(II >= 1, "PIPELINE II is at least 1");
  /// The loop's PIPELINE II; an accumulator slot is updated every kAccSlots·II cycles.
  static constexpr int kII = II;

  /// R rows of `cols`, row r at word r·ld (ld = cols when not given).
  RowReduce(int R, int cols, int ld = -1)
      : R_(R), cols_(cols), c_((cols + LANES - 1) / LANES, ld < 0 ? cols : ld, 0, 0) {}
  /// Iterations of the loop: ceil(R / kAccSlots)·kAccSlots·ceil(cols / LANES).
  int total() const { return detail::trip(ttsim_spec::kTripRowSlots, R_, cols_, LANES); }
  /// Row of this iteration (>= R: an idle slot).
  int row() const { return c_.row(); }
  bool active() const { return c_.row() < R_; }
  /// First column of this iteration's tile.
  int first() const { return c_.t * LANES; }
  /// Word of (row, first()) (row·ld kept by increments).
  int base() const { return c_.rows.off[0] + first(); }
  /// Lanes of the tile below column `valid` (default: every column).
  int lanes(int valid) const { return tile_lanes<LANES>(first(), valid); }
  int lanes() const { return lanes(cols_); }
  bool last_tile() const { return c_.t == c_.tiles - 1; }

  /// v[l] = word base() + l of x for the columns below `valid` (read: lanes(valid)), `fill`
  /// for the others.
  template <typename T, int B>
  void read_masked(const char* name, const Banked<T, B>& x, int valid, float fill, float (&v)[LANES]) const {
#pragma HLS INLINE
    float xv[LANES];
#pragma HLS ARRAY_PARTITION variable = xv complete
    lane_read<LANES, ALIGNED>(name, x, base(), lanes(valid), xv);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = first() + l;
      v[l] = j < valid ? xv[l] : fill;
    }
  }
  /// Adds the adder-tree sum of v to the row's slot of `acc` (restarted at the row's
  /// first tile); returns the row's running sum.
  float sum(const char* var, float (&acc)[kAccSlots], const float (&v)[LANES]) const {
#pragma HLS INLINE
    const float part = LaneTree<LANES>::sum(v);
    const float s = c_.t == 0 ? part : acc_read(var, acc, c_.s) + part;
    acc_write(var, acc, c_.s) = s;
    return s;
  }
  /// Folds the tree maximum of v into the row's slot of `acc` (restarted at the row's
  /// first tile); returns the row's running maximum.
  float max(const char* var, float (&acc)[kAccSlots], const float (&v)[LANES]) const {
#pragma HLS INLINE
    const float m = LaneTree<LANES>::max(v);
    float run = m;
    if (c_.t > 0) {
      const float prev = acc_read(var, acc, c_.s);
      run = m > prev ? m : prev;
    }
    acc_write(var, acc, c_.s) = run;
    return run;
  }
  /// The row's slot of acc (a per-row register value other than a sum or maximum).
  int slot() const { return c_.s; }
  void next() { c_.next(); }

 private:
  int R_, cols_;
  detail::RowSlots c_;
};

/// Cursor of a column-sum loop over R rows of `cols` (row r of x at word r·x_rs):
/// iterations (tile block, row, tile in block), kTripColumnSlots. II: the loop's PIPELINE
/// II (TTSIM_II_<LOOP>). In the body: act when active() (a tile, not an idle slot), add
/// each valid lane into the tile's slot with add(), and add the column sums to their
/// destination at last_row().
/// ALIGNED: the destination of flush starts at a multiple of LANES (an aligned lane read
/// and write, banked.h).
template <int LANES, int II, bool ALIGNED = false>
class ColumnReduce {
 public:
  static_assert(II >= 1, "PIPELINE II is at least 1");
  /// The loop's PIPELINE II; an accumulator slot is updated every kAccSlots·II cycles.
  static constexpr int kII = II;

  /// Rows of the loop's arrays at row strides rs0, rs1, rs2 (words; rs0 = cols when not
  /// given): at(k) is the word of (row, first()) of the array of stride rs_k.
  ColumnReduce(int R, int cols, int rs0 = -1, int rs1 = 0, int rs2 = 0)
      : R_(R), cols_(cols), tiles_((cols + LANES - 1) / LANES), c_(R, rs0 < 0 ? cols : rs0, rs1, rs2) {}
  /// Iterations of the loop: ceil(ceil(cols / LANES) / kAccSlots)·kAccSlots·R.
  int total() const { return detail::trip(ttsim_spec::kTripColumnSlots, R_, cols_, LANES); }
  /// Column tile of this iteration (>= tiles: an idle slot).
  int tile() const { return c_.tile(); }
  bool active() const { return c_.tile() < tiles_; }
  int row() const { return c_.r; }
  /// First column of this iteration's tile.
  int first() const { return c_.tile() * LANES; }
  /// Word of (row, first()) at row stride rs_k (row·rs_k kept by increments).
  int at(int k) const { return c_.rows.off[k] + first(); }
  /// Lanes of the tile (columns below cols).
  int lanes() const { return tile_lanes<LANES>(first(), cols_); }
  /// Whether lane l is a column (< cols).
  bool valid(int l) const { return first() + l < cols_; }
  bool last_row() const { return c_.r == R_ - 1; }

  /// Adds x to lane l of the tile's slot of `acc` (restarted at row 0); returns the
  /// column's running sum. Call for valid lanes only.
  float add(const char* var, float (&acc)[kAccSlots][LANES], int l, float x) const {
#pragma HLS INLINE
    const float s = (c_.r == 0 ? 0.0f : acc_read(var, acc, c_.s)[l]) + x;
    acc_write(var, acc, c_.s)[l] = s;
    return s;
  }
  /// Adds the column sums sv (lanes() valid) to the words first()… of `sum`: one
  /// lane_read and one lane_write of it.
  template <int B>
  void flush(const char* name, const Banked<float, B>& sum, const float (&sv)[LANES]) const {
#pragma HLS INLINE
    float ov[LANES];
#pragma HLS ARRAY_PARTITION variable = ov complete
    lane_read<LANES, ALIGNED>(name, sum, first(), lanes(), ov);
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      ov[l] = ov[l] + sv[l];
    }
    lane_write<LANES, ALIGNED>(name, sum, first(), lanes(), ov);
  }
  void next() { c_.next(); }

 private:
  int R_, cols_, tiles_;
  detail::ColumnSlots c_;
};

/// Cursor of an element-wise loop over R rows of `cols`: iterations (row, column tile),
/// kTripElementwise. II: the loop's PIPELINE II (TTSIM_II_<LOOP>).
template <int LANES, int II>
class Elementwise {
 public:
  static_assert(II >= 1, "PIPELINE II is at least 1");
  /// The loop's PIPELINE II.
  static constexpr int kII = II;

  /// Rows of the loop's arrays at row strides rs0, rs1, rs2 (words; rs0 = cols when not
  /// given): at(k) is the word of (row, first()) of the array of stride rs_k.
  Elementwise(int R, int cols, int rs0 = -1, int rs1 = 0, int rs2 = 0)
      : R_(R), cols_(cols), c_((cols + LANES - 1) / LANES, rs0 < 0 ? cols : rs0, rs1, rs2) {}
  /// Iterations of the loop: R·ceil(cols / LANES).
  int total() const { return detail::trip(ttsim_spec::kTripElementwise, R_, cols_, LANES); }
  int row() const { return c_.r; }
  /// First column of this iteration's tile.
  int first() const { return c_.t * LANES; }
  /// Word of (row, first()) in a row-major R × cols array (row·cols kept by increments;
  /// the array of stride rs0 when one was given).
  int base() const { return at(0); }
  /// Word of (row, first()) at row stride rs_k.
  int at(int k) const { return c_.rows.off[k] + first(); }
  /// Lanes of the tile (columns below cols).
  int lanes() const { return tile_lanes<LANES>(first(), cols_); }
  /// Whether lane l is a column (< cols).
  bool valid(int l) const { return first() + l < cols_; }
  void next() { c_.next(); }

 private:
  int R_, cols_;
  detail::RowTiles c_;
};

}  // namespace ttsim_hls
