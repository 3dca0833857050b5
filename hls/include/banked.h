#pragma once
// banked.h — the on-chip arrays as Vitis HLS sees them, and the accesses the kernels
// make to them.
//
// Every on-chip arena of the top is a two-dimensional array `T mem[rows][BANKS]` whose
// second dimension is completely partitioned (ARRAY_PARTITION dim = 2 complete): BANKS
// physical memories (banks), word w of the arena in bank w % BANKS at row w / BANKS.
// A kernel argument is a Banked view: the arena and a word offset (runtime).
//
// Three accesses to banked arrays, each with the port use Vitis schedules for it
// (shared/reference/hls-scheduling.md, "Arrays, banks and ports"):
//  bank_read / bank_write   one word at a runtime index: its bank is known only at run
//                           time, so it is a multiplexer over every bank and holds one
//                           port of each bank in its cycle.
//  lane_read / lane_write   `n` <= LANES <= BANKS consecutive words from a runtime start w:
//                           the window covers rows w / BANKS and w / BANKS + 1, and bank k
//                           serves exactly one lane, (k − w) mod BANKS. The code addresses
//                           bank k with the unrolled constant k (row r0 or r0 + 1 by a
//                           comparison), so each bank has its index at synthesis and one
//                           port per access; the lanes are moved to and from the banks by
//                           a rotation over registers (LUTs, no memory port: "Lane
//                           networks" below). Dual-port lanes: BANKS < LANES <= 2·BANKS
//                           (the contraction engine on fewer banks than lanes) run as two
//                           windows of BANKS lanes, at w and w + BANKS — two accesses to
//                           each bank, one per port (kernel_spec.h lane_site_accesses);
//                           lane_read_windows / lane_write_windows place the two windows
//                           independently (the column form's row pairs, the dot form's
//                           column pairs).
// and plain_read, one word of an unpartitioned array (the top's int array): one port.
// So every access site of a kernel — scalar or lane — uses one port of every bank of the
// array it touches (kernel_spec.h: one access per bank per site), and a pipelined loop
// whose sites on one arena are s has ResMII ceil(s / 2) on that arena's true-dual-port banks.
//
// Under C simulation the accesses are recorded by the access probe (access_probe.h):
// a lane access as one access to each bank it addresses, a scalar access as one access to
// every bank, a plain read as one access to its single bank; only while an
// AccessProbeScope is alive.

#include <cassert>
#include <cstdint>
#include <type_traits>

#include "hls/include/access_probe.h"
#include "hls/include/kernel_spec.h"

// Loop labels name the loops in HLS reports; g++ sees them as unused.
#if defined(__GNUC__) && !defined(__SYNTHESIS__)
#pragma GCC diagnostic ignored "-Wunused-label"
#endif

namespace ttsim_hls {

/// A word address in a banked on-chip array `T rows[][BANKS]` (see the file comment):
/// word w of the view is word off + w of the array. T is float or const float.
template <typename T, int BANKS>
struct Banked {
  static constexpr int kBanks = BANKS;
  T (*rows)[BANKS] = nullptr;
  int off = 0;  ///< words from the array's first word (>= 0)

