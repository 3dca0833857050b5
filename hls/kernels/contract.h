#pragma once
// The contraction engine: batch × (rows × inner)·(inner × cols) multiply-accumulate
// over strided views of on-chip arrays. Every TT/TTM merge, X·L, Z·R, attention
// matmul, dense head product and every backward product of the training step is one
// call. Loop structure: hls/include/kernel_spec.h ("ttsim_contraction"); each call runs
// one of four pipelined loops, chosen from the operand strides and the accumulate flag
// (contract_variant):
//
//  contract_column  lanes = LANES adjacent output columns j (B and C contiguous in j).
//                   Output-stationary: a chunk of output slots — slot = (row i, column
//                   tile) — accumulates in registers acc[slot][lane] while the reduction
//                   index advances; order (output batch, chunk, reduction step (b if
//                   reduced, p), slot). A call of g slots runs acc_chunks(g) chunks of
//                   w = acc_chunk_width(g) slots (kernel_spec.h: kAccMinSlots <= w <=
//                   kAccSlots), so each accumulator is updated every w >= kAccMinSlots
//                   iterations (RecMII 1 for accumulation cycles <= kAccMinSlots).
//                   With dual-port lanes (LANES > BANKS: two lane windows, banked.h) a
//                   call of at most LANES − BANKS columns runs two output rows per
//                   iteration, one per window, each with its own A word
//                   (kernel_spec.h column_rows_paired): attention's 64-wide heads and the
//                   TTM's transposed rank side keep every lane busy.
//  contract_column_acc  the column form of a call that accumulates into C: the same
//                   iteration with a C read site (C_old at the first reduction step). Two
//                   loops, so that a call that does not accumulate holds no C read site:
//                   with dual-port lanes (LANES > BANKS, banked.h) each lane site takes two
//                   ports of every bank, and C read + C write would need four.
//  contract_dot     lanes = LANES consecutive reduction indices p (A and B contiguous in
//                   p: transposed B); slot = one output element (two with pairs); the lane products are
//                   summed by an adder tree, then accumulated as above. With dual-port
//                   lanes a call of at most LANES − BANKS reduction steps whose outputs
//                   are adjacent in C (c_j = 1) runs two output columns per iteration, one
//                   per lane window and adder tree (kernel_spec.h dot_cols_paired): attention's
//                   Q·Kᵀ and dC·Vᵀ over 64-wide heads.
//  contract_scalar  neither operand is lane-contiguous: one product per iteration, same
//                   slot structure (lanes idle rather than contending for one bank).
// C is read (when accumulating) at the first reduction step of a chunk and written at
// the last, so it carries a recurrence only through elements two chunks share (several
// batches mapped to one C row by c_index: the TTM gradient scatter), at distance
// kAccMinSlots iterations or more.
//
// Arithmetic: the column and scalar forms accumulate every C element over p in increasing
// order (then over b when the batch is reduced), starting from C_old when accumulating —
// independent of LANES. The dot form sums LANES products by a balanced tree first, so its
// rounding depends on LANES (with dual-port lanes: a tree per window of BANKS lanes, then
// their sum).

#ifndef __SYNTHESIS__
#include <cstdio>
#include <cstdlib>
#endif

#include "hls/include/access_probe.h"
#include "hls/include/banked.h"
#include "hls/include/design_config.h"
#include "hls/include/kernel_spec.h"

// Loop labels name the loops in HLS reports; g++ sees them as unused.
#if defined(__GNUC__) && !defined(__SYNTHESIS__)
#pragma GCC diagnostic ignored "-Wunused-label"
#endif

