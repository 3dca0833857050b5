// Measures in C simulation what hls/include/kernel_spec.h declares and checks the two
// agree: every kernel of kKernelSpecs is run under an AccessProbeScope (hls/include/
// access_probe.h) for lanes 1, 2, 3, 4, 8, 16, 32 and 64, several shapes (rows and columns
// that are not multiples of the lanes or of kAccSlots, row counts below kAccSlots) and
// arrays of B = lanes and 2·lanes banks (hls/include/banked.h), views starting on a bank
// boundary and 5 words past one (every lane access then straddles two rows of banks), and
// hls/include/spec_check.h must report no
// violation: trip counts, accesses per bank per iteration (so ResMII), and every
// loop-carried distance against the declared recurrences. The probe itself is tested on
// hand-written loops, and naive variants of kernel loops (a running sum carried every
// iteration, every lane at a runtime bank, a misaligned scatter) must be reported.

#include <gtest/gtest.h>

#include <cmath>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <sstream>
#include <string>
#include <vector>

#include "hls/include/access_probe.h"
#include "hls/include/banked.h"
#include "hls/include/kernel_spec.h"
#include "hls/include/spec_check.h"
#include "hls/kernels/contract.h"
#include "hls/kernels/add.h"
#include "hls/kernels/gelu.h"
#include "hls/kernels/layernorm.h"
#include "hls/kernels/loss.h"
#include "hls/kernels/sgd.h"
#include "hls/kernels/softmax.h"

namespace {

using ttsim_hls::AccessProbeScope;
using ttsim_hls::bank_view;
using ttsim_hls::ContractDesc;
using ttsim_hls::MeasuredLoop;
using ttsim_hls::SpecShape;
using ttsim_spec::kAccSlots;
using Loops = std::map<std::string, MeasuredLoop>;
using Vf = std::vector<float>;

Vf randv(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Vf v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& e : v) s += "  " + e + "\n";
  return s;
}

bool any_contains(const std::vector<std::string>& v, const std::string& a, const std::string& b = "") {
  for (const auto& e : v) {
    if (e.find(a) != std::string::npos && e.find(b) != std::string::npos) return true;
  }
  return false;
}

/// Runs `f` with probing on (partition P) and returns the measurements.
template <class F>
Loops probe(int P, F f) {
  AccessProbeScope scope(P);
  f();
  return scope.loops();
}

// ---- the probe on hand-written loops --------------------------------------------

TEST(AccessProbe, CountsIterationsBanksAndDistances) {
  const int L = 4, N = 10;
  Vf x(L * N + 8), y(L * N + 8);
  const Loops m = probe(L, [&] {
    TTSIM_LOOP_BEGIN("t");
    for (int n = 0; n < N; ++n) {
      TTSIM_LOOP_ITER("t");
      if (n >= kAccSlots) TTSIM_REG_RD("acc", n % kAccSlots);
      TTSIM_REG_WR("acc", n % 3);  // slot reused every 3 iterations
      for (int l = 0; l < L; ++l) TTSIM_WR("y", y.data(), n * L + l, TTSIM_RD("x", x.data(), n * L + l));
    }
  });
  ASSERT_EQ(m.count("t"), 1u);
  const MeasuredLoop& t = m.at("t");
  EXPECT_EQ(t.iterations, N);
  EXPECT_EQ(t.invocations, 1);
  EXPECT_EQ(t.max_bank_accesses.at("x"), 1);
  EXPECT_EQ(t.max_bank_accesses.at("y"), 1);
  EXPECT_EQ(t.max_bank_accesses.count("acc"), 0u);  // registers have no banks
  EXPECT_EQ(t.min_distance.at("acc"), 3);
  EXPECT_EQ(t.min_raw_distance.count("acc"), 0u);  // only writes: no read after a write
  EXPECT_EQ(t.min_distance.count("x"), 0u);
  EXPECT_EQ(t.min_distance.count("y"), 0u);
  EXPECT_EQ(t.reads.at("x"), L * N);
  EXPECT_EQ(t.writes.at("y"), L * N);
}

TEST(AccessProbe, SameBankAccessesAddUpWithinOneIterationOnly) {
  const int P = 4;
  Vf x(64);
  const Loops m = probe(P, [&] {
    TTSIM_LOOP_BEGIN("t");
    for (int n = 0; n < 3; ++n) {
      TTSIM_LOOP_ITER("t");
      for (int l = 0; l < 3; ++l) TTSIM_RD("x", x.data(), n + l * P);  // 3 words, one bank
    }
  });
  EXPECT_EQ(m.at("t").max_bank_accesses.at("x"), 3);
}

TEST(AccessProbe, DistanceIsReadAfterWriteWithinOneInvocation) {
  Vf s(4);
  const Loops m = probe(2, [&] {
    for (int inv = 0; inv < 3; ++inv) {
      TTSIM_LOOP_BEGIN("t");
      for (int n = 0; n < 10; ++n) {
        TTSIM_LOOP_ITER("t");
        if (n == 2) TTSIM_WR("s", s.data(), 0, 1.0f);
        if (n == 7) TTSIM_RD("s", s.data(), 0);   // 5 after the write
        if (n == 9) TTSIM_WR("s", s.data(), 1, 1.0f);
      }
      // no write of s[0] in iteration 9 of one invocation reaches the next one
    }
    TTSIM_LOOP_BEGIN("u");
    for (int n = 0; n < 4; ++n) {
      TTSIM_LOOP_ITER("u");
      TTSIM_RD("s", s.data(), 0);
      TTSIM_WR("s", s.data(), 0, 0.0f);  // read and write in the same iteration: not carried
    }
  });
  const MeasuredLoop& t = m.at("t");
  EXPECT_EQ(t.iterations, 30);
  EXPECT_EQ(t.invocations, 3);
  EXPECT_EQ(t.min_distance.at("s"), 5);
  EXPECT_EQ(t.min_raw_distance.at("s"), 5);
  // u: written in iteration n, read in n + 1.
  EXPECT_EQ(m.at("u").min_raw_distance.at("s"), 1);
  // Neither loop reads an element after writing it in the same iteration.
  EXPECT_TRUE(t.intra_raw_reads.empty());
  EXPECT_TRUE(m.at("u").intra_raw_reads.empty());
}

