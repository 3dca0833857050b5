// Every kernel the simulator models (every TaskOp of models/task_graph.h, every variant)
// is run in C simulation with the loop counters on, for several shapes and lane counts,
// and its per-loop iteration counts must equal the kernel specification's trip counts
// (hls/include/kernel_spec.h loop_trip), which the simulator prices.

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "hls/include/kernel_spec.h"
#include "hls/include/loop_counter.h"
#include "hls/kernels/contract.h"
#include "hls/include/banked.h"
#include "hls/kernels/add.h"
#include "hls/kernels/gelu.h"
#include "hls/kernels/layernorm.h"
#include "hls/kernels/loss.h"
#include "hls/kernels/sgd.h"
#include "hls/kernels/softmax.h"
#include "models/task_graph.h"

namespace {

using ttsim::TaskOp;
using ttsim::TaskShape;
using Counts = std::map<std::string, std::int64_t>;

Counts expected(TaskOp op, const TaskShape& s, int lanes) {
  Counts c;
  const ttsim_spec::KernelSpec& k = ttsim_spec::kKernelSpecs[ttsim_spec::kernel_index(ttsim::to_string(op))];
  for (int i = 0; i < k.n_loops; ++i) {
    const ttsim_spec::LoopSpec& l = k.loops[i];
    const long long trip =
        ttsim_spec::loop_trip(l.trip, l.variant, s.variant, s.batch, s.rows, s.inner, s.cols, lanes);
    if (trip > 0) c[l.name] += trip;
  }
  return c;
}

std::vector<float> randv(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

// A contraction of shape `s` whose operand strides select the form of s.variant (B read
// transposed for the dot form, C written column-major for the scalar form); degenerate
// extents can make a stride 1 and select another form: contract_variant() says which.
ttsim_hls::ContractDesc contraction_desc(const TaskShape& s) {
  const int B = static_cast<int>(s.batch), R = static_cast<int>(s.rows),
            I = static_cast<int>(s.inner), C = static_cast<int>(s.cols);
  ttsim_hls::ContractDesc d = ttsim_hls::plain_desc(R, I, C);
  d.batch = B;
  d.a_b = R * I; d.b_b = I * C; d.c_b = R * C;
  const int form = s.variant & ttsim_spec::kContractFormMask;
  if (form == ttsim_spec::kContractDot) {
    d.b_p = 1; d.b_j = I;
  } else if (form == ttsim_spec::kContractScalar) {
    d.c_i = 1; d.c_j = R;
    d.b_p = 1; d.b_j = I;
    d.a_i = 1; d.a_p = R;
  }
  d.reduce_batch = (s.variant & ttsim_spec::kContractReduceBatch) != 0;
  return d;
}

// Runs the kernel of `op` on `s` with LANES lanes and returns the counted iterations.
template <int LANES>
Counts run(TaskOp op, const TaskShape& s) {
  const int B = static_cast<int>(s.batch), R = static_cast<int>(s.rows),
            I = static_cast<int>(s.inner), C = static_cast<int>(s.cols);
  const int rows = B * R;
  std::vector<float> a = randv(static_cast<std::size_t>(B) * R * I + 1, 1);
  std::vector<float> b = randv(static_cast<std::size_t>(B) * I * C + 1, 2);
  std::vector<float> x = randv(static_cast<std::size_t>(rows) * C, 3);
  std::vector<float> y = randv(static_cast<std::size_t>(rows) * C, 4);
  std::vector<float> z(static_cast<std::size_t>(rows) * C);
  std::vector<float> g = randv(C, 5), be = randv(C, 6), stat(3 * rows), rstd(rows);
  std::vector<int> labels(rows);
  for (int r = 0; r < rows; ++r) labels[r] = r % C;
  ttsim_hls::LoopCountScope scope;
  switch (op) {
    case TaskOp::kContraction:
      ttsim_hls::contract_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(a.data()), ttsim_hls::bank_view<LANES>(b.data()), ttsim_hls::bank_view<LANES>(z.data()), contraction_desc(s));
      break;
    case TaskOp::kSoftmax:
      ttsim_hls::softmax_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), ttsim_hls::bank_view<LANES>(z.data()), rows, C, C, ttsim_hls::bank_view<LANES>(stat.data()));
      break;
    case TaskOp::kSoftmaxGrad:
      ttsim_hls::softmax_grad_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), ttsim_hls::bank_view<LANES>(z.data()), rows, C, ttsim_hls::bank_view<LANES>(stat.data()));
      break;
    case TaskOp::kLayerNorm:
      ttsim_hls::layernorm_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), ttsim_hls::bank_view<LANES>(g.data()), ttsim_hls::bank_view<LANES>(be.data()), ttsim_hls::bank_view<LANES>(z.data()), ttsim_hls::bank_view<LANES>(y.data()),
                                         ttsim_hls::bank_view<LANES>(rstd.data()), rows, C, ttsim_hls::bank_view<LANES>(stat.data()));
      break;
    case TaskOp::kLayerNormGrad: {
      std::vector<float> dg(C), db(C);
      ttsim_hls::layernorm_grad_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), ttsim_hls::bank_view<LANES>(y.data()), ttsim_hls::bank_view<LANES>(rstd.data()), ttsim_hls::bank_view<LANES>(g.data()), ttsim_hls::bank_view<LANES>(z.data()),
                                              ttsim_hls::bank_view<LANES>(dg.data()), ttsim_hls::bank_view<LANES>(db.data()), rows, C, ttsim_hls::bank_view<LANES>(stat.data()));
      break;
    }
    case TaskOp::kGelu:
      ttsim_hls::gelu_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), ttsim_hls::bank_view<LANES>(z.data()), rows, C);
      break;
    case TaskOp::kGeluGrad:
      ttsim_hls::gelu_grad_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), ttsim_hls::bank_view<LANES>(z.data()), rows, C);
      break;
    case TaskOp::kAdd:
      if (s.variant == ttsim_spec::kAddAccumulate) {
        ttsim_hls::add_accumulate_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), ttsim_hls::bank_view<LANES>(z.data()), rows, C, C, C);
      } else if (s.variant == ttsim_spec::kAddColumnSum) {
        ttsim_hls::column_sum_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), ttsim_hls::bank_view<LANES>(z.data()), rows, C, C);
      } else {
        ttsim_hls::transpose_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), ttsim_hls::bank_view<LANES>(z.data()), rows, C, C, rows);
      }
      break;
    case TaskOp::kLoss:
      ttsim_hls::loss_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), labels.data(), ttsim_hls::bank_view<LANES>(z.data()), rows, C, 1.0f, ttsim_hls::bank_view<LANES>(stat.data()));
      break;
    case TaskOp::kSgdUpdate:
      ttsim_hls::sgd_kernel<LANES, LANES>(ttsim_hls::bank_view<LANES>(x.data()), ttsim_hls::bank_view<LANES>(z.data()), rows * C, 0.1f);
      break;
  }
  return scope.counts();
}