namespace ttsim_hls {

using ttsim_spec::kAccSlots;

/// Strided operands of one contraction. Element (b, i, p) of A is
/// A[abase(b) + i·a_i + p·a_p] with abase(b) = index[a_index + b] when a_index >= 0, else
/// b·a_b; likewise B (b, p, j) at B[bbase(b) + p·b_p + j·b_j] and C (b, i, j) at
/// C[cbase(b) + i·c_i + j·c_j]. `index` is the top's int array (the module's `index`
/// argument); the tables in it implement the TTM lookup (a core slice chosen per token)
/// and the gradient scatter into a slice. At most two of a_index, b_index, c_index are
/// >= 0 in one call (the loop has two read sites on `index`).
///
/// Result: C(b,i,j) = beta · C_old(b,i,j) + Σ_p (alpha · A(b,i,p))·B(b,p,j), beta = 1 when
/// `accumulate`, else 0 (alpha scales the A operand — one multiplier per iteration, not
/// per lane, or one per lane window with dual-port lanes; the dot form scales each lane
/// tree's sum). With `reduce_batch` the sum runs over b too and C has no batch
/// (cbase = 0: C is shared by every b; c_b and c_index are unused).
/// When several batches map to one C element through c_index, `accumulate` must be set,
/// and batches must map to identical or disjoint C slices (c_index entries equal, or
/// rows·cols apart or more): the DEPENDENCE distance kAccMinSlots on C holds only then
/// (tests/hls/kernel_spec_measure_test Injection.MisalignedScatterIsReported).
struct ContractDesc {
  int batch = 1, rows = 1, inner = 1, cols = 1;  ///< extents, each >= 1
  int a_b = 0, a_i = 0, a_p = 0;                ///< A strides (words)
  int b_b = 0, b_p = 0, b_j = 0;                ///< B strides (words)
  int c_b = 0, c_i = 0, c_j = 0;                ///< C strides (words)
  int a_index = -1;  ///< word offset in `index` of the per-batch A bases, or -1 (b·a_b)
  int b_index = -1;  ///< word offset in `index` of the per-batch B bases, or -1 (b·b_b)
  int c_index = -1;  ///< word offset in `index` of the per-batch C bases, or -1 (b·c_b)
  float alpha = 1.0f;
  bool accumulate = false;
  bool reduce_batch = false;
};

/// Row-major (rows × inner)·(inner × cols) → (rows × cols), batch 1, no transposes.
inline ContractDesc plain_desc(int rows, int inner, int cols) {
  ContractDesc d;
  d.rows = rows; d.inner = inner; d.cols = cols;
  d.a_i = inner; d.a_p = 1;
  d.b_p = cols; d.b_j = 1;
  d.c_i = cols; d.c_j = 1;
  return d;
}

/// kernel_spec.h variant (form | reduce bit) of a descriptor.
inline int contract_variant(const ContractDesc& d) {
  return ttsim_spec::contract_variant(d.a_p, d.b_p, d.b_j, d.c_j, d.reduce_batch, d.accumulate);
}

/// Sum of N values by a balanced adder tree (ceil(log2 N) fadd levels).
template <int N>
struct LaneTree {
  static float sum(const float* v) {
#pragma HLS INLINE
    return LaneTree<N / 2>::sum(v) + LaneTree<N - N / 2>::sum(v + N / 2);
  }
  static float max(const float* v) {
#pragma HLS INLINE
    const float a = LaneTree<N / 2>::max(v), b = LaneTree<N - N / 2>::max(v + N / 2);
    return a > b ? a : b;
  }
};
template <>
struct LaneTree<1> {
  static float sum(const float* v) {
#pragma HLS INLINE
    return v[0];
  }
  static float max(const float* v) {
#pragma HLS INLINE
    return v[0];
  }
};

namespace detail {

/// Counters of the slot-interleaved reduction shared by the three forms, advanced slot
/// fastest: output batch ob, chunk, reduction batch rb (when the batch is reduced),
/// reduction step q, slot s; plus the operand bases of the current batch, kept in
/// registers and reloaded only when the batch changes. The (at most two) index tables of
/// the call are read by two fixed sites, `t0` and `t1`; each operand takes its base from
/// one of them or from its batch stride (selected once per call, before the loop).
///
/// Slot g (chunk · w + s, w the chunk width) is the output at row g / width, column (or column tile)
/// g mod width; the cursor keeps that pair (si, sj) by increments — no division in the
/// loop body — and the pair of the chunk's first slot (ci, cj) to restart from when the
/// chunk repeats for the next reduction step. si >= rows marks an idle slot.
///
/// Increment-only addressing: the word offsets the loops need — si·a_i, si·c_i, sj·b_j,
/// sj·c_j, q·a_p, q·b_p and the batch offsets b·a_b, b·b_b, b·c_b — are kept as running
/// sums, advanced by adding the stride when their counter advances and restored or reset
/// when it restarts, so the pipelined loop bodies add and compare but never multiply a
/// runtime index by a runtime stride (a 32-bit multiplier is DSPs and pipeline depth the
/// kernel specification does not price). The products outside the loop (the trip count and
/// the slot count the chunk count and width come from) are per-call setup in 32-bit
/// arithmetic: ttsim_spec::trip_products of them per form, priced as 32-bit multipliers in
/// the DSP count (hw/arch_spec.h setup_dsp).
struct SlotCursor {
  const ContractDesc& d;
  const int* index;
  int nq, rbn, chunks, width, w;  ///< w: slots per chunk (acc_chunk_width)
  int ob = 0, chunk = 0, rb = 0, q = 0, s = 0;
  int si = 0, sj = 0;  ///< row and column (tile) of the current slot
  int ci = 0, cj = 0;  ///< row and column (tile) of the first slot of the current chunk
  int ia = 0, ic = 0, jb = 0, jc = 0;      ///< si·a_i, si·c_i, sj·b_j, sj·c_j
  int cia = 0, cic = 0, cjb = 0, cjc = 0;  ///< the same of (ci, cj)
  int pa = 0, pb = 0;                      ///< q·a_p, q·b_p
  int ba = 0, bb = 0, bc = 0;  ///< b·a_b, b·b_b, b·c_b of batch `bcur`
  int bcur = 0;
  int abase = 0, bbase = 0, cbase = 0;
  int t0 = -1, t1 = -1;               ///< word offsets of the two tables read, or -1
  int a_src = -1, b_src = -1, c_src = -1;  ///< 0: t0, 1: t1, -1: batch stride
  SlotCursor(const ContractDesc& desc, const int* index_, int nq_, int chunks_, int w_, int width_)
      : d(desc), index(index_), nq(nq_), rbn(desc.reduce_batch ? desc.batch : 1), chunks(chunks_),
        width(width_), w(w_) {
    a_src = take(d.a_index);
    b_src = take(d.b_index);
    c_src = d.reduce_batch ? -1 : take(d.c_index);
    load_bases();
  }
  /// Assigns table offset `off` (>= 0) to the next free read site; -1 when off < 0.
  int take(int off) {
    if (off < 0) return -1;
    if (t0 < 0) {
      t0 = off;
      return 0;
    }
#if !defined(__SYNTHESIS__)
    assert(t1 < 0 && "ContractDesc: at most two index tables per call");
#endif
    t1 = off;
    return 1;
  }
  /// Batch whose A and B elements the current step reads.
  int batch() const { return d.reduce_batch ? rb : ob; }
  bool first() const { return rb == 0 && q == 0; }
  bool last() const { return rb == rbn - 1 && q == nq - 1; }
  /// The operand bases of batch(): from an index table, or the batch offset, which moves
  /// by one stride when the batch advances by one and restarts at batch 0 (the only two
  /// changes next() makes).
  void load_bases() {
    const int b = batch();
#if !defined(__SYNTHESIS__)
    assert((b == 0 || b == bcur || b == bcur + 1) && "SlotCursor: the batch advances by one or restarts");
#endif
    if (b == 0) {
      ba = bb = bc = 0;
    } else if (b != bcur) {
      ba += d.a_b;
      bb += d.b_b;
      bc += d.c_b;
    }
    bcur = b;
    const int i0 = t0 >= 0 ? plain_read("index", index, t0 + b) : 0;
    const int i1 = t1 >= 0 ? plain_read("index", index, t1 + b) : 0;
    abase = a_src == 0 ? i0 : a_src == 1 ? i1 : ba;
    bbase = b_src == 0 ? i0 : b_src == 1 ? i1 : bb;
    cbase = d.reduce_batch ? 0 : (c_src == 0 ? i0 : c_src == 1 ? i1 : bc);
  }
  /// Back to the chunk's first slot.
  void restart_chunk() {
    si = ci;
    sj = cj;
    ia = cia;
    ic = cic;
    jb = cjb;
    jc = cjc;
  }
  void next() {
    if (++sj == width) {
      sj = 0;
      jb = jc = 0;
      ++si;
      ia += d.a_i;
      ic += d.c_i;
    } else {
      jb += d.b_j;
      jc += d.c_j;
    }
    if (++s < w) return;
    s = 0;
    if (++q < nq) {  // the same chunk again, next reduction step
      pa += d.a_p;
      pb += d.b_p;
      restart_chunk();
      return;
    }
    q = 0;
    pa = pb = 0;
    if (++rb == rbn) {
      rb = 0;
      if (++chunk == chunks) {
        chunk = 0;
        ++ob;
        si = sj = 0;
        ia = ic = jb = jc = 0;
      }
      ci = si;  // the next chunk starts at the slot after this one's last
      cj = sj;
      cia = ia;
      cic = ic;
      cjb = jb;
      cjc = jc;
    } else {
      restart_chunk();
    }
    if (ob < (d.reduce_batch ? 1 : d.batch)) load_bases();
  }
};

}  // namespace detail

namespace detail {
/// The row pairs of a column-form call with column_rows_paired (kernel_spec.h): rows
/// ceil(rows / 2), A and C row strides doubled, so that slot row si is output rows 2·si
/// (lane window 0) and 2·si + 1 (window 1, reached by the original a_i and c_i).
/// Requires C's rows not to overlap (c_i >= cols): the two windows write rows 2·si and
/// 2·si + 1 in one cycle, one per port.
inline ContractDesc row_pairs(const ContractDesc& d) {
#if !defined(__SYNTHESIS__)
  assert(d.c_i >= d.cols && "row_pairs: C's rows overlap (c_i < cols): the two windows would write one word");
#endif
  ContractDesc p = d;
  p.rows = (d.rows + 1) / 2;
  p.a_i = 2 * d.a_i;
  p.c_i = 2 * d.c_i;
  return p;
}

/// Setup of a column-form call: whether its rows run in pairs, the descriptor the slot
/// cursor walks (row_pairs, or the call's), tiles of LANES columns, slots, chunk count and
/// width, the loop's trip count.
template <int LANES, int BANKS>
struct ColumnSetup {
  bool paired;
  ContractDesc walk;
  int tiles, slots, chunks, chunk_w, total;
  /// `trip`: the loop's trip formula (kTripContractColumn or kTripContractColumnAcc: the same
  /// count; each loop function computes its own, three 32-bit products, hw/arch_spec.h setup_dsp).
  ColumnSetup(const ContractDesc& d, ttsim_spec::TripKind trip)
      : paired(ttsim_spec::column_rows_paired(d.cols, LANES, BANKS)),
        walk(paired ? row_pairs(d) : d),
        tiles((d.cols + LANES - 1) / LANES),
        slots(paired ? walk.rows : d.rows * tiles),  // paired: one tile; rows·tiles: loop_trip's product
        chunks(static_cast<int>(ttsim_spec::acc_chunks(slots))),
        chunk_w(static_cast<int>(ttsim_spec::acc_chunk_width(slots))),
        total(ttsim_spec::loop_trip<int>(trip, -1, contract_variant(d), d.batch, d.rows, d.inner, d.cols, LANES,
                                         BANKS)) {}
};

/// One iteration of the column form: slot (si, tile sj) at reduction step (rb, q). ACC
/// (column_acc): C_old is read at the first step; otherwise the loop has no C read site.
/// LANES <= BANKS: one lane window, one A word.
template <int LANES, int BANKS, bool ACC>
inline void column_iteration(std::false_type, const Banked<const float, BANKS>& A,
                             const Banked<const float, BANKS>& B, const Banked<float, BANKS>& C,
                             const ContractDesc& d, bool, const SlotCursor& cur, float (&acc)[kAccSlots][LANES]) {
#pragma HLS INLINE
  const int t = cur.sj;
  const bool first = cur.first(), last = cur.last();
  const int nl = tile_lanes<LANES>(t * LANES, d.cols);
  const float a = d.alpha * bank_read("A", A, cur.abase + cur.ia + cur.pa);
  const int brow = cur.bbase + cur.pb + t * LANES;  // LANES: a compile-time constant
  const int crow = cur.cbase + cur.ic + t * LANES;
  float bv[LANES], cv[LANES], out[LANES];
#pragma HLS ARRAY_PARTITION variable = bv complete
#pragma HLS ARRAY_PARTITION variable = cv complete
#pragma HLS ARRAY_PARTITION variable = out complete
  lane_read<LANES>("B", B, brow, nl, bv);
  if (ACC) {
    lane_read<LANES>("C", C, crow, first ? nl : 0, cv);
  } else {
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      cv[l] = 0.0f;
    }
  }
  for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
    const float prev = first ? cv[l] : acc_read("acc", acc, cur.s)[l];
    const float v = prev + a * bv[l];
    if (l < nl) acc_write("acc", acc, cur.s)[l] = v;
    out[l] = v;
  }
  lane_write<LANES>("C", C, crow, last ? nl : 0, out);
}