  Banked() = default;
  Banked(T (*r)[BANKS], int o) : rows(r), off(o) {}
  /// No array (an absent optional operand, e.g. a layer without bias).
  Banked(decltype(nullptr)) {}
  /// float → const float view of the same words.
  template <typename U>
  Banked(const Banked<U, BANKS>& o) : rows(o.rows), off(o.off) {}
  /// True unless the view is empty (no array: an absent optional operand).
  explicit operator bool() const { return rows != nullptr; }
  /// The view `d` words further on.
  Banked operator+(int d) const { return Banked(rows, off + d); }
  Banked& operator+=(int d) {
    off += d;
    return *this;
  }
};

/// A banked view of `words` >= 0 words starting at `p` (C simulation and tests: host
/// storage seen as rows of BANKS words; rows past `words` are never touched by the
/// accesses below when their indices stay inside the view).
template <int BANKS, typename T>
Banked<T, BANKS> bank_view(T* p) {
  return Banked<T, BANKS>(reinterpret_cast<T(*)[BANKS]>(p), 0);
}

#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
#define TTSIM_PROBING (g_access_probing)
#else
#define TTSIM_PROBING false
#endif

namespace detail {
/// C simulation: a word address below the array's first word is a caller's error.
#if !defined(__SYNTHESIS__)
#define TTSIM_CHECK_WORD(w) assert((w) >= 0 && "banked access before the array's first word")
#else
#define TTSIM_CHECK_WORD(w)
#endif
template <typename T, int B>
inline std::uintptr_t word_id(const Banked<T, B>& a, int row, int bank) {
  return reinterpret_cast<std::uintptr_t>(&a.rows[row][bank]) / sizeof(T);
}
}  // namespace detail

// ---- Lane networks ---------------------------------------------------------------
// A lane access moves LANES words between the lanes and the B banks through a rotation by
// s = (start word) mod B. Two structures compute it; each access takes the one with fewer
// LUT6 per bit (chosen at compile time from LANES and B; the LUT estimate of the simulator,
// sim/schedule_activity, prices the same choice with these functions):
//  direct  every output selects its input by one n:1 multiplexer (lane read: LANES × B:1;
//          lane write: B × LANES:1).
//  barrel  ceil(log2 B) stages of B 2:1 multiplexers (stage k rotates by 2^k when bit k of s
//          is set); two stages fit one LUT6 (a 4:1 multiplexer), so B · ceil(stages / 2)
//          LUT6 per bit.

/// LUT6 per bit of an n:1 multiplexer built as a tree of 4:1 multiplexers: ceil((n − 1) / 3).
constexpr int mux_luts(int n) { return n <= 1 ? 0 : (n - 1 + 2) / 3; }
/// ceil(log2 n) for n >= 1.
constexpr int ceil_log2(int n) { return n <= 1 ? 0 : 1 + ceil_log2((n + 1) / 2); }
/// LUT6 per bit of a barrel rotator over B words: B · ceil(ceil(log2 B) / 2).
constexpr int barrel_luts(int B) { return B * ((ceil_log2(B) + 1) / 2); }
/// True when a lane read of LANES lanes on B banks rotates by the barrel rotator.
constexpr bool lane_read_barrel(int LANES, int B) { return barrel_luts(B) < LANES * mux_luts(B); }
/// True when a lane write of LANES lanes on B banks rotates by the barrel rotator.
constexpr bool lane_write_barrel(int LANES, int B) { return barrel_luts(B) < B * mux_luts(LANES); }
/// LUT6 per bit of the rotation network of one lane read site (the cheaper structure).
constexpr int lane_read_network_luts(int LANES, int B) {
  return lane_read_barrel(LANES, B) ? barrel_luts(B) : LANES * mux_luts(B);
}
/// LUT6 per bit of the rotation network of one lane write site (the cheaper structure).
constexpr int lane_write_network_luts(int LANES, int B) {
  return lane_write_barrel(LANES, B) ? barrel_luts(B) : B * mux_luts(LANES);
}
/// True when a lane access of LANES lanes on B banks can be aligned (LANES divides B):
/// every start a multiple of LANES puts lane l in banks l, LANES + l, 2·LANES + l, … only
/// (LANES = B: lane l in bank l, no multiplexer).
constexpr bool lane_alignable(int LANES, int B) { return LANES >= 1 && LANES <= B && B % LANES == 0; }
/// LUT6 per bit of one aligned lane read site (lane_read<LANES, true>): each lane selects
/// its word among the B / LANES banks of its residue class, LANES × (B / LANES):1.
constexpr int aligned_lane_read_network_luts(int LANES, int B) { return LANES * mux_luts(B / LANES); }
/// LUT6 per bit of one aligned lane write site (lane_write<LANES, true>): bank k takes lane
/// k mod LANES, a wire; only its write enable depends on the start (no data multiplexer).
constexpr int aligned_lane_write_network_luts(int, int) { return 0; }
/// LUT6 per bit of the read multiplexer of one scalar read site (bank_read): B:1.
constexpr int scalar_read_network_luts(int B) { return mux_luts(B); }

// ---- Kernel-local memories ---------------------------------------------------------
/// LUT6 of a 64-word, 1-bit distributed RAM with one read/write and one read port
/// (RAM64X1D, UG574 "Distributed RAM"): the LUTRAM cell the estimate prices a simple
/// dual-port LUTRAM memory with. Vivado may pack an SDP memory denser (RAM64M8: 7 bits in 8
/// LUT6); the estimate keeps the 2-LUT cell, the upper figure.
constexpr int kLutramLutsPer64x1 = 2;
/// LUT6 of one simple dual-port LUTRAM memory of `words` 32-bit words: per bit
/// kLutramLutsPer64x1 per 64 words, a deeper memory's 64-word parts joined by a
/// ceil(words / 64):1 read select.
constexpr int lutram_luts(int words) {
  return 32 * (kLutramLutsPer64x1 * ((words + 63) / 64) + mux_luts((words + 63) / 64));
}
/// The same memory packed as densely as UltraScale+ SLICEM LUTRAM allows (UG574): up to 32
/// words in RAM32M16 (32 × 14 bits simple dual port in 8 LUT6), deeper in RAM64M8 (64 × 7
/// bits in 8 LUT6) per 64 words with the same ceil(words / 64):1 read select — the low end
/// of the LUTRAM figure (lutram_luts is the high one).
constexpr int lutram_luts_dense(int words) {
  return words <= 32 ? 8 * ((32 + 13) / 14)
                     : 8 * ((32 + 6) / 7) * ((words + 63) / 64) + 32 * mux_luts((words + 63) / 64);
}
/// LUT6 of one transpose tile memory's read address low part, (k − c) mod LANES: a
/// ceil(log2 LANES)-bit subtract, one LUT6 per bit, and a wrap select when LANES is not a
/// power of 2.
constexpr int transpose_address_luts(int LANES) { return ceil_log2(LANES) * ((LANES & (LANES - 1)) == 0 ? 1 : 2); }
/// LUT6 of one transpose_kernel instance's tile buffers at LANES lanes (hls/kernels/add.h
/// detail::tile_write_row): LANES LUTRAM memories of transpose_buffers · LANES words
/// (lutram_luts), each with its read address (transpose_address_luts); and two barrel
/// rotators of LANES 32-bit words (the row into the memories, the column out of them).
constexpr int transpose_tile_luts(int LANES) {
  return LANES * (lutram_luts(ttsim_spec::transpose_buffers(LANES) * LANES) + transpose_address_luts(LANES)) +
         2 * 32 * barrel_luts(LANES);
}

namespace detail {
/// w[i] = w[(i + s) mod B] for 0 <= s < B, by ceil(log2 B) stages of 2:1 multiplexers.
template <int B, typename V>
inline void barrel_rotate(V (&w)[B], int s) {
#pragma HLS INLINE
barrel_stage:
  for (int k = 0; k < ceil_log2(B); ++k) {
#pragma HLS UNROLL
    const int by = (1 << k) % B;
    const bool on = (s >> k) & 1;
    V t[B];
#pragma HLS ARRAY_PARTITION variable = t complete
  barrel_word:
    for (int i = 0; i < B; ++i) {
#pragma HLS UNROLL
      const int from = i + by < B ? i + by : i + by - B;
      t[i] = on ? w[from] : w[i];
    }
  barrel_copy:
    for (int i = 0; i < B; ++i) {
#pragma HLS UNROLL
      w[i] = t[i];
    }
  }
}
}  // namespace detail

#if !defined(__SYNTHESIS__)
/// C simulation only. True (the default): lane_read / lane_write copy the words directly,
/// same values as the bank network, about 20× faster for training in C simulation; while
/// an access probe is active they always take the network path (the code synthesis
/// builds). Tests of the networks themselves set it to false.
inline bool& csim_direct_lanes() {
  static bool direct = true;
  return direct;
}
#endif

/// Word `idx` of `a` (runtime bank: one port of every bank).
template <typename T, int B>
inline typename std::remove_const<T>::type bank_read(const char* name, const Banked<T, B>& a, int idx) {
#pragma HLS INLINE
  const int w = a.off + idx;
  TTSIM_CHECK_WORD(w);
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
  if (g_access_probing) probe_bank_access(name, detail::word_id(a, w / B, w % B), -1, B, false);
#else
  (void)name;
#endif
  return a.rows[w / B][w % B];
}

/// Writes word `idx` of `a` (runtime bank: one port of every bank).
template <typename T, int B>
inline void bank_write(const char* name, const Banked<T, B>& a, int idx, T v) {
#pragma HLS INLINE
  const int w = a.off + idx;
  TTSIM_CHECK_WORD(w);
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
  if (g_access_probing) probe_bank_access(name, detail::word_id(a, w / B, w % B), -1, B, true);
#else
  (void)name;
#endif
  a.rows[w / B][w % B] = v;
}

namespace detail {
/// C simulation: an aligned lane access (ALIGNED) whose start is not a multiple of its lanes
/// is a caller's error — the machine description claimed an alignment the layout lacks.
#if !defined(__SYNTHESIS__)
#define TTSIM_CHECK_ALIGNED(w, LANES) \
  assert((w) % (LANES) == 0 && "aligned lane access at a start that is not a multiple of its lanes")
#else
#define TTSIM_CHECK_ALIGNED(w, LANES)
#endif

/// Aligned lane read (lane_read<LANES, true>): the start w is a multiple of LANES and
/// LANES divides B, so the window is one row and lane l is bank q·LANES + l (q = (w mod B) /
/// LANES): each bank at its constant index, each lane a (B / LANES):1 select.
template <int LANES, typename T, int B, typename V>
inline void aligned_lane_read(const char* name, const Banked<T, B>& a, int w, int n, V (&v)[LANES]) {
#pragma HLS INLINE
  constexpr int Q = B / LANES;
  const int q = (w % B) / LANES, r0 = w / B;
  V raw[B];
#pragma HLS ARRAY_PARTITION variable = raw complete
aligned_bank_loop:
  for (int k = 0; k < B; ++k) {
#pragma HLS UNROLL
    raw[k] = V(0);
    if (k / LANES == q && k % LANES < n) {
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
      if (g_access_probing) probe_bank_access(name, word_id(a, r0, k), k, B, false);
#endif
      raw[k] = a.rows[r0][k];
    }
  }
  // Lane l selects its word among the Q banks of its residue class by the index q: a Q:1
  // multiplexer per lane (the structure aligned_lane_read_network_luts prices).
aligned_lanes:
  for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
    V cls[Q];
#pragma HLS ARRAY_PARTITION variable = cls complete
    for (int g = 0; g < Q; ++g) {
#pragma HLS UNROLL
      cls[g] = raw[g * LANES + l];
    }
    v[l] = l < n ? cls[q] : V(0);
  }
#if defined(__SYNTHESIS__) || defined(TTSIM_NO_LOOP_COUNT)
  (void)name;
#endif
}

/// Aligned lane write (lane_write<LANES, true>): bank q·LANES + l takes lane l directly.
template <int LANES, typename T, int B, typename V>
inline void aligned_lane_write(const char* name, const Banked<T, B>& a, int w, int n, const V (&v)[LANES]) {
#pragma HLS INLINE
  const int q = (w % B) / LANES, r0 = w / B;
aligned_bank_loop:
  for (int k = 0; k < B; ++k) {
#pragma HLS UNROLL
    if (k / LANES == q && k % LANES < n) {
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
      if (g_access_probing) probe_bank_access(name, word_id(a, r0, k), k, B, true);
#endif
      a.rows[r0][k] = v[k % LANES];
    }
  }
#if defined(__SYNTHESIS__) || defined(TTSIM_NO_LOOP_COUNT)
  (void)name;
#endif
}
}  // namespace detail