TEST(AccessProbe, ReadAfterWriteInOneIterationIsCounted) {
  Vf s(4);
  const Loops m = probe(2, [&] {
    TTSIM_LOOP_BEGIN("t");
    for (int n = 0; n < 5; ++n) {
      TTSIM_LOOP_ITER("t");
      TTSIM_WR("s", s.data(), n % 4, 1.0f);
      if (n % 2 == 0) TTSIM_RD("s", s.data(), n % 4);  // 3 iterations: 0, 2, 4
      TTSIM_RD("s", s.data(), (n + 1) % 4);            // not written in this iteration
    }
  });
  EXPECT_EQ(m.at("t").intra_raw_reads.at("s"), 3);
}

TEST(AccessProbe, NewInvocationForgetsHistory) {
  Vf s(4);
  const Loops m = probe(2, [&] {
    for (int inv = 0; inv < 2; ++inv) {
      TTSIM_LOOP_BEGIN("t");
      TTSIM_LOOP_ITER("t");
      TTSIM_RD("s", s.data(), 0);
      TTSIM_WR("s", s.data(), 0, 0.0f);
    }
  });
  EXPECT_EQ(m.at("t").min_distance.count("s"), 0u);
  EXPECT_EQ(m.at("t").invocations, 2);
}

TEST(AccessProbe, AccessesOutsideIterationsAndScopesAreIgnored) {
  Vf s(4);
  TTSIM_LOOP_BEGIN("t");  // no scope: nothing recorded
  TTSIM_LOOP_ITER("t");
  TTSIM_WR("s", s.data(), 0, 1.0f);
  const Loops m = probe(2, [&] {
    TTSIM_WR("s", s.data(), 0, 1.0f);  // before any loop
    TTSIM_LOOP_BEGIN("t");
    TTSIM_WR("s", s.data(), 0, 1.0f);  // before the first iteration
    TTSIM_LOOP_ITER("t");
    TTSIM_RD("s", s.data(), 1);
    TTSIM_LOOP_END("t");
    TTSIM_WR("s", s.data(), 0, 1.0f);  // after the end
    TTSIM_RD("s", s.data(), 0);
  });
  EXPECT_EQ(m.at("t").iterations, 1);
  EXPECT_EQ(m.at("t").reads.at("s"), 1);
  EXPECT_EQ(m.at("t").writes.at("s"), 0);
  EXPECT_EQ(m.at("t").max_bank_accesses.at("s"), 1);
}

TEST(AccessProbe, ScopesStartEmptyAndStopProbing) {
  Vf s(4);
  {
    AccessProbeScope a(2);
    TTSIM_LOOP_BEGIN("t");
    TTSIM_LOOP_ITER("t");
    TTSIM_RD("s", s.data(), 0);
  }
  EXPECT_FALSE(ttsim_hls::g_access_probing);
  AccessProbeScope b(2);
  EXPECT_TRUE(b.loops().empty());
}

// Many elements and invocations exercise the history table's growth and rebuilds.
TEST(AccessProbe, LargeLoopsKeepExactDistances) {
  const int N = 200000;
  Vf s(N + 7);
  const Loops m = probe(8, [&] {
    for (int inv = 0; inv < 3; ++inv) {
      TTSIM_LOOP_BEGIN("t");
      for (int n = 0; n < N; ++n) {
        TTSIM_LOOP_ITER("t");
        TTSIM_WR("s", s.data(), n, 0.0f);
        if (n >= 7) TTSIM_RD("s", s.data(), n - 7);
      }
    }
  });
  EXPECT_EQ(m.at("t").min_raw_distance.at("s"), 7);
  EXPECT_EQ(m.at("t").min_distance.at("s"), 7);
  EXPECT_EQ(m.at("t").iterations, 3 * N);
}

// ---- the checker ---------------------------------------------------------------

TEST(SpecCheck, ReportsTripBankAndUnknownArrays) {
  const ttsim_spec::LoopSpec* gelu = ttsim_spec::find_loop("gelu", "gelu");
  ASSERT_NE(gelu, nullptr);
  MeasuredLoop m;
  m.iterations = 5;
  m.max_bank_accesses = {{"x", 3}, {"y", 1}, {"z", 1}};
  const auto v = ttsim_hls::check_loop(*gelu, m, 0, SpecShape{1, 2, 1, 7}, 4);
  EXPECT_TRUE(any_contains(v, "iterations 5 != spec trip 4")) << join(v);
  EXPECT_TRUE(any_contains(v, "array x: 3 accesses to one bank")) << join(v);
  EXPECT_TRUE(any_contains(v, "array x: ResMII ceil(3/2) = 2 > spec ceil(1/2) = 1")) << join(v);
  EXPECT_TRUE(any_contains(v, "array z accessed")) << join(v);
  EXPECT_EQ(v.size(), 4u) << join(v);
  EXPECT_FALSE(ttsim_hls::check_loop("gelu", "nope", m, 0, SpecShape{}, 1).empty());
}

TEST(SpecCheck, WriteOnlyDistancesAreNotRecurrences) {
  const ttsim_spec::LoopSpec* l = ttsim_spec::find_loop("layernorm", "layernorm_mean");
  MeasuredLoop m;
  m.iterations = ttsim_spec::loop_trip(l->trip, l->variant, 0, 1, 3, 1, 8, 4);
  m.min_distance = {{"stat", 1}};  // write, write: no cycle
  EXPECT_TRUE(ttsim_hls::check_loop(*l, m, 0, SpecShape{1, 3, 1, 8}, 4).empty());
  m.min_raw_distance = {{"stat", 1}};
  EXPECT_FALSE(ttsim_hls::check_loop(*l, m, 0, SpecShape{1, 3, 1, 8}, 4).empty());
}

// ---- injection: naive loops must be reported -----------------------------------