/// The same with dual-port lanes (BANKS < LANES <= 2·BANKS): two lane windows, lanes
/// 0 .. BANKS − 1 and BANKS .. LANES − 1, and an A word for each. `paired`
/// (column_rows_paired; the cursor walks row_pairs(d)): window 0 is output row 2·si and
/// window 1 row 2·si + 1 (none past the last row), both over B's row p; otherwise the two
/// windows are one tile of LANES columns of row si, and the second A read repeats the first.
/// Every C element still sums over p in increasing order: the result does not depend on
/// the pairing.
template <int LANES, int BANKS, bool ACC>
inline void column_iteration(std::true_type, const Banked<const float, BANKS>& A,
                             const Banked<const float, BANKS>& B, const Banked<float, BANKS>& C,
                             const ContractDesc& d, bool paired, const SlotCursor& cur,
                             float (&acc)[kAccSlots][LANES]) {
#pragma HLS INLINE
  const int t = cur.sj;
  const bool first = cur.first(), last = cur.last();
  const bool row1 = paired && 2 * cur.si + 1 < d.rows;
  const int nl = tile_lanes<LANES>(t * LANES, d.cols);
  const int n0 = paired ? d.cols : window_lanes(nl, 0, BANKS);
  const int n1 = paired ? (row1 ? d.cols : 0) : window_lanes(nl, 1, BANKS);
  const int arow = cur.abase + cur.ia + cur.pa;
  const float a0 = d.alpha * bank_read("A", A, arow);
  const float a1 = d.alpha * bank_read("A", A, row1 ? arow + d.a_i : arow);
  const int b0 = cur.bbase + cur.pb + t * LANES, c0 = cur.cbase + cur.ic + t * LANES;
  const int b1 = paired ? b0 : b0 + BANKS, c1 = paired ? c0 + d.c_i : c0 + BANKS;
  float bv[LANES], cv[LANES], out[LANES];
#pragma HLS ARRAY_PARTITION variable = bv complete
#pragma HLS ARRAY_PARTITION variable = cv complete
#pragma HLS ARRAY_PARTITION variable = out complete
  lane_read_windows<LANES>("B", B, b0, n0, b1, n1, bv);
  if (ACC) {
    lane_read_windows<LANES>("C", C, c0, first ? n0 : 0, c1, first ? n1 : 0, cv);
  } else {
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      cv[l] = 0.0f;
    }
  }
  for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
    const float prev = first ? cv[l] : acc_read("acc", acc, cur.s)[l];
    const float v = prev + (l < BANKS ? a0 : a1) * bv[l];
    if (l < BANKS ? l < n0 : l - BANKS < n1) acc_write("acc", acc, cur.s)[l] = v;
    out[l] = v;
  }
  lane_write_windows<LANES>("C", C, c0, last ? n0 : 0, c1, last ? n1 : 0, out);
}
}  // namespace detail

