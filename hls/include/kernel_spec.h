#pragma once
// kernel_spec.h — the kernel specification: for every loop of every HLS training kernel,
// its trip count, its operator chain, every loop-carried recurrence (operators on the
// cycle and iteration distance) and its accesses per iteration to each array. Plain
// constexpr data and functions (C++14, no library), included by the kernels in
// hls/kernels (which take their loop bounds and accumulator interleave from it) and read
// by the simulator (hw/loop_nest.h, hw/kernel_latency.h), which derives from it
//   II    = max(RecMII, ResMII)                       (Rau, MICRO 1994; see
//   RecMII = max over recurrences ceil(Σ latency(op on the cycle) / distance)
//   ResMII = max over arrays ceil(accesses per iteration to one bank / kBankPorts)
//   depth = Σ latency(op in chain)
// with the device's operator latencies at the clock (configs/devices/*.json: each figure
// read from real csynth bindings or marked as an assumption in the file's sources).
//
// How the kernels reach II = 1 (shared/reference/hls-scheduling.md):
//  - Floating-point sums are never carried iteration to iteration (Vitis does not
//    reassociate FP): kAccSlots independent accumulations are interleaved, slot s
//    updated every kAccSlots iterations (distance kAccSlots >= any fadd latency on the
//    supported clocks), and the lanes of one iteration are summed by an explicit adder
//    tree (ceil(log2 lanes) fadd levels).
//  - Row statistics (softmax, LayerNorm, loss) interleave kAccSlots rows: the loop runs
//    (row block, column tile, row in block); column sums (LayerNorm γ/β gradients, bias
//    gradients) interleave kAccSlots column tiles: (tile block, row, tile in block).
//  - Contractions are output-stationary: a chunk of output slots (each `lanes` adjacent
//    columns of one row — two rows with column_rows_paired —, or one element in the dot form —
//    two with dot_cols_paired) accumulates in registers while the
//    reduction index advances — acc_chunks(slots) chunks of acc_chunk_width(slots) slots
//    (kAccSlots, or one chunk of at least kAccMinSlots for a product of fewer slots, which
//    then does not idle a full chunk); C is read (when accumulating) at the first and written at the last
//    reduction step, so C carries a recurrence only through elements two chunks share (the
//    TTM gradient scatter), at distance kAccMinSlots or more.
//  - Every array is banked at compile time (hls/include/banked.h: rows of kArenaBanks
//    words, dim 2 completely partitioned). A lane access (kLaneAccess: `lanes`
//    consecutive words from a runtime start) addresses every bank with its unrolled
//    constant index and rotates the lanes through registers, so it holds one port of
//    each bank; a scalar access at a runtime index (kScalarAccess) is a multiplexer over
//    the banks and also holds one port of each. Per bank, every access site of the body
//    is one access — a lane site wider than the banks (the contraction's dual-port lanes)
//    lane_site_accesses(lanes, banks): ResMII = ceil(accesses on one memory / kBankPorts). C simulation
//    measures the banks each site touches (tests/hls/kernel_spec_measure_test).