const TaskOp kAllOps[] = {TaskOp::kContraction, TaskOp::kSoftmax,  TaskOp::kSoftmaxGrad,
                          TaskOp::kLayerNorm,   TaskOp::kLayerNormGrad, TaskOp::kGelu,
                          TaskOp::kGeluGrad,    TaskOp::kAdd,      TaskOp::kLoss,
                          TaskOp::kSgdUpdate};

std::vector<TaskShape> with_variants(std::vector<TaskShape> base, std::initializer_list<int> variants) {
  std::vector<TaskShape> out;
  for (int v : variants) {
    for (TaskShape s : base) {
      s.variant = v;
      out.push_back(s);
    }
  }
  return out;
}

std::vector<TaskShape> shapes(TaskOp op) {
  using namespace ttsim_spec;
  if (op == TaskOp::kSgdUpdate) {  // one parameter buffer: rows 1, cols words
    return {{1, 1, 1, 1}, {1, 1, 1, 7}, {1, 1, 1, 4896}, {1, 1, 1, 83400 / 10}};
  }
  if (op == TaskOp::kContraction) {
    return with_variants({{1, 1, 1, 1}, {1, 12, 12, 96}, {12, 32, 64, 32}, {1, 32, 768, 12},
                          {32, 64, 30, 240}, {3, 5, 7, 11}, {1, 127, 32, 768}},
                         {kContractColumn, kContractDot, kContractScalar,
                          kContractColumn | kContractReduceBatch, kContractDot | kContractReduceBatch});
  }
  std::vector<TaskShape> base = {{1, 1, 1, 1}, {1, 32, 1, 768}, {12, 32, 1, 32}, {1, 1, 1, 26}, {2, 3, 1, 17}};
  if (op == TaskOp::kAdd) return with_variants(base, {kAddAccumulate, kAddColumnSum, kAddTranspose});
  return base;
}