namespace detail {
/// Lanes of window h (words h·B .. h·B + B − 1 of a lane access of n words): min(B, n − h·B),
/// 0 when n <= h·B.
constexpr int window_lanes(int n, int h, int B) { return n - h * B <= 0 ? 0 : (n - h * B < B ? n - h * B : B); }
}  // namespace detail

namespace detail {
/// One window of lane_read (LANES <= B).
template <int LANES, bool ALIGNED, typename T, int B, typename V>
inline void lane_read_window(std::false_type, const char* name, const Banked<T, B>& a, int idx, int n,
                             V (&v)[LANES]) {
#pragma HLS INLINE
  const int w = a.off + idx;
  TTSIM_CHECK_WORD(w);
  if (ALIGNED) TTSIM_CHECK_ALIGNED(w, LANES);
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
  if (g_access_probing) probe_lane_start(w);
#endif
#if !defined(__SYNTHESIS__)
  if (csim_direct_lanes() && !TTSIM_PROBING) {
    for (int l = 0; l < LANES; ++l) v[l] = l < n ? V(a.rows[(w + l) / B][(w + l) % B]) : V(0);
    (void)name;
    return;
  }
#endif
  if (ALIGNED) {
    aligned_lane_read<LANES>(name, a, w, n, v);
    return;
  }
  const int s = w % B, r0 = w / B;
  V raw[B];
#pragma HLS ARRAY_PARTITION variable = raw complete
bank_loop:
  for (int k = 0; k < B; ++k) {
#pragma HLS UNROLL
    const int lane = k >= s ? k - s : k + B - s;  // the lane bank k serves
    const int row = k >= s ? r0 : r0 + 1;
    raw[k] = V(0);
    if (lane < n) {
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
      if (g_access_probing) probe_bank_access(name, word_id(a, row, k), k, B, false);
#endif
      raw[k] = a.rows[row][k];
    }
  }
  // Lane l takes bank (s + l) mod B: registers and multiplexers, no memory port.
  if (lane_read_barrel(LANES, B)) {
    barrel_rotate<B>(raw, s);
  rotated_lanes:
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      v[l] = l < n ? raw[l] : V(0);
    }
  } else {
  rotate_loop:
    for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
      const int k = s + l < B ? s + l : s + l - B;
      v[l] = l < n ? raw[k] : V(0);
    }
  }