/// Column form (see file comment), a call that does not accumulate: C is only written.
/// Requires b_j == 1, c_j == 1 and !d.accumulate.
template <int LANES, int BANKS>
void contract_column_loop(const float A_mem[][BANKS], int a_off, const float B_mem[][BANKS], int b_off,
                          float C_mem[][BANKS], int c_off, const int index[], const ContractDesc& d) {
  const Banked<const float, BANKS> A(A_mem, a_off), B(B_mem, b_off);
  const Banked<float, BANKS> C(C_mem, c_off);
  const detail::ColumnSetup<LANES, BANKS> cs(d, ttsim_spec::kTripContractColumn);
  float acc[kAccSlots][LANES];
#pragma HLS ARRAY_PARTITION variable = acc dim = 2 complete
  TTSIM_LOOP_BEGIN("contract_column");
  detail::SlotCursor cur(cs.walk, index, d.inner, cs.chunks, cs.chunk_w, cs.tiles);
contract_column:
  for (int n = 0; n < cs.total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_CONTRACT_COLUMN
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_CONTRACT_COLUMN_MIN max = TTSIM_TRIPS_CONTRACT_COLUMN_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_MIN_SLOTS dependent = true
    TTSIM_LOOP_ITER("contract_column");
    if (cur.si < cs.walk.rows) {
      detail::column_iteration<LANES, BANKS, false>(std::integral_constant<bool, (LANES > BANKS)>(), A, B, C, d,
                                                    cs.paired, cur, acc);
    }
    cur.next();
  }
}

