#pragma once
// The contraction engine: batch × (rows × inner)·(inner × cols) multiply-accumulate
// over strided views of on-chip arrays. Every TT/TTM merge, X·L, Z·R, attention
// matmul, dense head product and every backward product of the training step is one
// call. Loop structure (hls/loop_nest.h, TaskOp::kContraction): one flattened,
// pipelined loop "contract" of trip batch · inner · rows · ceil(cols / LANES), order
// (b, p, i, column tile); LANES adjacent output columns per iteration (UNROLL). The
// reduction index p sits outside (i, tile), so the accumulation into one C element
// has a dependence distance of rows · ceil(cols / LANES) iterations.
// The arithmetic (every C element accumulated over p in increasing order, then over
// b when the batch is reduced) does not depend on LANES.

#include "hls/include/loop_counter.h"

// Loop labels name the loops in HLS reports; g++ sees them as unused.
#if defined(__GNUC__) && !defined(__SYNTHESIS__)
#pragma GCC diagnostic ignored "-Wunused-label"
#endif

namespace ttsim_hls {

/// Strided operands of one contraction. Element (b, i, p) of A is
/// A[abase(b) + i·a_i + p·a_p] with abase(b) = a_index ? a_index[b] : b·a_b; likewise
/// B (b, p, j) at B[bbase(b) + p·b_p + j·b_j] and C (b, i, j) at C[cbase(b) + i·c_i + j·c_j].
/// The index tables implement the TTM lookup (a core slice chosen per token) and the
/// gradient scatter into a slice.
///
/// Result: C(b,i,j) = alpha · (beta · C_old(b,i,j) + Σ_p A(b,i,p)·B(b,p,j)), beta = 1 when
/// `accumulate`, else 0. With `reduce_batch` the sum runs over b too and C has no batch
/// (cbase = c_index ? c_index[b] : 0 ignored: C is shared by every b; c_b is unused).
/// When several batches map to one C element through c_index, `accumulate` must be set.
struct ContractDesc {
  int batch = 1, rows = 1, inner = 1, cols = 1;  ///< extents, each >= 1
  int a_b = 0, a_i = 0, a_p = 0;                ///< A strides (words)
  int b_b = 0, b_p = 0, b_j = 0;                ///< B strides (words)
  int c_b = 0, c_i = 0, c_j = 0;                ///< C strides (words)
  const int* a_index = nullptr;                 ///< per-batch A base, or null
  const int* b_index = nullptr;                 ///< per-batch B base, or null
  const int* c_index = nullptr;                 ///< per-batch C base, or null
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

/// The contraction loop with LANES output columns per iteration (see file comment).
template <int LANES>
void contract_kernel(const float* A, const float* B, float* C, const ContractDesc& d) {
  const int tiles = (d.cols + LANES - 1) / LANES;
  const long total = static_cast<long>(d.batch) * d.inner * d.rows * tiles;
  int b = 0, p = 0, i = 0, t = 0;
  int abase = d.a_index ? d.a_index[0] : 0;
  int bbase = d.b_index ? d.b_index[0] : 0;
  int cbase = d.c_index ? d.c_index[0] : 0;
contract:
  for (long n = 0; n < total; ++n) {
#pragma HLS PIPELINE II = 1
#pragma HLS LOOP_TRIPCOUNT min = 1 max = 393216
    TTSIM_LOOP_COUNT("contract");
    const float a = A[abase + i * d.a_i + p * d.a_p];
    const bool first = p == 0 && (!d.reduce_batch || b == 0);
    const bool last = p == d.inner - 1 && (!d.reduce_batch || b == d.batch - 1);
    const int brow = bbase + p * d.b_p;
    const int crow = cbase + i * d.c_i;
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int j = t * LANES + l;
      if (j < d.cols) {
        float* c = &C[crow + j * d.c_j];
        const float prev = (first && !d.accumulate) ? 0.0f : *c;
        float v = prev + a * B[brow + j * d.b_j];
        if (last && d.alpha != 1.0f) v *= d.alpha;
        *c = v;
      }
    }
    // Advance (b, p, i, t) in row-major order; t fastest.
    if (++t == tiles) {
      t = 0;
      if (++i == d.rows) {
        i = 0;
        if (++p == d.inner) {
          p = 0;
          if (++b < d.batch) {
            abase = d.a_index ? d.a_index[b] : b * d.a_b;
            bbase = d.b_index ? d.b_index[b] : b * d.b_b;
            if (!d.reduce_batch) cbase = d.c_index ? d.c_index[b] : b * d.c_b;
          }
        }
      }
    }
  }
}

}  // namespace ttsim_hls