#if defined(__SYNTHESIS__) || defined(TTSIM_NO_LOOP_COUNT)
  (void)name;
#endif
}

/// lane_read of dual-port lanes (B < LANES <= 2·B): one window of B lanes per port.
template <int LANES, bool ALIGNED, typename T, int B, typename V>
inline void lane_read_window(std::true_type, const char* name, const Banked<T, B>& a, int idx, int n,
                             V (&v)[LANES]) {
#pragma HLS INLINE
  constexpr int W = (LANES + B - 1) / B;
lane_windows:
  for (int h = 0; h < W; ++h) {
#pragma HLS UNROLL
    V part[B];
#pragma HLS ARRAY_PARTITION variable = part complete
    lane_read_window<B, false>(std::false_type(), name, a, idx + h * B, window_lanes(n, h, B), part);
  window_lanes_out:
    for (int l = 0; l < B; ++l) {
#pragma HLS UNROLL
      if (h * B + l < LANES) v[h * B + l] = part[l];
    }
  }
}
}  // namespace detail

/// v[l] = word idx + l of `a` for l < n; v[l] = 0 for n <= l < LANES. Requires
/// 0 <= n <= LANES <= 2·B. One port of each addressed bank (bank k at its constant index)
/// per window of B lanes: LANES > B (dual-port lanes) reads two windows, at idx and idx + B.
/// ALIGNED (only where lane_alignable(LANES, B)): the caller guarantees every start
/// a.off + idx is a multiple of LANES (checked in C simulation), and the access selects each
/// lane among its residue class of banks (aligned_lane_read_network_luts) instead of rotating
/// over all B (same banks, same ports, same values).
template <int LANES, bool ALIGNED = false, typename T, int B, typename V>
inline void lane_read(const char* name, const Banked<T, B>& a, int idx, int n, V (&v)[LANES]) {
#pragma HLS INLINE
  static_assert(LANES <= ttsim_spec::kBankPorts * B, "lane access wider than both ports of the array's banks");
  static_assert(!ALIGNED || lane_alignable(LANES, B), "aligned lane access needs LANES dividing B");
  detail::lane_read_window<LANES, ALIGNED>(std::integral_constant<bool, (LANES > B)>(), name, a, idx, n, v);
}