/// Column form of a call that accumulates (C += A·B: C_old read at the first reduction
/// step, the C recurrence of the file comment). Requires b_j == 1, c_j == 1 and
/// d.accumulate.
template <int LANES, int BANKS>
void contract_column_acc_loop(const float A_mem[][BANKS], int a_off, const float B_mem[][BANKS], int b_off,
                              float C_mem[][BANKS], int c_off, const int index[], const ContractDesc& d) {
  const Banked<const float, BANKS> A(A_mem, a_off), B(B_mem, b_off);
  const Banked<float, BANKS> C(C_mem, c_off);
  const detail::ColumnSetup<LANES, BANKS> cs(d, ttsim_spec::kTripContractColumnAcc);
  float acc[kAccSlots][LANES];
#pragma HLS ARRAY_PARTITION variable = acc dim = 2 complete
  TTSIM_LOOP_BEGIN("contract_column_acc");
  detail::SlotCursor cur(cs.walk, index, d.inner, cs.chunks, cs.chunk_w, cs.tiles);
contract_column_acc:
  for (int n = 0; n < cs.total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_CONTRACT_COLUMN_ACC
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_CONTRACT_COLUMN_ACC_MIN max = TTSIM_TRIPS_CONTRACT_COLUMN_ACC_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_MIN_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = C_mem type = inter direction = RAW distance = TTSIM_ACC_MIN_SLOTS dependent = true
    TTSIM_LOOP_ITER("contract_column_acc");
    if (cur.si < cs.walk.rows) {
      detail::column_iteration<LANES, BANKS, true>(std::integral_constant<bool, (LANES > BANKS)>(), A, B, C, d,
                                                    cs.paired, cur, acc);
    }
    cur.next();
  }
}