// layernorm_mean written the naive way: one running sum per row carried from every
// iteration to the next (order (row, tile), trip R·tiles).
template <int L>
void naive_mean_register(const float* x, float* stat, int R, int cols) {
  const int tiles = (cols + L - 1) / L;
  float run[1] = {0.0f};
  TTSIM_LOOP_BEGIN("layernorm_mean");
  for (long n = 0; n < static_cast<long>(R) * tiles; ++n) {
    TTSIM_LOOP_ITER("layernorm_mean");
    const int r = static_cast<int>(n / tiles), t = static_cast<int>(n % tiles);
    float part = 0.0f;
    for (int l = 0; l < L; ++l) {
      if (t * L + l < cols) part += TTSIM_RD("x", x, r * cols + t * L + l);
    }
    const float sum = t == 0 ? part : ttsim_hls::acc_read("acc", run, 0) + part;
    ttsim_hls::acc_write("acc", run, 0) = sum;
    if (t == tiles - 1) TTSIM_WR("stat", stat, r, sum / cols);
  }
}

// The same with the running sum kept in stat[r] (read-modify-write every iteration).
template <int L>
void naive_mean_memory(const float* x, float* stat, int R, int cols) {
  const int tiles = (cols + L - 1) / L;
  TTSIM_LOOP_BEGIN("layernorm_mean");
  for (long n = 0; n < static_cast<long>(R) * tiles; ++n) {
    TTSIM_LOOP_ITER("layernorm_mean");
    const int r = static_cast<int>(n / tiles), t = static_cast<int>(n % tiles);
    float s = t == 0 ? 0.0f : TTSIM_RD("stat", stat, r);
    for (int l = 0; l < L; ++l) {
      if (t * L + l < cols) s += TTSIM_RD("x", x, r * cols + t * L + l);
    }
    TTSIM_WR("stat", stat, r, t == tiles - 1 ? s / cols : s);
  }
}

TEST(Injection, RunningSumCarriedEveryIterationIsReported) {
  const int R = 5, C = 37, L = 4;
  const Vf x = randv(R * C, 1);
  Vf stat(R);
  const SpecShape shape{1, R, 1, C};
  const ttsim_spec::LoopSpec* spec = ttsim_spec::find_loop("layernorm", "layernorm_mean");
  ASSERT_NE(spec, nullptr);
  {
    const Loops m = probe(L, [&] { naive_mean_register<L>(x.data(), stat.data(), R, C); });
    const auto v = ttsim_hls::check_loop(*spec, m.at("layernorm_mean"), 0, shape, L);
    EXPECT_TRUE(any_contains(v, "recurrence through acc at distance 1 ", "declared distance 16"))
        << join(v);
  }
  {
    const Loops m = probe(L, [&] { naive_mean_memory<L>(x.data(), stat.data(), R, C); });
    const auto v = ttsim_hls::check_loop(*spec, m.at("layernorm_mean"), 0, shape, L);
    EXPECT_TRUE(any_contains(v, "undeclared recurrence through stat at distance 1 ")) << join(v);
    EXPECT_TRUE(any_contains(v, "array stat: 2 accesses to one bank")) << join(v);
  }
  // The kernel's own loop passes the same check.
  const Loops m = probe(L, [&] {
    Vf g(C), b(C), y(R * C), xh(R * C), rs(R);
    ttsim_hls::layernorm_kernel<L, L>(bank_view<L>(x.data()), bank_view<L>(g.data()), bank_view<L>(b.data()),
                                      bank_view<L>(y.data()), bank_view<L>(xh.data()), bank_view<L>(rs.data()), R,
                                      C, bank_view<L>(stat.data()));
  });
  const auto v = ttsim_hls::check_loop(*spec, m.at("layernorm_mean"), 0, shape, L);
  EXPECT_TRUE(v.empty()) << join(v);
}

// A copy of the kernel's layernorm_mean loop (slot-interleaved rows, lane tree, accumulator
// accessors) with one index changed: the running sum kept in slot 0 instead of the row's
// slot c.s, or in one word of stat (memory) instead of the row's register. The probe records
// the element the code uses, so the distance-1 recurrence is reported; with c.s the same
// loop passes.
enum class MeanSlot { kRowSlot, kSlotZero, kStatWordInMemory };
template <int L>
void interleaved_mean(const float* x, float* stat, int R, int cols, MeanSlot where) {
  using ttsim_spec::kAccSlots;
  const int tiles = (cols + L - 1) / L;
  float acc[kAccSlots];
  ttsim_hls::detail::RowSlots c(tiles, cols, 0, 0);
  const long total = ttsim_hls::detail::trip(ttsim_spec::kTripRowSlots, R, cols, L);
  const auto xv_all = bank_view<L>(x);
  const auto st = bank_view<L>(stat);
  TTSIM_LOOP_BEGIN("layernorm_mean");
  for (long n = 0; n < total; ++n) {
    TTSIM_LOOP_ITER("layernorm_mean");
    const int r = c.row();
    if (r < R) {
      const int nl = ttsim_hls::tile_lanes<L>(c.t * L, cols);
      float xv[L];
      ttsim_hls::lane_read<L>("x", xv_all, c.rows.off[0] + c.t * L, nl, xv);
      const float part = ttsim_hls::LaneTree<L>::sum(xv);
      if (where == MeanSlot::kStatWordInMemory) {
        // The running sum read back from one stat word (after the R results) every
        // iteration: a read-modify-write through memory at distance 1.
        const float s = c.t == 0 ? part : ttsim_hls::bank_read("stat", st, R) + part;
        ttsim_hls::bank_write("stat", st, c.t == tiles - 1 ? r : R, c.t == tiles - 1 ? s / cols : s);
      } else {
        const int slot = where == MeanSlot::kSlotZero ? 0 : c.s;
        const float s = c.t == 0 ? part : ttsim_hls::acc_read("acc", acc, slot) + part;
        ttsim_hls::acc_write("acc", acc, slot) = s;
        if (c.t == tiles - 1) ttsim_hls::bank_write("stat", st, r, s / cols);
      }
    }
    c.next();
  }
}