template <int LANES>
void check_all() {
  for (TaskOp op : kAllOps) {
    for (TaskShape s : shapes(op)) {
      if (op == TaskOp::kContraction) s.variant = ttsim_hls::contract_variant(contraction_desc(s));
      const Counts got = run<LANES>(op, s);
      EXPECT_EQ(got, expected(op, s, LANES))
          << ttsim::to_string(op) << " batch " << s.batch << " rows " << s.rows << " inner "
          << s.inner << " cols " << s.cols << " lanes " << LANES;
    }
  }
}

TEST(LoopCount, EveryTaskOpMatchesLoopNestLanes1) { check_all<1>(); }
TEST(LoopCount, EveryTaskOpMatchesLoopNestLanes2) { check_all<2>(); }
TEST(LoopCount, EveryTaskOpMatchesLoopNestLanes3) { check_all<3>(); }
TEST(LoopCount, EveryTaskOpMatchesLoopNestLanes8) { check_all<8>(); }
TEST(LoopCount, EveryTaskOpMatchesLoopNestLanes16) { check_all<16>(); }

TEST(LoopCount, CountingIsOffOutsideAScope) {
  std::vector<float> a(4, 1.0f), b(4, 1.0f), c(4);
  ttsim_hls::contract_kernel<1, 16>(ttsim_hls::bank_view<16>(a.data()), ttsim_hls::bank_view<16>(b.data()), ttsim_hls::bank_view<16>(c.data()), ttsim_hls::plain_desc(2, 2, 2));
  ttsim_hls::LoopCountScope scope;
  EXPECT_TRUE(scope.counts().empty());
}

// Lanes only shape the hardware: the column-form contraction and every maximum are
// bitwise identical across lane counts; sums reduced by a lane tree agree to FP32 rounding.
TEST(LoopCount, ResultsAcrossLanes) {
  const int R = 5, C = 37;
  std::vector<float> x = randv(R * C, 11), o1(R * C), o8(R * C), st(3 * R);
  ttsim_hls::softmax_kernel<1, 16>(ttsim_hls::bank_view<16>(x.data()), ttsim_hls::bank_view<16>(o1.data()), R, C, C, ttsim_hls::bank_view<16>(st.data()));
  ttsim_hls::softmax_kernel<8, 16>(ttsim_hls::bank_view<16>(x.data()), ttsim_hls::bank_view<16>(o8.data()), R, C, C, ttsim_hls::bank_view<16>(st.data()));
  for (int i = 0; i < R * C; ++i) EXPECT_NEAR(o1[i], o8[i], 1e-6f * (1.0f + std::fabs(o1[i])));
  std::vector<float> a = randv(3 * 9, 12), b = randv(9 * C, 13), c1(3 * C), c16(3 * C);
  ttsim_hls::contract_kernel<1, 16>(ttsim_hls::bank_view<16>(a.data()), ttsim_hls::bank_view<16>(b.data()), ttsim_hls::bank_view<16>(c1.data()), ttsim_hls::plain_desc(3, 9, C));
  ttsim_hls::contract_kernel<16, 16>(ttsim_hls::bank_view<16>(a.data()), ttsim_hls::bank_view<16>(b.data()), ttsim_hls::bank_view<16>(c16.data()), ttsim_hls::plain_desc(3, 9, C));
  EXPECT_EQ(c1, c16);
}

}  // namespace