namespace detail {
/// The column pairs of a dot-form call with dot_cols_paired (kernel_spec.h): cols
/// ceil(cols / 2), B and C column strides doubled, so that slot column sj is outputs
/// (i, 2·sj) (lane window 0) and (i, 2·sj + 1) (window 1: B's row at + b_j, C at + 1).
/// Requires c_j == 1 (the variant's kContractUnitCj).
inline ContractDesc col_pairs(const ContractDesc& d) {
#if !defined(__SYNTHESIS__)
  assert(d.c_j == 1 && "col_pairs: the two outputs of a pair must be adjacent in C");
#endif
  ContractDesc p = d;
  p.cols = (d.cols + 1) / 2;
  p.b_j = 2 * d.b_j;
  p.c_j = 2 * d.c_j;
  return p;
}

/// One iteration of the dot form without pairs (LANES != 2·BANKS, or BANKS < 2): one output
/// (slot (si, sj)) per iteration, its LANES products summed by one adder tree (lane_read
/// takes two windows when LANES > BANKS).
template <int LANES, int BANKS>
inline void dot_iteration(std::false_type, const Banked<const float, BANKS>& A, const Banked<const float, BANKS>& B,
                          const Banked<float, BANKS>& C, const ContractDesc& d, bool, const SlotCursor& cur,
                          float (&acc)[kAccSlots][2]) {
#pragma HLS INLINE
  const int q = cur.q;
  const bool first = cur.first(), last = cur.last();
  const int nl = tile_lanes<LANES>(q * LANES, d.inner);
  const int arow = cur.abase + cur.ia + q * LANES;
  const int bcol = cur.bbase + cur.jb + q * LANES;
  const int cidx = cur.cbase + cur.ic + cur.jc;
  float av[LANES], bv[LANES], prod[LANES];
#pragma HLS ARRAY_PARTITION variable = av complete
#pragma HLS ARRAY_PARTITION variable = bv complete
#pragma HLS ARRAY_PARTITION variable = prod complete
  lane_read<LANES>("A", A, arow, nl, av);
  lane_read<LANES>("B", B, bcol, nl, bv);
  for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
    prod[l] = l < nl ? av[l] * bv[l] : 0.0f;
  }
  const float part = d.alpha * LaneTree<LANES>::sum(prod);
  const float prev = first ? (d.accumulate ? bank_read("C", C, cidx) : 0.0f) : acc_read("acc", acc, cur.s)[0];
  const float v = prev + part;
  acc_write("acc", acc, cur.s)[0] = v;
  if (last) bank_write("C", C, cidx, v);
}

/// The same with dual-port lanes of exactly two windows (LANES = 2·BANKS, BANKS >= 2:
/// pair_windows), lanes 0 .. BANKS − 1 and BANKS .. LANES − 1, each with its adder tree and
/// alpha multiplier. `paired` (dot_cols_paired; the cursor walks col_pairs(d)): window 0
/// computes output (i, 2·sj) and window 1 (i, 2·sj + 1) (none past the last column), both
/// over A's row i; otherwise the two windows are one tile of LANES reduction steps, summed:
/// the two trees and one add are LaneTree<LANES> exactly, so the result and the depth are
/// those of the unpaired loop.
template <int LANES, int BANKS>
inline void dot_iteration(std::true_type, const Banked<const float, BANKS>& A, const Banked<const float, BANKS>& B,
                          const Banked<float, BANKS>& C, const ContractDesc& d, bool paired, const SlotCursor& cur,
                          float (&acc)[kAccSlots][2]) {
#pragma HLS INLINE
  const int q = cur.q;
  const bool first = cur.first(), last = cur.last();
  const bool col1 = paired && 2 * cur.sj + 1 < d.cols;
  const int nl = tile_lanes<LANES>(q * LANES, d.inner);
  const int n0 = paired ? d.inner : window_lanes(nl, 0, BANKS);
  const int n1 = paired ? (col1 ? d.inner : 0) : window_lanes(nl, 1, BANKS);
  const int arow = cur.abase + cur.ia + q * LANES;
  const int bcol = cur.bbase + cur.jb + q * LANES;
  const int cidx = cur.cbase + cur.ic + cur.jc;
  float av[LANES], bv[LANES], prod[LANES];
#pragma HLS ARRAY_PARTITION variable = av complete
#pragma HLS ARRAY_PARTITION variable = bv complete
#pragma HLS ARRAY_PARTITION variable = prod complete
  lane_read_windows<LANES>("A", A, arow, n0, paired ? arow : arow + BANKS, n1, av);
  lane_read_windows<LANES>("B", B, bcol, n0, paired ? bcol + d.b_j : bcol + BANKS, n1, bv);
  for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
    prod[l] = (l < BANKS ? l < n0 : l - BANKS < n1) ? av[l] * bv[l] : 0.0f;
  }
  const float h0 = LaneTree<BANKS>::sum(prod), h1 = LaneTree<LANES - BANKS>::sum(prod + BANKS);
  const float p0 = d.alpha * (paired ? h0 : h0 + h1), p1 = d.alpha * h1;
  const int nc = col1 ? 2 : 1;  // outputs of this slot
  // The slot's outputs, adjacent in C, as one 2-word lane window (BANKS >= 2: one port of
  // each of the two banks it touches).
  float cold[2], out[2];