namespace ttsim_spec {

/// Interleaved accumulator slots (iteration distance of every accumulation but the
/// contraction's, kAccMinSlots). 16 covers the longest accumulation cycle on the supported
/// clocks (C read + fadd + C write = 8-9 cycles at 260-500 MHz on UltraScale+: read 1-2,
/// fadd 6, write 1) with room for a slower operator library.
#define TTSIM_ACC_SLOTS 16
constexpr int kAccSlots = TTSIM_ACC_SLOTS;
/// The least chunk width of a contraction (acc_chunk_width), hence the iteration distance
/// of its accumulator and C recurrences (the DEPENDENCE pragmas of hls/kernels/contract.h):
/// 12 covers its longest accumulation cycle on the supported clocks, C read + fadd + C
/// write = 8 cycles at 260-500 MHz with the device files' latencies (read 1, fadd 6, write
/// 1) and 9 with a 2-cycle URAM read, with room for a slower operator library, so those
/// recurrences keep RecMII 1.
#define TTSIM_ACC_MIN_SLOTS 12
constexpr int kAccMinSlots = TTSIM_ACC_MIN_SLOTS;
/// Ports of one BRAM36 / URAM288 bank (true dual port: the top binds its arenas as
/// ram_t2p).
constexpr int kBankPorts = 2;
/// Accesses one lane site of `lanes` lanes makes to each bank of an array of `banks` banks:
/// ceil(lanes / banks) — 1 while lanes <= banks; a lane access wider than the banks
/// (lanes <= kBankPorts · banks, the contraction engine's dual-port lanes: banked.h) reads
/// or writes its words in ceil(lanes / banks) windows of `banks` words, one port of every
/// bank each.
constexpr int lane_site_accesses(int lanes, int banks) { return banks < 1 ? 1 : (lanes + banks - 1) / banks; }

/// Operators of chains and recurrences; names are the device file's float_ops keys plus
/// the memory accesses (latencies from the device's memory section).
enum Opr : int { kRead, kWrite, kFadd, kFmul, kFdiv, kFexp, kFlog, kFsqrt, kFcmp, kOprCount };
constexpr const char* kOprNames[kOprCount] = {"read", "write", "fadd",  "fmul", "fdiv",
                                              "fexp", "flog",  "fsqrt", "fcmp"};

/// How an operator appears on a path and how many instances it has:
///  kOnce   once on the path; one instance per lane in a loop with lane accesses;
///  kTree   once per adder-tree level (ceil(log2 lanes) levels on the path, 0 at 1 lane);
///          lanes − 1 instances;
///  kScalar once on the path; one instance per loop (after a lane tree, on a per-row or
///          per-slot value, or in a loop without lane accesses);
///  kWindow once on the path; one instance per lane window, lane_site_accesses(lanes,
///          banks) (the column form's A scalar: one per output row its lanes cover,
///          column_rows_paired);
///  kPairWindow once on the path; one instance per output the dot form computes in one
///          iteration: pair_windows(lanes, banks) (its alpha multiplier and slot adder,
///          dot_cols_paired).
enum Repeat : int { kOnce = 0, kTree = 1, kScalar = 2, kWindow = 3, kPairWindow = 4 };
struct ChainOp {
  Opr op;
  Repeat rep;
};

/// A loop-carried dependence cycle: the operators on it and its iteration distance.
struct Recurrence {
  const char* variable;  ///< accumulator or array that carries it
  ChainOp ops[6];
  int n_ops;
  int distance;  ///< iterations between a write and the next read of the same element
};

/// kLaneAccess: `lanes` consecutive words from a runtime start (lane_read / lane_write of
/// banked.h: one access to each bank, at its compile-time bank index); kScalarAccess: one
/// word at a runtime index (bank_read / bank_write: a multiplexer holding one port of
/// every bank); kWindowScalarAccess: one kScalarAccess per lane window of the loop (the
/// column form's A operand, one word per output row its lane windows cover). A scalar site
/// is one access per bank; a lane site and a window-scalar site of more lanes than the
/// array has banks, lane_site_accesses(lanes, banks).
enum AccessKind : int { kScalarAccess = 0, kLaneAccess = 1, kWindowScalarAccess = 2 };
/// Outputs per iteration of the dot form with `lanes` lanes on `banks` banks (< 1: as many as
/// lanes): 2 when the lanes are exactly two windows of `banks` (>= 2) lanes, each with its
/// own adder tree (dot_cols_paired), else 1 (one tree over every lane).
constexpr int pair_windows(int lanes, int banks) { return banks >= 2 && lanes == 2 * banks ? 2 : 1; }
/// Whether the products that accumulate into C in the column form run as a product into a
/// partial buffer followed by the add unit's in-place add (ttsim_add_accumulate) rather than
/// as one accumulating call (column_acc): a BTT layer's dX += dZ·L_dᵀ, a dense layer's dX +=
/// dY·W and the TTM's scatter of dS_k into its core gradient (token by token). column_acc
/// holds a C read site and a C write site: with lane_site_accesses(lanes, banks) > 1
/// (dual-port lanes) each takes both ports of every bank, so its ResMII is 2 and it runs
/// one iteration more per iteration of the plain column form; the add costs ceil(cols /
/// add lanes) per output row against inner · ceil(cols / lanes) saved. True exactly for
/// dual-port lanes: one step structure per lane mode, whatever the ranks and the add unit's
/// lanes, so the explorer reuses it across a sweep (a rule on the ranks and the add's lanes
/// made the graph's tasks differ from point to point). Where the add unit is narrow and the
/// reduction short the split can cost more than it saves (a rank-4 BTT layer at 128 lanes
/// with an 8-lane add: about 1.5k cycles); the simulator prices that, and the explorer
/// weighs it. The kernels' glue (hls/kernels/tt_linear.cc, ttm_embedding.cc) and the task
/// graph (models/training_graph.cc, flows.cc) apply this one rule.
constexpr bool accumulate_by_add(int lanes, int banks) {
  return banks >= 1 && lanes >= 1 && (lanes + banks - 1) / banks > 1;
}
/// Accesses per bank of one site of kind `k` in a loop of `lanes` lanes on arrays of `banks`
/// banks (banks < 1: as many as lanes).
constexpr int site_accesses(AccessKind k, int lanes, int banks) {
  return k == kScalarAccess ? 1 : lane_site_accesses(lanes, banks);
}
/// Accesses per iteration of a loop to one array (a kernel argument; "index" is the
/// contraction's per-batch base tables, read — at most two of them — when the batch changes). `reads`/`writes`
/// count the access sites of the body (a conditional access still holds its port in the
/// static schedule); per bank a kLaneAccess or kWindowScalarAccess site is
/// site_accesses(kind, lanes, banks) = lane_site_accesses(lanes, banks) accesses, a
/// kScalarAccess one.
struct ArrayAccess {
  const char* array;
  AccessKind kind;
  int reads;
  int writes;
};

/// Trip-count formula of a loop (see loop_trip()).
enum TripKind : int {
  kTripElementwise,      ///< R · tiles
  kTripRowSlots,         ///< ceil(R / S) · S · tiles
  kTripColumnSlots,      ///< ceil(tiles / S) · S · R
  kTripContractColumn,   ///< column form: nb · acc_slot_iterations(g) · nred, g = rows·tiles (ceil(rows/2) paired)
  kTripContractColumnAcc,  ///< column_acc: as kTripContractColumn (a loop function of its own, its own setup)
  kTripContractDot,      ///< dot form: nb · acc_slot_iterations(g) · ceil(inner / lanes) · rb, g = rows·cols (rows·ceil(cols/2) paired)
  kTripContractScalar,   ///< scalar form: nb · acc_slot_iterations(g) · nred, g = rows·cols
  kTripTranspose,        ///< transpose_trip(R, cols, lanes): a step per tile, as long as the rows it reads or the columns it writes (at least transpose_min_step), plus transpose_buffers − 1 drain steps
};

constexpr int kMaxChain = 16;
/// One pipelined loop of a kernel.
struct LoopSpec {
  const char* name;  ///< loop label in the kernel source and the csynth report
  TripKind trip;
  /// Variant (TaskShape::variant) the loop runs for; -1: every variant.
  int variant;
  ChainOp chain[kMaxChain];  ///< critical path of one iteration (sets the depth)
  int n_chain;
  Recurrence rec[3];
  int n_rec;
  ArrayAccess access[7];
  int n_access;
};

/// One kernel module (one TaskOp): its loops in program order.
struct KernelSpec {
  const char* module;   ///< RTL module / function name (hls/kernels/modules.h)
  const char* task_op;  ///< to_string(TaskOp) of models/task_graph.h
  LoopSpec loops[4];
  int n_loops;
};

// ---- Variants (TaskShape::variant) ------------------------------------------------
/// Contraction forms, chosen from the operand strides by contract_variant():
///   column: lanes run along j (B and C lane-contiguous: b_j = c_j = 1);
///   dot:    lanes run along p (A and B contiguous in p: a_p = b_p = 1), adder tree;
///   scalar: neither; one lane does the work (no bank-conflicting lane accesses).
///   column_acc: the column form of a call that accumulates into C (C_old read at the
///           first reduction step): a loop of its own, so that the column form's loop
///           holds no C read site — with lanes wider than the banks a C read and a C write
///           site would take four ports of each bank (lane_site_accesses).
/// Bit kContractReduceBatch: the batch is part of the reduction (C shared by every b).
/// Bit kContractUnitCj (dot form only): C's outputs are adjacent along j (c_j = 1), so two
/// of them are one 2-word lane window (dot_cols_paired).
constexpr int kContractColumn = 0;
constexpr int kContractDot = 1;
constexpr int kContractScalar = 2;
constexpr int kContractColumnAcc = 3;
constexpr int kContractFormMask = 3;
constexpr int kContractReduceBatch = 4;
constexpr int kContractUnitCj = 8;
/// Elementwise-unit (TaskOp add) variants: acc += x (distinct elements; every add of the
/// step accumulates in place into its output: biases, position, residuals); column sums
/// into acc; the transposed copy out = xᵀ (BTT's L_d → L_dᵀ and dL_dᵀ → dL_d, so that the
/// products on L run their lanes along M: models/flows.h plan_btt; the first-core copies).
/// (Variant 0, a plain out = a + b, is gone: no call of the step needs it.)
constexpr int kAddAccumulate = 1;
constexpr int kAddColumnSum = 2;
constexpr int kAddTranspose = 3;
/// Iterations a transpose tile buffer is kept past its last write before it is read: above
/// the transpose loop's depth (read + write latency, 2-3 cycles on the supported clocks) with
/// five stages of room for what the model does not price in it — the lanes' bank rotation, the
/// tile's row and column rotators and its LUTRAM read, which csynth may register
/// (hls/kernels/add.h detail::tile_write_row). The tile's DEPENDENCE pragma declares it as a
/// RAW dependence at this distance
/// (TTSIM_TRANSPOSE_LAG), and the specification as a recurrence through `tile`, so that the
/// kernel's probe checks it. The buffers that give it at `lanes` lanes with steps of
/// transpose_min_step or more iterations: (buffers − 2) · transpose_min_step + 1 >= kTransposeLag.
#define TTSIM_TRANSPOSE_LAG 8
constexpr int kTransposeLag = TTSIM_TRANSPOSE_LAG;
constexpr int transpose_buffers(int lanes) { return 2 + (kTransposeLag - 1 + lanes - 1) / lanes; }
/// Fewest iterations of one step of the transpose loop at `lanes` lanes (at most `lanes`):
/// the transpose_buffers − 2 steps between a buffer's last write and its first read then span
/// kTransposeLag − 1 iterations or more, so the read comes kTransposeLag or more after the
/// write, as with steps of `lanes` iterations.
constexpr int transpose_min_step(int lanes) {
  return (kTransposeLag - 1 + transpose_buffers(lanes) - 3) / (transpose_buffers(lanes) - 2);
}

/// The contraction form for operand strides (words) of the lane and reduction indices;
/// `accumulate` (C += A·B) turns the column form into column_acc; the dot form with c_j = 1
/// carries kContractUnitCj.
constexpr int contract_variant(int a_p, int b_p, int b_j, int c_j, bool reduce_batch, bool accumulate) {
  const int form = (b_j == 1 && c_j == 1) ? (accumulate ? kContractColumnAcc : kContractColumn)
                   : (a_p == 1 && b_p == 1) ? kContractDot
                                            : kContractScalar;
  return form | (reduce_batch ? kContractReduceBatch : 0) | (form == kContractDot && c_j == 1 ? kContractUnitCj : 0);
}
/// `variant` of a call that accumulates into C: the column form becomes column_acc (the
/// other forms read C_old at a site they always have).
constexpr int accumulating_variant(int variant) {
  return (variant & kContractFormMask) == kContractColumn ? kContractColumnAcc | (variant & kContractReduceBatch)
                                                          : variant;
}

constexpr long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }
/// Chunks of a contraction of `slots` output slots (>= 1): ceil(slots / kAccSlots).
constexpr long long acc_chunks(long long slots) { return ceil_div(slots, kAccSlots); }
/// Slots of each chunk of a contraction of `slots` output slots: kAccSlots (the accumulator
/// depth) when it has that many; otherwise one chunk of its slots, at least kAccMinSlots
/// (the recurrence distance). A compare and a select per call: no divider in the kernel.
constexpr long long acc_chunk_width(long long slots) {
  return slots >= kAccSlots ? kAccSlots : slots > kAccMinSlots ? slots : kAccMinSlots;
}
/// Iterations of one reduction step over `slots` output slots, acc_chunks · acc_chunk_width:
/// slots rounded up to a multiple of kAccSlots (a mask), or the one chunk's width — no
/// runtime multiply in the kernels' trip counts.
constexpr long long acc_slot_iterations(long long slots) {
  return slots >= kAccSlots ? ceil_div(slots, kAccSlots) * kAccSlots : acc_chunk_width(slots);
}