TEST(Injection, AccumulatorAtTheWrongSlotIsReported) {
  const int R = 20, C = 24, L = 4;
  const Vf x = randv(R * C, 3);
  Vf stat(R + 2 * L);
  const SpecShape shape{1, R, 1, C};
  const ttsim_spec::LoopSpec* spec = ttsim_spec::find_loop("layernorm", "layernorm_mean");
  ASSERT_NE(spec, nullptr);
  {
    const Loops m = probe(L, [&] { interleaved_mean<L>(x.data(), stat.data(), R, C, MeanSlot::kSlotZero); });
    const auto v = ttsim_hls::check_loop(*spec, m.at("layernorm_mean"), 0, shape, L);
    EXPECT_TRUE(any_contains(v, "recurrence through acc at distance 1 ", "declared distance 16")) << join(v);
  }
  {
    // The same copy with the running sum in a stat word instead of a register: a distance-1
    // recurrence through memory, which the specification does not declare.
    const Loops m = probe(L, [&] { interleaved_mean<L>(x.data(), stat.data(), R, C, MeanSlot::kStatWordInMemory); });
    const auto v = ttsim_hls::check_loop(*spec, m.at("layernorm_mean"), 0, shape, L);
    EXPECT_TRUE(any_contains(v, "undeclared recurrence through stat at distance 1 ")) << join(v);
  }
  const Loops m = probe(L, [&] { interleaved_mean<L>(x.data(), stat.data(), R, C, MeanSlot::kRowSlot); });
  const auto v = ttsim_hls::check_loop(*spec, m.at("layernorm_mean"), 0, shape, L);
  EXPECT_TRUE(v.empty()) << join(v);
}

// gelu with lane l reading word t·L + l·P instead of t·L + l: every lane on one bank.
TEST(Injection, LanesOnOneBankAreReported) {
  const int L = 8, P = L, R = 3, C = 16;
  const Vf x = randv(static_cast<std::size_t>(R) * C * P, 2);
  Vf y(R * C);
  const Loops m = probe(P, [&] {
    TTSIM_LOOP_BEGIN("gelu");
    for (int n = 0; n < R * (C / L); ++n) {
      TTSIM_LOOP_ITER("gelu");
      for (int l = 0; l < L; ++l) {
        TTSIM_WR("y", y.data(), n * L + l, TTSIM_RD("x", x.data(), n * L * P + l * P) * 0.5f);
      }
    }
  });
  const auto v = ttsim_hls::check_loop("gelu", "gelu", m.at("gelu"), 0, SpecShape{1, R, 1, C}, L);
  EXPECT_TRUE(any_contains(v, "array x: 8 accesses to one bank in one iteration > declared 1")) << join(v);
  EXPECT_TRUE(any_contains(v, "array x: ResMII ceil(8/2) = 4")) << join(v);
  EXPECT_FALSE(any_contains(v, "array y")) << join(v);
}

// gelu on banked arrays with each lane read at a runtime index (bank_read per lane, the
// way the kernels read lanes before they were banked at compile time): each read is a
// multiplexer over every bank, so every bank serves L reads per iteration. The kernel's
// lane_read of the same words serves one.
TEST(Injection, RuntimeBankPerLaneIsReported) {
  constexpr int L = 8, B = 8;
  const int R = 3, C = 16;
  Vf x = randv(static_cast<std::size_t>(R) * C + 5, 2), y(R * C + 5);
  const auto xv = bank_view<B>(x.data()) + 5;
  const auto yv = bank_view<B>(y.data()) + 5;
  const Loops m = probe(B, [&] {
    TTSIM_LOOP_BEGIN("gelu");
    for (int n = 0; n < R * (C / L); ++n) {
      TTSIM_LOOP_ITER("gelu");
      float out[L];
      for (int l = 0; l < L; ++l) out[l] = ttsim_hls::bank_read("x", xv, n * L + l) * 0.5f;
      ttsim_hls::lane_write<L>("y", yv, n * L, L, out);
    }
  });
  const auto v = ttsim_hls::check_loop("gelu", "gelu", m.at("gelu"), 0, SpecShape{1, R, 1, C}, L);
  EXPECT_TRUE(any_contains(v, "array x: 8 accesses to one bank in one iteration > declared 1")) << join(v);
  EXPECT_FALSE(any_contains(v, "array y")) << join(v);
  const Loops k = probe(B, [&] { ttsim_hls::gelu_kernel<L, B>(xv, yv, R, C); });
  const auto w = ttsim_hls::check_loop("gelu", "gelu", k.at("gelu"), 0, SpecShape{1, R, 1, C}, L);
  EXPECT_TRUE(w.empty()) << join(w);
}

// ---- the kernels ---------------------------------------------------------------

struct RowShape {
  int R, cols;
};
const RowShape kRowShapes[] = {{1, 1}, {5, 37}, {16, 64}, {33, 100}, {40, 200}, {130, 301}};

/// One row-kernel case: the kernel of `task_op` (variant) and how to call it.
enum class RowOp {
  kSoftmax,
  kSoftmaxMasked,
  kSoftmaxGrad,
  kLayerNorm,
  kLayerNormGrad,
  kGelu,
  kGeluGrad,
  kAddBroadcast,
  kAddAccumulate,
  kColumnSum,
  kTranspose,
  kLoss,
  kSgd
};
struct RowCase {
  RowOp op;
  const char* name;
  const char* task_op;
  int variant;
};
const RowCase kRowCases[] = {
    {RowOp::kSoftmax, "softmax", "softmax", 0},
    {RowOp::kSoftmaxMasked, "softmax (key padding)", "softmax", 0},
    {RowOp::kSoftmaxGrad, "softmax_grad", "softmax_grad", 0},
    {RowOp::kLayerNorm, "layernorm", "layernorm", 0},
    {RowOp::kLayerNormGrad, "layernorm_grad", "layernorm_grad", 0},
    {RowOp::kGelu, "gelu", "gelu", 0},
    {RowOp::kGeluGrad, "gelu_grad", "gelu_grad", 0},
    {RowOp::kAddBroadcast, "add_accumulate (bias broadcast)", "add", ttsim_spec::kAddAccumulate},
    {RowOp::kAddAccumulate, "add_accumulate", "add", ttsim_spec::kAddAccumulate},
    {RowOp::kColumnSum, "column_sum", "add", ttsim_spec::kAddColumnSum},
    {RowOp::kTranspose, "transpose", "add", ttsim_spec::kAddTranspose},
    {RowOp::kLoss, "loss", "loss", 0},
    {RowOp::kSgd, "sgd_update", "sgd_update", 0},
};