namespace detail {
/// One window of lane_write (LANES <= B).
template <int LANES, bool ALIGNED, typename T, int B, typename V>
inline void lane_write_window(std::false_type, const char* name, const Banked<T, B>& a, int idx, int n,
                              const V (&v)[LANES]) {
#pragma HLS INLINE
  const int w = a.off + idx;
  TTSIM_CHECK_WORD(w);
  if (ALIGNED) TTSIM_CHECK_ALIGNED(w, LANES);
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
  if (g_access_probing) probe_lane_start(w);
#endif
#if !defined(__SYNTHESIS__)
  if (csim_direct_lanes() && !TTSIM_PROBING) {
    for (int l = 0; l < n; ++l) a.rows[(w + l) / B][(w + l) % B] = v[l];
    (void)name;
    return;
  }
#endif
  if (ALIGNED) {
    aligned_lane_write<LANES>(name, a, w, n, v);
    return;
  }
  const int s = w % B, r0 = w / B;
  // Bank k takes lane (k − s) mod B: registers and multiplexers, no memory port.
  V wide[B];
#pragma HLS ARRAY_PARTITION variable = wide complete
  if (lane_write_barrel(LANES, B)) {
  widen_lanes:
    for (int k = 0; k < B; ++k) {
#pragma HLS UNROLL
      wide[k] = k < LANES ? v[k] : V(0);
    }
    barrel_rotate<B>(wide, s == 0 ? 0 : B - s);  // right by s = left by B − s
  } else {
  select_lanes:
    for (int k = 0; k < B; ++k) {
#pragma HLS UNROLL
      const int lane = k >= s ? k - s : k + B - s;
      wide[k] = v[lane < LANES ? lane : 0];
    }
  }
bank_loop:
  for (int k = 0; k < B; ++k) {
#pragma HLS UNROLL
    const int lane = k >= s ? k - s : k + B - s;
    const int row = k >= s ? r0 : r0 + 1;
    if (lane < n) {
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
      if (g_access_probing) probe_bank_access(name, word_id(a, row, k), k, B, true);
#endif
      a.rows[row][k] = wide[k];
    }
  }
#if defined(__SYNTHESIS__) || defined(TTSIM_NO_LOOP_COUNT)
  (void)name;
#endif
}

/// lane_write of dual-port lanes (B < LANES <= 2·B): one window of B lanes per port.
template <int LANES, bool ALIGNED, typename T, int B, typename V>
inline void lane_write_window(std::true_type, const char* name, const Banked<T, B>& a, int idx, int n,
                              const V (&v)[LANES]) {
#pragma HLS INLINE
  constexpr int W = (LANES + B - 1) / B;
lane_windows:
  for (int h = 0; h < W; ++h) {
#pragma HLS UNROLL
    V part[B];
#pragma HLS ARRAY_PARTITION variable = part complete
  window_lanes_in:
    for (int l = 0; l < B; ++l) {
#pragma HLS UNROLL
      part[l] = h * B + l < LANES ? v[h * B + l] : V(0);
    }
    lane_write_window<B, false>(std::false_type(), name, a, idx + h * B, window_lanes(n, h, B), part);
  }
}
}  // namespace detail