/// Whether the column form runs two output rows per iteration: with dual-port lanes
/// (lanes > banks: two lane windows, banked.h) and at most lanes − banks columns, the
/// first window carries row i and the second row i + 1 (each window one port of every bank,
/// at its own start), so a product of few columns (attention's head width, the TTM's
/// transposed rank side) keeps both windows busy. banks < 1: as many as lanes (never).
constexpr bool column_rows_paired(long long cols, int lanes, int banks) {
  return banks >= 1 && lanes > banks && cols <= lanes - banks;
}

/// Whether the dot form runs two output columns per iteration: with dual-port lanes of
/// exactly two windows (lanes = 2·banks, banks >= 2: pair_windows), a reduction of at most
/// `banks` steps and C adjacent along j
/// (`variant` carries kContractUnitCj), window 0 computes output (i, 2·j) and window 1
/// (i, 2·j + 1) — A's row read in both windows, B's rows j and j + 1 one per window, an
/// adder tree per window, the two outputs read and written as one 2-word lane window of C.
constexpr bool dot_cols_paired(int variant, long long inner, int lanes, int banks) {
  return (variant & kContractUnitCj) != 0 && pair_windows(lanes, banks) == 2 && inner <= banks;
}

/// Lane orientation of a product whose natural layout makes its `cols` side contiguous
/// while its `rows` side is not (the rank-1 ends of a tensor train: the TTM embedding's last
/// lookup, hls/kernels/ttm_embedding.cc, and BTT's last right merge, tt_linear.cc, with
/// their gradients): true when the kernels compute it transposed — Cᵀ = Bᵀ·Aᵀ through
/// transposed copies — so that the lanes run along the rows, the longer side.
constexpr bool lanes_along_rows(long long rows, long long cols) { return rows > cols; }
/// Adder-tree levels over `lanes` values.
constexpr int tree_levels(int lanes) {
  int levels = 0;
  for (int w = 1; w < lanes; w *= 2) ++levels;
  return levels;
}

