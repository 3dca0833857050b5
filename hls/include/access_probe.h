#pragma once
// access_probe.h — instrumentation of the kernels' memory and accumulator accesses for
// C simulation, to measure what hls/include/kernel_spec.h declares.
//
// In a kernel:
//   TTSIM_LOOP_BEGIN("loop");            before a pipelined loop (starts one invocation)
//   TTSIM_LOOP_ITER("loop");             first statement of its body (one iteration; also
//                                        counts it for LoopCountScope, loop_counter.h)
//   v = TTSIM_RD("x", x, i);             read of x[i] through kernel argument "x"
//   TTSIM_WR("y", y, i, v);              write y[i] = v through kernel argument "y"
//   TTSIM_REG_RD("acc", s);              read of accumulator register slot s
//   TTSIM_REG_WR("acc", s);              write of accumulator register slot s
//   TTSIM_LOOP_END("loop");              after the loop (optional: ends the invocation,
//                                        so later accesses are not attributed to it)
// The array / variable names are those of the specification (ArrayAccess::array,
// Recurrence::variable). Under __SYNTHESIS__ (Vitis HLS) or TTSIM_NO_LOOP_COUNT the macros
// are the plain accesses (or nothing), so the synthesized code is unaffected. With no
// AccessProbeScope alive an access costs one predictable branch.
//
// While an AccessProbeScope is alive, every access is recorded against the loop iteration
// it happens in: per loop, per array, the most accesses to one bank in one iteration
// (bank = word address mod the partition factor of the scope), and per array or
// accumulator the shortest distance (iterations, within one loop invocation) from a write
// of an element to a later read or write of the same element. Array words are identified
// by address: a word written through one argument and read through another that is the
// same memory counts for the reader. Not thread-safe: probe from
// one thread at a time.

#include "hls/include/loop_counter.h"

#if defined(__SYNTHESIS__) || defined(TTSIM_NO_LOOP_COUNT)

#define TTSIM_LOOP_BEGIN(loop) \
  do {                         \
  } while (0)
#define TTSIM_LOOP_ITER(loop) \
  do {                        \
  } while (0)
#define TTSIM_RD(arr, ptr, idx) ((ptr)[idx])
#define TTSIM_WR(arr, ptr, idx, val) ((ptr)[idx] = (val))
#define TTSIM_REG_RD(var, slot) \
  do {                          \
  } while (0)
#define TTSIM_REG_WR(var, slot) \
  do {                          \
  } while (0)
#define TTSIM_LOOP_END(loop) \
  do {                       \
  } while (0)

#else

#include <cstdint>
#include <map>
#include <vector>
#include <set>
#include <string>