/// Word idx + l of `a` = v[l] for l < n. Requires 0 <= n <= LANES <= 2·B. One port of each
/// addressed bank (bank k at its constant index, written with lane (k − w) mod B) per
/// window of B lanes (LANES > B: two windows, at idx and idx + B, as lane_read).
/// ALIGNED: as lane_read's (bank q·LANES + l written with lane l, no data multiplexer).
template <int LANES, bool ALIGNED = false, typename T, int B, typename V>
inline void lane_write(const char* name, const Banked<T, B>& a, int idx, int n, const V (&v)[LANES]) {
#pragma HLS INLINE
  static_assert(LANES <= ttsim_spec::kBankPorts * B, "lane access wider than both ports of the array's banks");
  static_assert(!ALIGNED || lane_alignable(LANES, B), "aligned lane access needs LANES dividing B");
  detail::lane_write_window<LANES, ALIGNED>(std::integral_constant<bool, (LANES > B)>(), name, a, idx, n, v);
}

/// Dual-port lanes (B < LANES <= 2·B) with the two windows placed independently: lanes
/// 0 .. B − 1 read words w0 .. w0 + n0 − 1 (one port of each addressed bank), lanes
/// B .. LANES − 1 words w1 .. w1 + n1 − 1 (the other port); inactive lanes read 0. Requires
/// 0 <= n0 <= B, 0 <= n1 <= LANES − B. lane_read(idx, n) is this with w1 = idx + B; the
/// column form passes two output rows (kernel_spec.h column_rows_paired), or the same row
/// of B twice.
template <int LANES, typename T, int B, typename V>
inline void lane_read_windows(const char* name, const Banked<T, B>& a, int w0, int n0, int w1, int n1,
                              V (&v)[LANES]) {
#pragma HLS INLINE
  static_assert(LANES > B && LANES <= ttsim_spec::kBankPorts * B, "two lane windows need B < LANES <= 2·B");
#if !defined(__SYNTHESIS__)
  assert(n0 >= 0 && n0 <= B && n1 >= 0 && n1 <= LANES - B && "lane_read_windows: a window's lanes out of range");
#endif
  V part0[B], part1[B];
#pragma HLS ARRAY_PARTITION variable = part0 complete
#pragma HLS ARRAY_PARTITION variable = part1 complete
  detail::lane_read_window<B, false>(std::false_type(), name, a, w0, n0, part0);
  detail::lane_read_window<B, false>(std::false_type(), name, a, w1, n1, part1);
window_lanes_out:
  for (int l = 0; l < LANES; ++l) {
#pragma HLS UNROLL
    v[l] = l < B ? part0[l] : part1[l - B];
  }
}