/// Non-deduced template argument (C++14 has no std::type_identity).
template <typename T>
struct Same {
  using type = T;
};

/// Tiles w in [lo, hi) of a transpose (0 <= lo, nc >= 1 column tiles per row of tiles) that
/// are the last of their row of tiles (w mod nc = nc − 1): a count.
template <typename Int>
constexpr Int last_column_tiles(Int lo, Int hi, Int nc) {
  return hi > lo ? hi / nc - lo / nc : Int(0);
}
/// The larger of x and y (this header uses no library: see its top).
template <typename Int>
constexpr Int transpose_max(Int x, Int y) {
  return x > y ? x : y;
}
/// Iterations of one transposed copy of R rows × `cols` columns (R, cols >= 1) at `lanes`
/// lanes (hls/kernels/add.h transpose_kernel). The loop walks T = ceil(R / lanes) ·
/// ceil(cols / lanes) tiles of lanes × lanes (row tiles outer) in T + D steps, D =
/// transpose_buffers(lanes) − 1: step u reads the ρ rows of tile u (u < T) and writes the γ
/// columns of tile u − D (D <= u < T + D), and lasts max(ρ, γ, transpose_min_step) iterations —
/// lanes wherever a full tile is read or written, the tile's rows or columns where it is a
/// last, partial one. In closed form (no loop, no division by a runtime value in the kernel,
/// which counts its steps instead): with a = (ceil(R / lanes) − 1) · ceil(cols / lanes) steps
/// reading full row tiles, rl and cl the rows and columns of the last row and column tiles,
/// the steps reading the last row tile take max(rl, m) before the writes start, max(rl, cl, m)
/// while writing a last column tile and lanes while writing a full one; the D drain steps take
/// max(cl, m), lanes or (no tile left to write, T < D) m.
template <typename Int>
constexpr Int transpose_trip(typename Same<Int>::type R, typename Same<Int>::type cols, int lanes) {
  const Int L = lanes, nr = static_cast<Int>(ceil_div(R, lanes)), nc = static_cast<Int>(ceil_div(cols, lanes));
  const Int T = nr * nc, D = transpose_buffers(lanes) - 1, m = transpose_min_step(lanes);
  const Int rl = R - (nr - 1) * L, cl = cols - (nc - 1) * L, a = (nr - 1) * nc;
  const Int first_write = transpose_max<Int>(a, D);  // first step reading the last row tile and writing
  const Int before_writes = transpose_max<Int>(0, (T < D ? T : D) - a);  // last-row-tile reads before any write
  const Int reading_writes = transpose_max<Int>(0, T - first_write);
  const Int reading_last = last_column_tiles<Int>(first_write - D, T - D, nc);
  const Int drain_writes = T < D ? T : D, drain_last = last_column_tiles<Int>(transpose_max<Int>(0, T - D), T, nc);
  return a * L + before_writes * transpose_max<Int>(rl, m) + reading_last * transpose_max<Int>(transpose_max<Int>(rl, cl), m) +
         (reading_writes - reading_last) * L + transpose_max<Int>(0, D - T) * m + drain_last * transpose_max<Int>(cl, m) +
         (drain_writes - drain_last) * L;
}

/// Trip count of a loop of kind `k` for a task of extents (batch, rows, inner, cols),
/// variant `variant`, `lanes` lanes and arrays of `banks` banks (0: as many as lanes); 0 when
/// the loop does not run for this variant (`loop_variant` >= 0 and != the task's form).
/// R = batch·rows, tiles = ceil(cols/lanes) (column form with column_rows_paired: the
/// slots are the ceil(rows / 2) row pairs; dot form with dot_cols_paired: rows · ceil(cols / 2)),
/// S = kAccSlots (row and column slots); contraction: batch · acc_slot_iterations(g) · reduction
/// steps (the batch is an outer loop, or part of the reduction when it is reduced: either way
/// batch times). `Int`: the arithmetic's type — long long on the host (the simulator),
/// int in the kernels (hls/kernels: the per-call setup evaluates it in 32-bit multipliers,
/// trip_products(k) of them; the simulator refuses a task whose trip exceeds INT32_MAX,
/// machine/machine.h). Divisions and products by `lanes` and S are shifts and masks for the
/// power-of-two counts the shipped configs use.
template <typename Int = long long>
constexpr Int loop_trip(TripKind k, int loop_variant, int variant, typename Same<Int>::type batch,
                        typename Same<Int>::type rows, typename Same<Int>::type inner,
                        typename Same<Int>::type cols, int lanes, int banks = 0) {
  const int form = k >= kTripContractColumn && k <= kTripContractScalar ? (variant & kContractFormMask) : variant;
  if (loop_variant >= 0 && loop_variant != form) return 0;
  const Int S = kAccSlots;
  const Int R = batch * rows, tiles = static_cast<Int>(ceil_div(cols, lanes));
  switch (k) {
    case kTripElementwise: return R * tiles;
    case kTripRowSlots: return static_cast<Int>(ceil_div(R, S)) * S * tiles;
    case kTripColumnSlots: return static_cast<Int>(ceil_div(tiles, S)) * S * R;
    case kTripContractColumn:
    case kTripContractColumnAcc:
      return batch *
             static_cast<Int>(acc_slot_iterations(column_rows_paired(cols, lanes, banks) ? (rows + 1) / 2 : rows * tiles)) *
             inner;
    case kTripContractDot:
      return batch *
             static_cast<Int>(acc_slot_iterations(rows * (dot_cols_paired(variant, inner, lanes, banks) ? (cols + 1) / 2 : cols))) *
             static_cast<Int>(ceil_div(inner, lanes));
    case kTripContractScalar: return batch * static_cast<Int>(acc_slot_iterations(rows * cols)) * inner;
    case kTripTranspose: return transpose_trip<Int>(R, cols, lanes);
  }
  return 0;
}