/// A view of `v` on B banks starting `off` words into a copy of it (the data keeps its
/// values; `off` words of padding in front).
template <int B>
ttsim_hls::Banked<float, B> view(Vf& v, int off) {
  v.insert(v.begin(), static_cast<std::size_t>(off), 0.0f);
  return bank_view<B>(v.data()) + off;
}

/// Runs one row kernel with LANES lanes on R × C data in arrays of B banks, every view
/// `off` words past a bank boundary (probing is up to the caller). Returns the SpecShape
/// its loops' trip formulas take.
template <int LANES, int B>
SpecShape run_row(RowOp op, int R, int C, int off) {
  const std::size_t n = static_cast<std::size_t>(R) * C;
  const int rs = C + 3;  // a row stride > cols for the accumulate target
  Vf x = randv(n, 3), y = randv(n, 4), z(n), w(n);
  Vf g = randv(C, 5), be = randv(C, 6), stat(3 * R), rstd(R), acc(static_cast<std::size_t>(R) * rs);
  Vf dg(C), db(C);
  std::vector<int> labels(R);
  for (int r = 0; r < R; ++r) labels[r] = r % 4 == 3 ? -1 : (r * 7) % C;
  for (auto& v : y) v = v * 0.5f + 1.0f;  // positive (softmax probabilities, rstd)
  const auto xv = view<B>(x, off), yv = view<B>(y, off), zv = view<B>(z, off), wv = view<B>(w, off);
  const auto gv = view<B>(g, off), bev = view<B>(be, off), sv = view<B>(stat, off), rv = view<B>(rstd, off);
  const auto av = view<B>(acc, off), dgv = view<B>(dg, off), dbv = view<B>(db, off);
  switch (op) {
    case RowOp::kSoftmax:
      ttsim_hls::softmax_kernel<LANES, B>(xv, zv, R, C, C, sv);
      break;
    case RowOp::kSoftmaxMasked:
      ttsim_hls::softmax_kernel<LANES, B>(xv, zv, R, C, C > 3 ? C - 3 : 1, sv);
      break;
    case RowOp::kSoftmaxGrad:
      ttsim_hls::softmax_grad_kernel<LANES, B>(yv, zv, R, C, sv);
      break;
    case RowOp::kLayerNorm:
      ttsim_hls::layernorm_kernel<LANES, B>(xv, gv, bev, zv, wv, rv, R, C, sv);
      break;
    case RowOp::kLayerNormGrad:
      ttsim_hls::layernorm_grad_kernel<LANES, B>(xv, yv, yv, gv, zv, dgv, dbv, R, C, sv);
      break;
    case RowOp::kGelu: ttsim_hls::gelu_kernel<LANES, B>(xv, zv, R, C); break;
    case RowOp::kGeluGrad: ttsim_hls::gelu_grad_kernel<LANES, B>(xv, zv, R, C); break;
    case RowOp::kAddBroadcast:  // Y += b: the bias row broadcast (x row stride 0), as the build's bias adds
      ttsim_hls::add_accumulate_kernel<LANES, B>(gv, av, R, C, 0, rs);
      break;
    case RowOp::kAddAccumulate:
      ttsim_hls::add_accumulate_kernel<LANES, B>(xv, av, R, C, C, rs);
      break;
    case RowOp::kColumnSum: ttsim_hls::column_sum_kernel<LANES, B>(xv, gv, R, C, C); break;
    case RowOp::kTranspose: ttsim_hls::transpose_kernel<LANES, B>(xv, zv, R, C, C, R); break;
    case RowOp::kLoss:
      ttsim_hls::loss_kernel<LANES, B>(xv, labels.data(), zv, R, C, 0.5f, sv);
      break;
    case RowOp::kSgd:
      ttsim_hls::sgd_kernel<LANES, B>(xv, yv, R * C, 0.1f);
      return SpecShape{1, 1, 1, static_cast<long long>(R) * C};
  }
  return SpecShape{1, R, 1, C};
}

/// One contraction case: form (column / dot / scalar operand layouts), batch reduced or
/// not, accumulate, and scatter (c_index maps several batches to one C slice; the TTM
/// gradient), optionally with interleaved slices as in ttm_embedding.cc.
struct ContractCase {
  const char* name;
  int form;
  bool reduce, accumulate, scatter, interleaved;
  bool gather = false;  ///< A and B bases from index tables (the TTM forward lookup)
};
const ContractCase kContractCases[] = {
    {"column", ttsim_spec::kContractColumn, false, false, false, false},
    {"column accumulate", ttsim_spec::kContractColumn, false, true, false, false},
    {"column reduce", ttsim_spec::kContractColumn, true, false, false, false},
    {"column reduce accumulate", ttsim_spec::kContractColumn, true, true, false, false},
    {"column scatter", ttsim_spec::kContractColumn, false, true, true, false},
    {"column scatter interleaved (TTM)", ttsim_spec::kContractColumn, false, true, true, true},
    {"column gather (TTM forward)", ttsim_spec::kContractColumn, false, false, false, false, true},
    {"dot", ttsim_spec::kContractDot, false, false, false, false},
    {"dot accumulate", ttsim_spec::kContractDot, false, true, false, false},
    {"dot reduce", ttsim_spec::kContractDot, true, false, false, false},
    {"dot reduce accumulate", ttsim_spec::kContractDot, true, true, false, false},
    {"dot scatter", ttsim_spec::kContractDot, false, true, true, false},
    {"dot gather", ttsim_spec::kContractDot, false, false, false, false, true},
    {"scalar", ttsim_spec::kContractScalar, false, false, false, false},
    {"scalar accumulate", ttsim_spec::kContractScalar, false, true, false, false},
    {"scalar reduce", ttsim_spec::kContractScalar, true, false, false, false},
    {"scalar reduce accumulate", ttsim_spec::kContractScalar, true, true, false, false},
    {"scalar scatter", ttsim_spec::kContractScalar, false, true, true, false},
};
struct ContractShape {
  int batch, rows, inner, cols;
};
// {2, 3, 1, 4}: one reduction step, so C is read and written in one iteration in every form.
const ContractShape kContractShapes[] = {{1, 1, 1, 1},  {3, 5, 7, 11}, {2, 12, 12, 40},
                                         {1, 20, 33, 17}, {4, 3, 64, 5}, {2, 17, 5, 96},
                                         {6, 2, 3, 4},    {3, 40, 24, 50}, {2, 3, 1, 4}};