/// The write of lane_read_windows: words w0 .. w0 + n0 − 1 = v[0 .. n0), words
/// w1 .. w1 + n1 − 1 = v[B .. B + n1). Same requirements and ports.
template <int LANES, typename T, int B, typename V>
inline void lane_write_windows(const char* name, const Banked<T, B>& a, int w0, int n0, int w1, int n1,
                               const V (&v)[LANES]) {
#pragma HLS INLINE
  static_assert(LANES > B && LANES <= ttsim_spec::kBankPorts * B, "two lane windows need B < LANES <= 2·B");
#if !defined(__SYNTHESIS__)
  assert(n0 >= 0 && n0 <= B && n1 >= 0 && n1 <= LANES - B && "lane_write_windows: a window's lanes out of range");
#endif
  V part0[B], part1[B];
#pragma HLS ARRAY_PARTITION variable = part0 complete
#pragma HLS ARRAY_PARTITION variable = part1 complete
window_lanes_in:
  for (int l = 0; l < B; ++l) {
#pragma HLS UNROLL
    part0[l] = v[l];
    part1[l] = B + l < LANES ? v[B + l] : V(0);
  }
  detail::lane_write_window<B, false>(std::false_type(), name, a, w0, n0, part0);
  detail::lane_write_window<B, false>(std::false_type(), name, a, w1, n1, part1);
}

/// Word `idx` of an unpartitioned on-chip array `a` (one memory: the top's int array of
/// TTM slice offsets and labels): one port of it. Probed as an access to bank 0 of 1.
template <typename T>
inline T plain_read(const char* name, const T* a, int idx) {
#pragma HLS INLINE
  TTSIM_CHECK_WORD(idx);
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
  if (g_access_probing) probe_bank_access(name, reinterpret_cast<std::uintptr_t>(a + idx) / sizeof(T), 0, 1, false);
#else
  (void)name;
#endif
  return a[idx];
}

/// Lanes of a tile of LANES columns starting at column `first` of `cols`: min(LANES,
/// cols − first), 0 when first >= cols.
template <int LANES>
inline int tile_lanes(int first, int cols) {
  const int n = cols - first;
  return n <= 0 ? 0 : (n < LANES ? n : LANES);
}

}  // namespace ttsim_hls