/// Runtime integer products loop_trip evaluates for a loop of kind `k` in a kernel's per-call
/// setup (before the pipelined loop; none is in a loop body): the contraction forms three —
/// rows·tiles (column) or rows·cols (dot, scalar), that times the reduction steps, that times
/// the batch — and the row-wise kinds one, R·tiles (the row kernels pass batch 1, so
/// R = rows; products with kAccSlots or `lanes` are shifts). The contraction's chunk count
/// and width come from the same rows·tiles (rows·cols) product. Each is a 32-bit multiplier
/// in the DSP count (hw/arch_spec.h kernel_dsp): an upper bound, as Vitis may share one
/// multiplier between a module's sequential setups (csynth binds two products to one
/// mul_32s_32s_32 in shared/data/hls_reports/ahls_stencil3d).
constexpr int trip_products(TripKind k) {
  return k >= kTripContractColumn && k <= kTripContractScalar ? 3 : 1;
}

// ---- The specification ------------------------------------------------------------
#define TTSIM_ONCE(o) ChainOp{o, kOnce}
#define TTSIM_TREE(o) ChainOp{o, kTree}
#define TTSIM_SCALAR(o) ChainOp{o, kScalar}
#define TTSIM_WINDOW(o) ChainOp{o, kWindow}
#define TTSIM_PAIR(o) ChainOp{o, kPairWindow}