constexpr int kSlices = 3;  // C slices of a scatter

/// Operands of one contraction case: the descriptor and buffers sized for it.
struct ContractRun {
  ContractDesc d;
  std::vector<int> index;  ///< the int array the descriptor's index tables live in
  Vf A, B, C;
};

ContractRun make_contract(const ContractCase& k, const ContractShape& s) {
  ContractRun run;
  ContractDesc& d = run.d;
  const int Bn = s.batch, R = s.rows, I = s.inner, Cn = s.cols;
  d.batch = Bn; d.rows = R; d.inner = I; d.cols = Cn;
  d.accumulate = k.accumulate;
  d.reduce_batch = k.reduce;
  d.alpha = k.accumulate ? 1.0f : 0.5f;
  // A (b, i, p): row-major, or transposed (scalar form: a_p = rows).
  d.a_b = R * I;
  if (k.form == ttsim_spec::kContractScalar) { d.a_i = 1; d.a_p = R; } else { d.a_i = I; d.a_p = 1; }
  // B (b, p, j): row-major, or transposed (dot form: b_p = 1).
  d.b_b = I * Cn;
  if (k.form == ttsim_spec::kContractDot) { d.b_p = 1; d.b_j = I; } else { d.b_p = Cn; d.b_j = 1; }
  // C (b, i, j): row-major, or transposed (scalar form: c_j = rows).
  if (k.form == ttsim_spec::kContractScalar) { d.c_i = 1; d.c_j = R; } else { d.c_i = Cn; d.c_j = 1; }
  d.c_b = R * Cn;
  std::size_t c_words = static_cast<std::size_t>(k.reduce ? 1 : Bn) * R * Cn;
  if (k.scatter) {
    // Batch b adds into slice v(b); several batches share a slice, consecutive ones too
    // (the closest a write and the next read of one C element get: kAccSlots).
    // index: [a word ahead of the tables | C bases | B bases] (tables at offsets > 0).
    const int v_of[] = {0, 0, 1, 0, 2, 2};
    run.index.assign(1 + 2 * Bn, -1);
    for (int b = 0; b < Bn; ++b) {
      const int v = v_of[b % 6];
      run.index[1 + b] = k.interleaved ? v * Cn : v * R * Cn;
      run.index[1 + Bn + b] = ((b * 5) % Bn) * I * Cn;  // a lookup table for B as well
    }
    if (k.interleaved) d.c_i = kSlices * Cn;  // slice v: rows strided by all slices
    d.c_index = 1;
    d.b_index = 1 + Bn;
    c_words = static_cast<std::size_t>(kSlices) * R * Cn;
  }
  if (k.gather) {
    // Batch b reads A slice (b·3) mod batch and B slice (b·5) mod batch (TTM core slices
    // chosen per token).
    run.index.assign(2 * Bn + 2, -1);
    for (int b = 0; b < Bn; ++b) {
      run.index[2 + b] = ((b * 3) % Bn) * R * I;
      run.index[2 + Bn + b] = ((b * 5) % Bn) * I * Cn;
    }
    d.a_index = 2;
    d.b_index = 2 + Bn;
  }
  run.A = randv(static_cast<std::size_t>(Bn) * R * I, 7);
  run.B = randv(static_cast<std::size_t>(Bn) * I * Cn, 8);
  run.C = randv(c_words, 9);
  return run;
}

/// Runs a contraction case on arrays of B banks, every operand view `off` words past a
/// bank boundary.
template <int LANES, int B>
void run_contract(ContractRun& run, int off) {
  ttsim_hls::contract_kernel<LANES, B>(view<B>(run.A, off), view<B>(run.B, off), view<B>(run.C, off), run.d,
                                       run.index.data());
}

/// Largest accesses to one bank in one iteration measured so far, by (kernel, loop, array):
/// over every case, shape and lane count, each loop's access sites must all be reached, so
/// the maximum equals what the specification declares (a declared site no run reaches, or
/// an over-declared count that would inflate the priced ResMII, fails at the end).
using MaxSeen = std::map<std::tuple<std::string, std::string, std::string>, int>;
MaxSeen& max_seen() {
  static MaxSeen m;
  return m;
}
void record_max(const char* task_op, const Loops& m) {
  for (const auto& [loop, ml] : m) {
    for (const auto& [array, n] : ml.max_bank_accesses) {
      int& v = max_seen()[{task_op, loop, array}];
      v = std::max(v, n);
    }
  }
}

/// Violations of every kernel run with LANES lanes over every shape, on arrays of LANES
/// and 2·LANES banks, views aligned to a bank boundary and 5 words past one; failures
/// name the case.
template <int LANES, int P>
void check_every_kernel_banks(std::set<int>* variants_seen) {
  for (const int off : {0, 5}) {
    for (const RowCase& k : kRowCases) {
      for (const RowShape& s : kRowShapes) {
        SpecShape shape;
        const Loops m = probe(P, [&] { shape = run_row<LANES, P>(k.op, s.R, s.cols, off); });
        record_max(k.task_op, m);
        const auto v = ttsim_hls::check_kernel(k.task_op, m, k.variant, shape, LANES);
        EXPECT_TRUE(v.empty()) << k.name << " R " << s.R << " cols " << s.cols << " lanes "
                               << LANES << " banks " << P << " offset " << off << ":\n" << join(v);
        // The transpose's `DEPENDENCE tile intra false`: no iteration reads a tile word it wrote.
        if (k.op == RowOp::kTranspose && s.R > 0 && s.cols > 0) {
          ASSERT_TRUE(m.count("transpose"));
          EXPECT_GT(m.at("transpose").reads.count("tile"), 0u) << "the tile is probed";
          EXPECT_EQ(m.at("transpose").intra_raw_reads.count("tile"), 0u)
              << "R " << s.R << " cols " << s.cols << " lanes " << LANES;
        }
      }
    }
    for (const ContractCase& k : kContractCases) {
      for (const ContractShape& s : kContractShapes) {
        if (k.scatter && s.batch < 3) continue;  // no batch shares a slice
        ContractRun run = make_contract(k, s);
        const int variant = ttsim_hls::contract_variant(run.d);
        variants_seen->insert((variant & ~ttsim_spec::kContractUnitCj) | (k.accumulate ? 64 : 0) | (k.scatter ? 128 : 0));
        const Loops m = probe(P, [&] { run_contract<LANES, P>(run, off); });
        record_max("contraction", m);
        const auto v = ttsim_hls::check_kernel(
            "contraction", m, variant, SpecShape{s.batch, s.rows, s.inner, s.cols}, LANES);
        EXPECT_TRUE(v.empty()) << "contraction " << k.name << " (variant " << variant << ") shape "
                               << s.batch << "x" << s.rows << "x" << s.inner << "x" << s.cols
                               << " lanes " << LANES << " banks " << P << " offset " << off << ":\n"
                               << join(v);
      }
    }
  }
}