namespace ttsim_hls {

/// True while an AccessProbeScope is alive.
extern bool g_access_probing;

/// Starts a new invocation of `loop`: iteration numbering restarts at 0 and the element
/// history (last write of every array element / register slot) is forgotten. Accesses
/// between this call and the first probe_loop_iter() are ignored.
void probe_loop_begin(const char* loop);
/// Starts the next iteration of `loop` (index 0, 1, … within the invocation). An
/// iteration of a loop other than the current one implicitly begins a new invocation.
void probe_loop_iter(const char* loop);
/// Ends the current invocation: accesses up to the next probe_loop_begin/iter are
/// ignored. Optional (TTSIM_LOOP_END); without it, accesses after the last iteration
/// of a loop and before the next loop are recorded against that last iteration.
void probe_loop_end(const char* loop);
/// One access of the element at `word_address` (pointer value / element size, i.e. in
/// FP32/int words) of kernel argument `array`, in the current iteration.
void probe_access(const char* array, std::uintptr_t word_address, bool write);
/// One access of the element at `word_address` of banked array `array` (banked.h), to
/// physical bank `bank` of its `banks`; bank < 0: an access whose bank is chosen at run
/// time, a multiplexer over every bank, counted as one access to each of the `banks`.
void probe_bank_access(const char* array, std::uintptr_t word_address, int bank, int banks,
                       bool write);
/// The start of one lane access (banked.h lane_read / lane_write) in the current iteration:
/// `start` words from its array's first word (the view's offset plus the index). Folded
/// into MeasuredLoop::lane_start_gcd.
void probe_lane_start(int start);
/// The shape of the kernel call whose loop begins next (probe_loop_begin): its variant
/// (kernel_spec.h TaskShape::variant) and extents, recorded with that invocation
/// (LoopInvocation::shape) so that a test can compare every call with its task.
void probe_call_shape(int variant, int batch, int rows, int inner, int cols);
/// One access of slot `slot` of accumulator register (array) `var`; element history as
/// for arrays, no bank counting (registers are not memories).
void probe_reg(const char* var, long slot, bool write);

/// What the probe measured for one loop (aggregated over every invocation in the scope).
/// Distances are in iterations of the loop, counted within one invocation.
struct MeasuredLoop {
  /// Iterations (probe_loop_iter calls), summed over invocations.
  std::int64_t iterations = 0;
  /// Invocations (probe_loop_begin calls, or implicit begins).
  std::int64_t invocations = 0;
  /// array → most accesses (reads + writes) to one bank (word address mod partition)
  /// in one iteration, maximised over every iteration. Arrays only (not registers).
  std::map<std::string, int> max_bank_accesses;
  /// array or accumulator → shortest loop-carried distance from a write of an element to
  /// its next access (read or write) in a later iteration; absent when no element
  /// written in one iteration was touched again in a later one.
  std::map<std::string, std::int64_t> min_distance;
  /// array or accumulator → shortest distance from a write of an element to a read of
  /// it in a later iteration (true dependences only; a subset of min_distance's keys).
  std::map<std::string, std::int64_t> min_raw_distance;
  /// array or accumulator → reads of an element written earlier in the same iteration (an
  /// intra-iteration true dependence), summed over every iteration; absent when none.
  std::map<std::string, std::int64_t> intra_raw_reads;
  /// array or accumulator → accesses summed over every iteration (reads, writes).
  std::map<std::string, std::int64_t> reads, writes;
  /// registered physical memory (AccessProbeScope::add_memory) → most accesses to one of
  /// its banks in one iteration, pooled over every kernel argument bound to it: the ports
  /// a call needs of that memory per iteration.
  std::map<std::string, int> max_memory_bank_accesses;
  /// Every distinct binding of the loop's calls: kernel argument → registered memory it
  /// was accessed in during one invocation (arguments that touched no registered memory
  /// are absent). With the specification's access sites per argument this gives the
  /// ports a call holds of each memory whatever the iteration (static sites, not only
  /// the accesses that coincide in one iteration).
  std::set<std::map<std::string, std::string>> bindings;
  /// Greatest common divisor of the start words of every lane access of the loop
  /// (probe_lane_start; 0 when it made none): an aligned module's lane accesses need it to
  /// be a multiple of their lanes (banked.h lane_read<LANES, true>).
  std::int64_t lane_start_gcd = 0;
};

/// One invocation of a probed loop.
struct LoopInvocation {
  std::string loop;             ///< loop label
  std::int64_t iterations = 0;  ///< iterations it ran (its trip count)
  /// The physical memory each kernel array of this invocation touched (array name →
  /// registered memory name); empty when it touched no registered memory.
  std::map<std::string, std::string> binding;
  /// "v<variant> <batch>x<rows>x<inner>x<cols>" of the call (probe_call_shape), or empty
  /// for a kernel that does not record it.
  std::string shape;
};

struct ProbeState;

/// Enables probing for its lifetime; `partition` is the cyclic partition factor (banks)
/// assumed for every array (>= 1). Measurements start empty. A scope created while
/// another is alive measures alone until it ends; the outer one then resumes (with no
/// loop invocation in progress).
class AccessProbeScope {
 public:
  explicit AccessProbeScope(int partition);
  ~AccessProbeScope();
  AccessProbeScope(const AccessProbeScope&) = delete;
  AccessProbeScope& operator=(const AccessProbeScope&) = delete;
  /// loop name → measurements so far, for every loop begun at least once (sites with
  /// the same loop name aggregate). Array and register names share one name space in
  /// the distance and access-count maps (a register and an array of one name in one loop
  /// are merged: minimum distance, summed counts).
  std::map<std::string, MeasuredLoop> loops() const;
  /// Every loop invocation so far, in program order (one per TTSIM_LOOP_BEGIN): the order
  /// the kernel calls ran their loops in, with each invocation's iterations.
  std::vector<LoopInvocation> sequence() const;
  /// The partition factor (banks) of this scope.
  int partition() const { return partition_; }
  /// Registers a physical memory of the design: `bytes` from `first`, elements of
  /// `element_bytes` (the word addresses the kernels' accesses report). Accesses inside
  /// it are also counted per bank of it, whichever argument they come through
  /// (MeasuredLoop::max_memory_bank_accesses). Ranges must not overlap.
  void add_memory(const std::string& name, const void* first, std::size_t bytes, std::size_t element_bytes);