constexpr KernelSpec kKernelSpecs[] = {
    {"ttsim_contraction",
     "contraction",
     {{"contract_column",
       kTripContractColumn,
       kContractColumn,
       {TTSIM_ONCE(kRead), TTSIM_WINDOW(kFmul), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFadd), TTSIM_ONCE(kWrite)},
       5,
       {{"acc", {TTSIM_ONCE(kFadd)}, 1, kAccMinSlots}},
       1,
       {{"A", kWindowScalarAccess, 1, 0}, {"B", kLaneAccess, 1, 0}, {"C", kLaneAccess, 0, 1}, {"index", kScalarAccess, 2, 0}},
       4},
      {"contract_column_acc",
       kTripContractColumnAcc,
       kContractColumnAcc,
       {TTSIM_ONCE(kRead), TTSIM_WINDOW(kFmul), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFadd), TTSIM_ONCE(kWrite)},
       5,
       {{"acc", {TTSIM_ONCE(kFadd)}, 1, kAccMinSlots},
        {"C", {TTSIM_ONCE(kRead), TTSIM_ONCE(kFadd), TTSIM_ONCE(kWrite)}, 3, kAccMinSlots}},
       2,
       {{"A", kWindowScalarAccess, 1, 0}, {"B", kLaneAccess, 1, 0}, {"C", kLaneAccess, 1, 1}, {"index", kScalarAccess, 2, 0}},
       4},
      {"contract_dot",
       kTripContractDot,
       kContractDot,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFmul), TTSIM_TREE(kFadd), TTSIM_PAIR(kFmul), TTSIM_PAIR(kFadd),
        TTSIM_ONCE(kWrite)},
       6,
       {{"acc", {TTSIM_PAIR(kFadd)}, 1, kAccMinSlots},
        {"C", {TTSIM_ONCE(kRead), TTSIM_SCALAR(kFadd), TTSIM_ONCE(kWrite)}, 3, kAccMinSlots}},
       2,
       // C: one word, or with dual-port lanes a 2-word lane window (the pair: one access to
       // each of the two banks it touches, so one per bank like a scalar site).
       {{"A", kLaneAccess, 1, 0}, {"B", kLaneAccess, 1, 0}, {"C", kScalarAccess, 1, 1}, {"index", kScalarAccess, 2, 0}},
       4},
      {"contract_scalar",
       kTripContractScalar,
       kContractScalar,
       {TTSIM_ONCE(kRead), TTSIM_SCALAR(kFmul), TTSIM_SCALAR(kFmul), TTSIM_SCALAR(kFadd), TTSIM_ONCE(kWrite)},
       5,
       {{"acc", {TTSIM_SCALAR(kFadd)}, 1, kAccMinSlots},
        {"C", {TTSIM_ONCE(kRead), TTSIM_SCALAR(kFadd), TTSIM_ONCE(kWrite)}, 3, kAccMinSlots}},
       2,
       {{"A", kScalarAccess, 1, 0}, {"B", kScalarAccess, 1, 0}, {"C", kScalarAccess, 1, 1}, {"index", kScalarAccess, 2, 0}},
       4}},
     4},
    {"ttsim_softmax",
     "softmax",
     {{"softmax_max",
       kTripRowSlots,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_TREE(kFcmp), TTSIM_SCALAR(kFcmp), TTSIM_ONCE(kWrite)},
       4,
       {{"acc", {TTSIM_SCALAR(kFcmp)}, 1, kAccSlots}},
       1,
       {{"in", kLaneAccess, 1, 0}, {"stat", kScalarAccess, 0, 1}},
       2},
      {"softmax_exp_sum",
       kTripRowSlots,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFexp), TTSIM_TREE(kFadd), TTSIM_SCALAR(kFadd),
        TTSIM_SCALAR(kFdiv), TTSIM_ONCE(kWrite)},
       7,
       {{"acc", {TTSIM_SCALAR(kFadd)}, 1, kAccSlots}},
       1,
       {{"in", kLaneAccess, 1, 0}, {"out", kLaneAccess, 0, 1}, {"stat", kScalarAccess, 1, 1}},
       3},
      {"softmax_normalize",
       kTripElementwise,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFmul), TTSIM_ONCE(kWrite)},
       3,
       {},
       0,
       {{"out", kLaneAccess, 1, 1}, {"stat", kScalarAccess, 1, 0}},
       2}},
     3},
    {"ttsim_softmax_grad",
     "softmax_grad",
     {{"softmax_grad_dot",
       kTripRowSlots,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFmul), TTSIM_TREE(kFadd), TTSIM_SCALAR(kFadd), TTSIM_ONCE(kWrite)},
       5,
       {{"acc", {TTSIM_SCALAR(kFadd)}, 1, kAccSlots}},
       1,
       {{"P", kLaneAccess, 1, 0}, {"d", kLaneAccess, 1, 0}, {"stat", kScalarAccess, 0, 1}},
       3},
      {"softmax_grad_apply",
       kTripElementwise,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFmul), TTSIM_ONCE(kWrite)},
       4,
       {},
       0,
       {{"P", kLaneAccess, 1, 0}, {"d", kLaneAccess, 1, 1}, {"stat", kScalarAccess, 1, 0}},
       3}},
     2},
    {"ttsim_layernorm",
     "layernorm",
     {{"layernorm_mean",
       kTripRowSlots,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_TREE(kFadd), TTSIM_SCALAR(kFadd), TTSIM_SCALAR(kFmul), TTSIM_ONCE(kWrite)},
       5,
       {{"acc", {TTSIM_SCALAR(kFadd)}, 1, kAccSlots}},
       1,
       {{"x", kLaneAccess, 1, 0}, {"stat", kScalarAccess, 0, 1}},
       2},
      {"layernorm_var",
       kTripRowSlots,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFmul), TTSIM_TREE(kFadd), TTSIM_SCALAR(kFadd),
        TTSIM_SCALAR(kFmul), TTSIM_SCALAR(kFadd), TTSIM_SCALAR(kFsqrt), TTSIM_SCALAR(kFdiv), TTSIM_ONCE(kWrite)},
       10,
       {{"acc", {TTSIM_SCALAR(kFadd)}, 1, kAccSlots}},
       1,
       {{"x", kLaneAccess, 1, 0}, {"stat", kScalarAccess, 1, 0}, {"rstd", kScalarAccess, 0, 1}},
       3},
      {"layernorm_normalize",
       kTripElementwise,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFadd),
        TTSIM_ONCE(kWrite)},
       6,
       {},
       0,
       {{"x", kLaneAccess, 1, 0}, {"gamma", kLaneAccess, 1, 0}, {"beta", kLaneAccess, 1, 0},
        {"y", kLaneAccess, 0, 1}, {"xhat", kLaneAccess, 0, 1}, {"stat", kScalarAccess, 1, 0},
        {"rstd", kScalarAccess, 1, 0}},
       7}},
     3},
    {"ttsim_layernorm_grad",
     "layernorm_grad",
     {{"layernorm_grad_reduce",
       kTripRowSlots,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFmul), TTSIM_TREE(kFadd), TTSIM_SCALAR(kFadd),
        TTSIM_SCALAR(kFmul), TTSIM_ONCE(kWrite)},
       7,
       {{"acc1", {TTSIM_SCALAR(kFadd)}, 1, kAccSlots}, {"acc2", {TTSIM_SCALAR(kFadd)}, 1, kAccSlots}},
       2,
       {{"dy", kLaneAccess, 1, 0}, {"gamma", kLaneAccess, 1, 0}, {"xhat", kLaneAccess, 1, 0},
        {"stat", kScalarAccess, 0, 2}},
       4},
      {"layernorm_grad_input",
       kTripElementwise,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFmul),
        TTSIM_ONCE(kWrite)},
       6,
       {},
       0,
       {{"dy", kLaneAccess, 1, 0}, {"gamma", kLaneAccess, 1, 0}, {"xhat", kLaneAccess, 1, 0},
        {"dx", kLaneAccess, 0, 1}, {"stat", kScalarAccess, 2, 0}, {"rstd", kScalarAccess, 1, 0}},
       6},
      {"layernorm_grad_params",
       kTripColumnSlots,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFadd), TTSIM_ONCE(kWrite)},
       5,
       {{"accg", {TTSIM_ONCE(kFadd)}, 1, kAccSlots}, {"accb", {TTSIM_ONCE(kFadd)}, 1, kAccSlots}},
       2,
       {{"dy", kLaneAccess, 1, 0}, {"xhat", kLaneAccess, 1, 0}, {"dgamma", kLaneAccess, 0, 1},
        {"dbeta", kLaneAccess, 0, 1}},
       4}},
     3},
    {"ttsim_gelu",
     "gelu",
     {{"gelu",
       kTripElementwise,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFmul),
        TTSIM_ONCE(kFexp), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFdiv), TTSIM_ONCE(kWrite)},
       9,
       {},
       0,
       {{"x", kLaneAccess, 1, 0}, {"y", kLaneAccess, 0, 1}},
       2}},
     1},
    {"ttsim_gelu_grad",
     "gelu_grad",
     {{"gelu_grad",
       kTripElementwise,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFmul),
        TTSIM_ONCE(kFexp), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFdiv), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFmul),
        TTSIM_ONCE(kFmul), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFmul), TTSIM_ONCE(kWrite)},
       14,
       {},
       0,
       {{"x", kLaneAccess, 1, 0}, {"d", kLaneAccess, 1, 1}},
       2}},
     1},
    {"ttsim_add_accumulate",
     "add",
     {{"add_accumulate",
       kTripElementwise,
       kAddAccumulate,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFadd), TTSIM_ONCE(kWrite)},
       3,
       {},
       0,
       {{"x", kLaneAccess, 1, 0}, {"acc", kLaneAccess, 1, 1}},
       2},
      {"column_sum",
       kTripColumnSlots,
       kAddColumnSum,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFadd), TTSIM_ONCE(kWrite)},
       4,
       {{"acc", {TTSIM_ONCE(kFadd)}, 1, kAccSlots}},
       1,
       {{"x", kLaneAccess, 1, 0}, {"sum", kLaneAccess, 1, 1}},
       2},
      // Transposed copy through lanes × lanes tile buffers (skewed LUTRAM, one write and one
      // read port per memory), a step per tile as long as its rows or columns
      // (transpose_trip): one lane read of x (a tile row) and one lane write of out (a column
      // of an earlier tile) per iteration — ResMII 1 on both arrays and on the tile's memories. A tile element is read kTransposeLag or more iterations after its
      // write (transpose_buffers, transpose_min_step): a RAW dependence through `tile` at that
      // distance, whose latency is the x read's, so RecMII 1. No arithmetic.
      {"transpose",
       kTripTranspose,
       kAddTranspose,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kWrite)},
       2,
       {{"tile", {TTSIM_ONCE(kRead)}, 1, kTransposeLag}},
       1,
       {{"x", kLaneAccess, 1, 0}, {"out", kLaneAccess, 0, 1}},
       2}},
     3},
    {"ttsim_loss",
     "loss",
     {{"loss_max",
       kTripRowSlots,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_TREE(kFcmp), TTSIM_SCALAR(kFcmp), TTSIM_ONCE(kWrite)},
       4,
       {{"acc", {TTSIM_SCALAR(kFcmp)}, 1, kAccSlots}},
       1,
       {{"logits", kLaneAccess, 1, 0}, {"stat", kScalarAccess, 0, 1}},
       2},
      {"loss_exp_sum",
       kTripRowSlots,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFadd), TTSIM_ONCE(kFexp), TTSIM_TREE(kFadd), TTSIM_SCALAR(kFadd),
        TTSIM_SCALAR(kFlog), TTSIM_SCALAR(kFadd), TTSIM_SCALAR(kFadd), TTSIM_SCALAR(kFmul), TTSIM_SCALAR(kFadd),
        TTSIM_ONCE(kWrite)},
       11,
       {{"acc", {TTSIM_SCALAR(kFadd)}, 1, kAccSlots}, {"loss_acc", {TTSIM_SCALAR(kFadd)}, 1, kAccSlots},
        {"label_logit", {}, 0, kAccSlots}},
       3,
       {{"logits", kLaneAccess, 1, 0}, {"dlogits", kLaneAccess, 0, 1}, {"labels", kScalarAccess, 1, 0},
        {"stat", kScalarAccess, 1, 1}},
       4},
      {"loss_grad",
       kTripElementwise,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFadd), TTSIM_ONCE(kWrite)},
       4,
       {},
       0,
       {{"dlogits", kLaneAccess, 1, 1}, {"labels", kScalarAccess, 1, 0}, {"stat", kScalarAccess, 1, 0}},
       3}},
     3},
    {"ttsim_sgd_update",
     "sgd_update",
     {{"sgd_update",
       kTripElementwise,
       -1,
       {TTSIM_ONCE(kRead), TTSIM_ONCE(kFmul), TTSIM_ONCE(kFadd), TTSIM_ONCE(kWrite)},
       4,
       {},
       0,
       {{"w", kLaneAccess, 1, 1}, {"g", kLaneAccess, 1, 1}},
       2}},
     1},
};