/// Calls of check_contraction_dual_port that ran paired (column rows or dot columns).
int& paired_calls() {
  static int n = 0;
  return n;
}

/// The contraction with dual-port lanes: LANES lanes on arrays of P < LANES banks (two
/// windows per lane site, banked.h), every case and shape, checked against the
/// specification's sites times lane_site_accesses(LANES, P). Not recorded in max_seen (its
/// lane sites take two accesses per bank by design).
template <int LANES, int P>
void check_contraction_dual_port() {
  for (const int off : {0, 5}) {
    for (const ContractCase& k : kContractCases) {
      for (const ContractShape& s : kContractShapes) {
        if (k.scatter && s.batch < 3) continue;
        ContractRun run = make_contract(k, s);
        const int variant = ttsim_hls::contract_variant(run.d);
        ContractRun ref = run;  // the same call at P lanes (one window per lane site)
        run_contract<P, P>(ref, off);
        const Loops m = probe(P, [&] { run_contract<LANES, P>(run, off); });
        const auto v = ttsim_hls::check_kernel("contraction", m, variant, SpecShape{s.batch, s.rows, s.inner, s.cols},
                                               LANES, P);
        EXPECT_TRUE(v.empty()) << "contraction " << k.name << " shape " << s.batch << "x" << s.rows << "x" << s.inner
                               << "x" << s.cols << " lanes " << LANES << " banks " << P << " offset " << off << ":\n"
                               << join(v);
        if ((variant & ttsim_spec::kContractFormMask) != ttsim_spec::kContractDot) {
          EXPECT_EQ(run.C, ref.C) << "contraction " << k.name << ": column and scalar forms sum in the same order at "
                                 << LANES << " and " << P << " lanes";
        } else if (LANES == 2 * P) {
          // Two window trees (paired or summed) are LaneTree<LANES> exactly: the dot form at
          // LANES lanes on LANES banks gives the same words.
          ContractRun wide = make_contract(k, s);
          run_contract<LANES, LANES>(wide, off);
          EXPECT_EQ(run.C, wide.C) << "contraction " << k.name << ": the dot form's two window trees at " << LANES
                                   << " lanes on " << P << " banks differ from one " << LANES << "-lane tree";
        } else {  // one tree of LANES lanes read in two windows: the same sums to rounding
          ASSERT_EQ(run.C.size(), ref.C.size());
          for (std::size_t i = 0; i < run.C.size(); ++i) {
            EXPECT_NEAR(run.C[i], ref.C[i], 1e-5f * (1.0f + std::fabs(ref.C[i])))
                << "contraction " << k.name << " word " << i << " at " << LANES << " lanes on " << P << " banks";
          }
        }
        const bool dot = (variant & ttsim_spec::kContractFormMask) == ttsim_spec::kContractDot;
        const bool column = (variant & ttsim_spec::kContractFormMask) == ttsim_spec::kContractColumn ||
                            (variant & ttsim_spec::kContractFormMask) == ttsim_spec::kContractColumnAcc;
        if ((dot && ttsim_spec::dot_cols_paired(variant, s.inner, LANES, P)) ||
            (column && ttsim_spec::column_rows_paired(s.cols, LANES, P))) {
          ++paired_calls();
        }
      }
    }
  }
}

template <int LANES>
void check_every_kernel(std::set<int>* variants_seen) {
  check_every_kernel_banks<LANES, LANES>(variants_seen);
  check_every_kernel_banks<LANES, 2 * LANES>(variants_seen);
}

class KernelsMatchSpec : public ::testing::Test {
 protected:
  static std::set<int> seen_;
  static void TearDownTestSuite() {
    // Every form, with and without reduce_batch and accumulate, and every form scattered.
    for (int form : {ttsim_spec::kContractColumn, ttsim_spec::kContractDot, ttsim_spec::kContractScalar}) {
      // An accumulating call of the column form runs the column_acc loop.
      const int acc_form = form == ttsim_spec::kContractColumn ? ttsim_spec::kContractColumnAcc : form;
      for (int reduce : {0, ttsim_spec::kContractReduceBatch}) {
        EXPECT_TRUE(seen_.count(form | reduce)) << "form " << form << " reduce " << reduce << " not covered";
        EXPECT_TRUE(seen_.count(acc_form | reduce | 64))
            << "form " << form << " reduce " << reduce << " accumulate not covered";
      }
      EXPECT_TRUE(seen_.count(acc_form | 64 | 128)) << "form " << form << " scatter not covered";
    }
    // Every declared access of every loop reached by some run, and never more.
    for (const ttsim_spec::KernelSpec& k : ttsim_spec::kKernelSpecs) {
      for (int l = 0; l < k.n_loops; ++l) {
        const ttsim_spec::LoopSpec& loop = k.loops[l];
        for (int a = 0; a < loop.n_access; ++a) {
          const ttsim_spec::ArrayAccess& acc = loop.access[a];
          const auto it = max_seen().find({k.task_op, loop.name, acc.array});
          const int measured = it == max_seen().end() ? 0 : it->second;
          EXPECT_EQ(measured, acc.reads + acc.writes)
              << k.task_op << " " << loop.name << " " << acc.array
              << ": most accesses to one bank in one iteration over every run vs the specification's sites";
        }
      }
    }
  }
};
std::set<int> KernelsMatchSpec::seen_;