#pragma HLS ARRAY_PARTITION variable = cold complete
#pragma HLS ARRAY_PARTITION variable = out complete
  lane_read<2>("C", C, cidx, first && d.accumulate ? nc : 0, cold);
  for (int k = 0; k < 2; ++k) {
#pragma HLS UNROLL
    const float prev = first ? (d.accumulate ? cold[k] : 0.0f) : (k < nc ? acc_read("acc", acc, cur.s)[k] : 0.0f);
    out[k] = prev + (k == 0 ? p0 : p1);
    if (k < nc) acc_write("acc", acc, cur.s)[k] = out[k];
  }
  lane_write<2>("C", C, cidx, last ? nc : 0, out);
}
}  // namespace detail

/// Dot form (see file comment). Requires a_p == 1 and b_p == 1.
template <int LANES, int BANKS>
void contract_dot_loop(const float A_mem[][BANKS], int a_off, const float B_mem[][BANKS], int b_off,
                       float C_mem[][BANKS], int c_off, const int index[], const ContractDesc& d) {
  const Banked<const float, BANKS> A(A_mem, a_off), B(B_mem, b_off);
  const Banked<float, BANKS> C(C_mem, c_off);
  const int variant = contract_variant(d);
  const bool paired = ttsim_spec::dot_cols_paired(variant, d.inner, LANES, BANKS);
  const ContractDesc walk = paired ? detail::col_pairs(d) : d;
  const int ptiles = (d.inner + LANES - 1) / LANES;
  const int slots = d.rows * (paired ? (d.cols + 1) / 2 : d.cols);  // loop_trip's product
  const int chunks = static_cast<int>(ttsim_spec::acc_chunks(slots));
  const int chunk_w = static_cast<int>(ttsim_spec::acc_chunk_width(slots));
  const int total = ttsim_spec::loop_trip<int>(ttsim_spec::kTripContractDot, -1, variant, d.batch, d.rows, d.inner,
                                               d.cols, LANES, BANKS);
  float acc[kAccSlots][2];
#pragma HLS ARRAY_PARTITION variable = acc dim = 2 complete
  TTSIM_LOOP_BEGIN("contract_dot");
  detail::SlotCursor cur(walk, index, ptiles, chunks, chunk_w, walk.cols);
contract_dot:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_CONTRACT_DOT
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_CONTRACT_DOT_MIN max = TTSIM_TRIPS_CONTRACT_DOT_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_MIN_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = C_mem type = inter direction = RAW distance = TTSIM_ACC_MIN_SLOTS dependent = true
    TTSIM_LOOP_ITER("contract_dot");
    if (cur.si < walk.rows) {
      detail::dot_iteration<LANES, BANKS>(
          std::integral_constant<bool, (ttsim_spec::pair_windows(LANES, BANKS) == 2)>(), A, B, C, d, paired, cur, acc);
    }
    cur.next();
  }
}

/// Scalar form (see file comment): any strides.
template <int BANKS>
void contract_scalar_loop(const float A_mem[][BANKS], int a_off, const float B_mem[][BANKS], int b_off,
                          float C_mem[][BANKS], int c_off, const int index[], const ContractDesc& d) {
  const Banked<const float, BANKS> A(A_mem, a_off), B(B_mem, b_off);
  const Banked<float, BANKS> C(C_mem, c_off);
  const int slots = d.rows * d.cols;
  const int chunks = static_cast<int>(ttsim_spec::acc_chunks(slots));
  const int chunk_w = static_cast<int>(ttsim_spec::acc_chunk_width(slots));
  const int total = ttsim_spec::loop_trip<int>(ttsim_spec::kTripContractScalar, -1, contract_variant(d),
                                           d.batch, d.rows, d.inner, d.cols, 1);
  float acc[kAccSlots];
  TTSIM_LOOP_BEGIN("contract_scalar");
  detail::SlotCursor cur(d, index, d.inner, chunks, chunk_w, d.cols);
contract_scalar:
  for (int n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = TTSIM_II_CONTRACT_SCALAR
#pragma HLS LOOP_TRIPCOUNT min = TTSIM_TRIPS_CONTRACT_SCALAR_MIN max = TTSIM_TRIPS_CONTRACT_SCALAR_MAX
#pragma HLS DEPENDENCE variable = acc type = inter direction = RAW distance = TTSIM_ACC_MIN_SLOTS dependent = true
#pragma HLS DEPENDENCE variable = C_mem type = inter direction = RAW distance = TTSIM_ACC_MIN_SLOTS dependent = true
    TTSIM_LOOP_ITER("contract_scalar");
    if (cur.si < d.rows) {
      const bool first = cur.first(), last = cur.last();
      const float a = d.alpha * bank_read("A", A, cur.abase + cur.ia + cur.pa);
      const float bv = bank_read("B", B, cur.bbase + cur.pb + cur.jb);
      const int cidx = cur.cbase + cur.ic + cur.jc;
      const float prev = first ? (d.accumulate ? bank_read("C", C, cidx) : 0.0f) : acc_read("acc", acc, cur.s);
      const float v = prev + a * bv;
      acc_write("acc", acc, cur.s) = v;
      if (last) bank_write("C", C, cidx, v);
    }
    cur.next();
  }
}