#undef TTSIM_ONCE
#undef TTSIM_TREE
#undef TTSIM_SCALAR
#undef TTSIM_WINDOW
#undef TTSIM_PAIR

constexpr int kKernelSpecCount = sizeof(kKernelSpecs) / sizeof(kKernelSpecs[0]);

constexpr bool str_eq(const char* a, const char* b) {
  while (*a && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}
/// Index of the kernel of `task_op` in kKernelSpecs, or -1.
constexpr int kernel_index(const char* task_op) {
  for (int k = 0; k < kKernelSpecCount; ++k) {
    if (str_eq(kKernelSpecs[k].task_op, task_op)) return k;
  }
  return -1;
}
/// The loop called `loop` of kernel `task_op`, or null.
constexpr const LoopSpec* find_loop(const char* task_op, const char* loop) {
  const int k = kernel_index(task_op);
  if (k < 0) return nullptr;
  for (int i = 0; i < kKernelSpecs[k].n_loops; ++i) {
    if (str_eq(kKernelSpecs[k].loops[i].name, loop)) return &kKernelSpecs[k].loops[i];
  }
  return nullptr;
}
/// ResMII of loop `l` at `lanes` lanes on arrays of `banks` banks when each of its arguments
/// is an array of its own: per argument, its sites' accesses per bank (reads + writes, a lane
/// site lane_site_accesses(lanes, banks) times) over kBankPorts — the II the loop's own
/// structure allows, whatever a call binds (column_acc with dual-port lanes: 2).
constexpr int own_array_res_mii(const LoopSpec& l, int lanes, int banks) {
  int res = 1;
  for (int a = 0; a < l.n_access; ++a) {
    int n = 0;
    bool first = true;  // the first site of this argument: count all of its sites once
    for (int b = 0; b < a; ++b) first = first && !str_eq(l.access[b].array, l.access[a].array);
    if (!first) continue;
    for (int b = a; b < l.n_access; ++b) {
      if (str_eq(l.access[b].array, l.access[a].array)) {
        n += site_accesses(l.access[b].kind, lanes, banks) * (l.access[b].reads + l.access[b].writes);
      }
    }
    const int r = (n + kBankPorts - 1) / kBankPorts;
    res = r > res ? r : res;
  }
  return res;
}
/// Kernel loops a build omits, a bit each: a loop no call of the design can run is not
/// synthesized (its operators, bank networks, array selects and control cost nothing).
/// kOmitContractColumnAcc: contract_column_acc, omitted when the accumulating column products
/// run by add (/contraction/accumulate "by_add": every call that would run it runs the plain
/// column form into a partial buffer instead; accumulate_by_add above).
constexpr unsigned kOmitContractColumnAcc = 1u;
/// The number of distinct omission masks: every mask omitted_loops gives is below it.
constexpr unsigned kOmittedLoopMasks = 2u;
/// The loops omitted from a build whose accumulating column products run by add (true) or
/// in place (false): the one rule design_config.h (kOmittedLoops), the kernels
/// (contract.h) and the DSP, LUT and FF models (hw/arch_spec.h omitted_loops) apply.
constexpr unsigned omitted_loops(bool accumulate_by_add) { return accumulate_by_add ? kOmitContractColumnAcc : 0u; }
/// Whether loop `l` is built under the omission mask `omitted` (omitted_loops).
constexpr bool loop_built(const LoopSpec& l, unsigned omitted) {
  return !((omitted & kOmitContractColumnAcc) != 0 && str_eq(l.name, "contract_column_acc"));
}
/// Iteration distance of the recurrence through `variable` of a loop (0: none declared).
constexpr int declared_distance(const LoopSpec& l, const char* variable) {
  for (int i = 0; i < l.n_rec; ++i) {
    if (str_eq(l.rec[i].variable, variable)) return l.rec[i].distance;
  }
  return 0;
}

/// Slot of argument `array` among the distinct arrays of kernel `k` (order of first
/// appearance over its loops), or -1.
constexpr int kernel_array_slot(const KernelSpec& k, const char* array) {
  int slot = 0;
  for (int i = 0; i < k.n_loops; ++i) {
    for (int a = 0; a < k.loops[i].n_access; ++a) {
      const char* name = k.loops[i].access[a].array;
      bool earlier = false;
      for (int j = 0; j <= i && !earlier; ++j) {
        const int end = j == i ? a : k.loops[j].n_access;
        for (int b = 0; b < end && !earlier; ++b) earlier = str_eq(k.loops[j].access[b].array, name);
      }
      if (earlier) continue;
      if (str_eq(name, array)) return slot;
      ++slot;
    }
  }
  return -1;
}

/// Arrays of one kernel that its module takes as one argument (hls/kernels/modules.h): one
/// interface of the shared instance, whose accesses the callee's own schedule places on that
/// array's ports together (the ResMII of kernel_latency counts them per bank). Every other
/// array of a kernel is an argument of its own, so a call may bind it to one array of the
/// top only when no loop accesses both in one iteration (machine/aliasing.h).
struct SharedArgument {
  const char* module;    ///< kernel module, e.g. "ttsim_layernorm"
  const char* argument;  ///< the module's argument, e.g. "params"
  const char* arrays[2];  ///< the kernel_spec.h arrays it carries, e.g. {"gamma", "beta"}
};
constexpr SharedArgument kSharedArguments[] = {
    {"ttsim_softmax", "P", {"in", "out"}},
    {"ttsim_layernorm", "params", {"gamma", "beta"}},
    {"ttsim_layernorm", "saved", {"xhat", "rstd"}},
    {"ttsim_layernorm_grad", "saved", {"xhat", "rstd"}},
    {"ttsim_layernorm_grad", "grads", {"dgamma", "dbeta"}},
};
/// The module argument that carries arrays `a` and `b` of module `module` together, or null
/// when they are arguments of their own.
constexpr const char* shared_argument(const char* module, const char* a, const char* b) {
  for (const SharedArgument& s : kSharedArguments) {
    if (!str_eq(s.module, module)) continue;
    if ((str_eq(s.arrays[0], a) && str_eq(s.arrays[1], b)) || (str_eq(s.arrays[0], b) && str_eq(s.arrays[1], a))) {
      return s.argument;
    }
  }
  return nullptr;
}

/// The physical memories of the top that a kernel argument may live in (TaskShape::memories:
/// kMemoryBits per argument slot); kOwnMemory: counted as its own memory. One id per float
/// arena of hls/kernels/model_step.h (ArenaId + 1) and the int index array; kSharedInputs
/// marks the two read operands of a contraction, which the arena plan may place in one
/// memory (its output is always in another: model_step.h).
enum MemoryId : int {
  kOwnMemory = 0,
  kParamMem = 1,
  kGradMem = 2,
  kActMem = 3,
  kOutMem = 4,
  kSaved0Mem = 5,
  kSaved1Mem = 6,
  kBwdAMem = 7,
  kBwdBMem = 8,
  kBwdCMem = 9,
  kChain0Mem = 10,
  kChain1Mem = 11,
  kIndexMem = 12,
  kSharedInputs = 13,
  kMemoryIds = 16
};
constexpr int kMemoryBits = 4;
constexpr int kMaxArgumentSlots = 10;
/// Memory of argument slot `slot` in a TaskShape::memories word.
constexpr int memory_of(unsigned long long memories, int slot) {
  return slot < 0 || slot >= kMaxArgumentSlots ? kOwnMemory
                                               : static_cast<int>((memories >> (kMemoryBits * slot)) & 15u);
}
/// `memories` with slot `slot` set to memory `m`.
constexpr unsigned long long with_memory(unsigned long long memories, int slot, int m) {
  return slot < 0 || slot >= kMaxArgumentSlots
             ? memories
             : (memories & ~(15ull << (kMemoryBits * slot))) |
                   (static_cast<unsigned long long>(m) << (kMemoryBits * slot));
}

// The kernels rely on the interleave covering the recurrences they declare.
static_assert(kAccSlots >= 1 && (kAccSlots & (kAccSlots - 1)) == 0, "kAccSlots: a power of two");
static_assert(kAccMinSlots >= 1 && kAccMinSlots <= kAccSlots, "kAccMinSlots: a chunk width up to kAccSlots");

}  // namespace ttsim_spec