TEST_F(KernelsMatchSpec, Lanes1) { check_every_kernel<1>(&seen_); }
TEST_F(KernelsMatchSpec, Lanes2) { check_every_kernel<2>(&seen_); }
TEST_F(KernelsMatchSpec, Lanes3) { check_every_kernel<3>(&seen_); }
TEST_F(KernelsMatchSpec, Lanes4) { check_every_kernel<4>(&seen_); }
TEST_F(KernelsMatchSpec, Lanes8) {
  check_every_kernel<8>(&seen_);
  check_every_kernel_banks<8, 64>(&seen_);  // the reference design's nonlinear units on 64-bank arenas
}
TEST_F(KernelsMatchSpec, Lanes16) { check_every_kernel<16>(&seen_); }
TEST_F(KernelsMatchSpec, Lanes32) { check_every_kernel<32>(&seen_); }
TEST_F(KernelsMatchSpec, Lanes64) { check_every_kernel<64>(&seen_); }
// Dual-port lanes: the contraction on half (or fewer) as many banks as lanes.
TEST_F(KernelsMatchSpec, DualPortLanes) {
  check_contraction_dual_port<2, 1>();
  check_contraction_dual_port<8, 4>();
  check_contraction_dual_port<12, 8>();
  const int before = paired_calls();
  check_contraction_dual_port<128, 64>();
  EXPECT_GT(paired_calls(), before) << "no call of the 128-lane run took the paired path";
}

// A scatter whose batches share C elements at different output slots (slices offset by
// one row) brings a write and a read of one element closer than kAccMinSlots: the probe
// sees it, the specification's distance does not hold.
// A contraction whose C lies inside A's buffer (C written at one output slot, read back as
// A a few iterations later): the probe keys words by address, so the read through A closes
// a recurrence the specification does not declare.
TEST(Injection, OutputAliasingAnInputIsReported) {
  ContractCase k{"column", ttsim_spec::kContractColumn, false, false, false, false};
  const ContractShape shape{1, 16, 8, 8};  // two chunks of 16 slots: the second reads what the first wrote
  ContractRun run = make_contract(k, shape);
  Vf buf(run.A.size() + 200, 0.5f);
  const auto a = ttsim_hls::bank_view<4>(buf.data());
  const Loops m = probe(4, [&] { ttsim_hls::contract_kernel<4, 4>(a, view<4>(run.B, 0), a + 8, run.d); });
  const auto v = ttsim_hls::check_kernel("contraction", m, ttsim_hls::contract_variant(run.d),
                                         SpecShape{1, 16, 8, 8}, 4);
  EXPECT_TRUE(any_contains(v, "undeclared recurrence through A")) << join(v);
}

TEST(Injection, MisalignedScatterIsReported) {
  ContractCase k{"column scatter", ttsim_spec::kContractColumn, false, true, true, false};
  ContractRun run = make_contract(k, ContractShape{4, 3, 2, 8});
  for (int b = 0; b < 4; ++b) run.index[run.d.c_index + b] = b * run.d.c_i;  // batch b starts one row lower
  run.C.resize(run.C.size() + 4 * 8);
  const Loops m = probe(4, [&] { run_contract<4, 4>(run, 0); });
  const auto v = ttsim_hls::check_kernel("contraction", m, ttsim_hls::contract_variant(run.d),
                                         SpecShape{4, 3, 2, 8}, 4);
  EXPECT_TRUE(any_contains(v, "recurrence through C at distance", "< declared distance 12")) << join(v);
}

// ---- what was measured, lanes 16 -----------------------------------------------

std::string fmt_map(const std::map<std::string, std::int64_t>& m) {
  std::string s;
  for (const auto& kv : m) s += (s.empty() ? "" : " ") + kv.first + "=" + std::to_string(kv.second);
  return s.empty() ? "-" : s;
}

void print_rows(const char* what, const char* task_op, const Loops& m) {
  for (const auto& kv : m) {
    const ttsim_spec::LoopSpec* l = ttsim_spec::find_loop(task_op, kv.first.c_str());
    std::string banks, decl, recs;
    for (const auto& b : kv.second.max_bank_accesses) {
      banks += (banks.empty() ? "" : " ") + b.first + "=" + std::to_string(b.second);
    }
    if (l) {
      for (int i = 0; i < l->n_access; ++i) {
        decl += (decl.empty() ? "" : " ") + std::string(l->access[i].array) + "=" +
                std::to_string(l->access[i].reads + l->access[i].writes);
      }
      for (int i = 0; i < l->n_rec; ++i) {
        recs += (recs.empty() ? "" : " ") + std::string(l->rec[i].variable) + "=" +
                std::to_string(l->rec[i].distance);
      }
    }
    std::printf("| %-28s | %-22s | %-40s | %-40s | %-28s | %-26s |\n", what, kv.first.c_str(),
                banks.c_str(), decl.c_str(), fmt_map(kv.second.min_distance).c_str(),
                recs.empty() ? "-" : recs.c_str());
  }
}

TEST(Report, Lanes16) {
  constexpr int L = 16;
  std::printf("lanes 16, 16 banks, views 5 words past a bank boundary; row kernels R 33 cols 100, "
              "contraction 4x3x64x5 / 4x17x5x96\n");
  std::printf("| %-28s | %-22s | %-40s | %-40s | %-28s | %-26s |\n", "kernel", "loop",
              "measured max accesses/bank/iteration", "spec reads+writes", "measured min distance",
              "spec recurrence distance");
  for (const RowCase& k : kRowCases) {
    if (k.op == RowOp::kSoftmaxMasked || k.op == RowOp::kAddBroadcast) continue;
    const Loops m = probe(L, [&] { run_row<L, L>(k.op, 33, 100, 5); });
    print_rows(k.name, k.task_op, m);
  }
  for (const ContractCase& k : kContractCases) {
    if (k.accumulate && !k.scatter) continue;
    const ContractShape s = k.form == ttsim_spec::kContractDot ? ContractShape{4, 3, 64, 5}
                                                               : ContractShape{4, 17, 5, 96};
    ContractRun run = make_contract(k, s);
    const Loops m = probe(L, [&] { run_contract<L, L>(run, 5); });
    print_rows((std::string("contraction ") + k.name).c_str(), "contraction", m);
  }
}

}  // namespace