namespace detail {
/// contract_column_acc_loop where the build has it (BUILT), nothing where it omits it
/// (ttsim_spec::kOmitContractColumnAcc): a specialization, so that the omitted loop is not
/// even instantiated and synthesis builds no module for it. A call reaching the omitted
/// loop is a glue error: C simulation stops with the reason.
template <int LANES, int BANKS, bool BUILT>
struct ColumnAccLoop {
  static void run(const float A_mem[][BANKS], int a_off, const float B_mem[][BANKS], int b_off, float C_mem[][BANKS],
                  int c_off, const int index[], const ContractDesc& d) {
    contract_column_acc_loop<LANES, BANKS>(A_mem, a_off, B_mem, b_off, C_mem, c_off, index, d);
  }
};
template <int LANES, int BANKS>
struct ColumnAccLoop<LANES, BANKS, false> {
  static void run(const float[][BANKS], int, const float[][BANKS], int, float[][BANKS], int, const int[],
                  const ContractDesc&) {
#ifndef __SYNTHESIS__
    std::fprintf(stderr, "contract_kernel: an accumulating column call reached contract_column_acc, which this "
                         "build omits (design_config.h kOmittedLoops)\n");
    std::abort();
#endif
  }
};
}  // namespace detail

/// One contraction with LANES lanes on arrays of BANKS banks (see file comment): runs the
/// loop of its form. A, B, C: banked arrays (banked.h) with word offsets a_off, b_off,
/// c_off >= 0; index: the int array the descriptor's index tables live in (read only when
/// a_index, b_index or c_index >= 0). Requires LANES <= 2·BANKS (dual-port lanes above
/// BANKS: banked.h). OMITTED: the loops the build leaves out (ttsim_spec::omitted_loops;
/// the emitted module passes design_config.h kOmittedLoops): with kOmitContractColumnAcc
/// the column_acc loop is not instantiated (a call of that form aborts C simulation).
template <int LANES, int BANKS, unsigned OMITTED = 0u>
void contract_kernel(const float A_mem[][BANKS], int a_off, const float B_mem[][BANKS], int b_off,
                     float C_mem[][BANKS], int c_off, const int index[], const ContractDesc& d) {
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
  if (g_access_probing) probe_call_shape(contract_variant(d), d.batch, d.rows, d.inner, d.cols);
#endif
  switch (contract_variant(d) & ttsim_spec::kContractFormMask) {
    case ttsim_spec::kContractColumn:
      contract_column_loop<LANES, BANKS>(A_mem, a_off, B_mem, b_off, C_mem, c_off, index, d);
      break;
    case ttsim_spec::kContractColumnAcc:
      detail::ColumnAccLoop<LANES, BANKS, (OMITTED & ttsim_spec::kOmitContractColumnAcc) == 0u>::run(
          A_mem, a_off, B_mem, b_off, C_mem, c_off, index, d);
      break;
    case ttsim_spec::kContractDot:
      contract_dot_loop<LANES, BANKS>(A_mem, a_off, B_mem, b_off, C_mem, c_off, index, d);
      break;
    default: contract_scalar_loop<BANKS>(A_mem, a_off, B_mem, b_off, C_mem, c_off, index, d); break;
  }
}

/// contract_kernel on Banked views (host code and tests); `index` may be null when the
/// descriptor has no index table.
template <int LANES, int BANKS, unsigned OMITTED = 0u>
void contract_kernel(Banked<const float, BANKS> A, Banked<const float, BANKS> B, Banked<float, BANKS> C,
                     const ContractDesc& d, const int* index = nullptr) {
  contract_kernel<LANES, BANKS, OMITTED>(A.rows, A.off, B.rows, B.off, C.rows, C.off, index, d);
}

}  // namespace ttsim_hls