 private:
  int partition_;
  ProbeState* state_;
  ProbeState* outer_;
};

template <typename T>
inline T probe_read(const char* arr, const T* ptr, long idx) {
  if (g_access_probing) {
    probe_access(arr, reinterpret_cast<std::uintptr_t>(ptr + idx) / sizeof(T), false);
  }
  return ptr[idx];
}
template <typename T, typename V>
inline void probe_write(const char* arr, T* ptr, long idx, V val) {
  if (g_access_probing) {
    probe_access(arr, reinterpret_cast<std::uintptr_t>(ptr + idx) / sizeof(T), true);
  }
  ptr[idx] = val;
}

}  // namespace ttsim_hls

#define TTSIM_LOOP_BEGIN(loop)                                        \
  do {                                                                \
    if (::ttsim_hls::g_access_probing) ::ttsim_hls::probe_loop_begin(loop); \
  } while (0)
#define TTSIM_LOOP_ITER(loop)                                        \
  do {                                                               \
    TTSIM_LOOP_COUNT(loop);                                          \
    if (::ttsim_hls::g_access_probing) ::ttsim_hls::probe_loop_iter(loop); \
  } while (0)
#define TTSIM_RD(arr, ptr, idx) ::ttsim_hls::probe_read(arr, ptr, idx)
#define TTSIM_WR(arr, ptr, idx, val) ::ttsim_hls::probe_write(arr, ptr, idx, val)
#define TTSIM_REG_RD(var, slot)                                                \
  do {                                                                         \
    if (::ttsim_hls::g_access_probing) ::ttsim_hls::probe_reg(var, slot, false); \
  } while (0)
#define TTSIM_REG_WR(var, slot)                                               \
  do {                                                                        \
    if (::ttsim_hls::g_access_probing) ::ttsim_hls::probe_reg(var, slot, true); \
  } while (0)
#define TTSIM_LOOP_END(loop)                                        \
  do {                                                              \
    if (::ttsim_hls::g_access_probing) ::ttsim_hls::probe_loop_end(loop); \
  } while (0)

#endif

namespace ttsim_hls {

/// Element `slot` of an accumulator register file `acc` (T = float: one partial sum per
/// slot; T = float[LANES]: one per slot and lane), to be read. While an access probe is
/// active the read is recorded at the element's own address, so the distance the probe
/// measures is that of the index the code uses (there is no separate annotation).
template <typename T, int N>
inline T& acc_read(const char* var, T (&acc)[N], int slot) {
#pragma HLS INLINE
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
  if (g_access_probing) probe_reg(var, static_cast<long>(reinterpret_cast<std::uintptr_t>(&acc[slot]) / sizeof(float)), false);
#else
  (void)var;
#endif
  return acc[slot];
}

/// Element `slot` of an accumulator register file `acc`, to be written (see acc_read).
template <typename T, int N>
inline T& acc_write(const char* var, T (&acc)[N], int slot) {
#pragma HLS INLINE
#if !defined(__SYNTHESIS__) && !defined(TTSIM_NO_LOOP_COUNT)
  if (g_access_probing) probe_reg(var, static_cast<long>(reinterpret_cast<std::uintptr_t>(&acc[slot]) / sizeof(float)), true);
#else
  (void)var;
#endif
  return acc[slot];
}

}  // namespace ttsim_hls

