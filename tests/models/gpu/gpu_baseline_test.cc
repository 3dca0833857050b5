#include "models/gpu/gpu_baseline.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "models/gpu/torch_layers.h"

namespace ttsim {
namespace {

GpuSpec rtx3090() { return load_gpu_spec("configs/devices/rtx3090.json"); }

TEST(GpuSpec, ShippedFileHasEveryConstantWithASource) {
  const GpuSpec g = rtx3090();
  EXPECT_EQ(g.name, "rtx3090");
  for (const auto& name : gpu_constant_names()) {
    ASSERT_TRUE(g.constants.count(name)) << name;
    const GpuConstant& c = g.constants.at(name);
    EXPECT_FALSE(c.source.empty()) << name;
    if (c.kind == "assumption") {
      EXPECT_NE(c.source.find("assumption"), std::string::npos) << name;
    }
    EXPECT_LE(c.lo, c.value) << name;
    EXPECT_GE(c.hi, c.value) << name;
  }
  const Json j = g.to_json();
  EXPECT_EQ(j["constants"].size(), gpu_constant_names().size());
  EXPECT_TRUE(j["constants"]["p2_idle_watts"].contains("source"));
}

TEST(GpuSpec, MalformedFilesNameFilePointerExpectedAndFound) {
  Json doc = load_json_file("configs/devices/rtx3090.json");
  Json bad = doc;
  bad["constants"].erase("sync_us");
  try {
    parse_gpu_spec(bad, "bad.json");
    FAIL() << "missing constant accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_NE(std::string(e.what()).find("sync_us"), std::string::npos) << e.what();
  }
  bad = doc;
  bad["constants"]["p2_idle_watts"]["range"] = {120, 130};  // value 100 outside
  try {
    parse_gpu_spec(bad, "bad.json");
    FAIL() << "value outside its range accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/constants/p2_idle_watts/range");
    EXPECT_NE(std::string(e.what()).find("found [120,130]"), std::string::npos) << e.what();
  }
  bad = doc;
  bad["constants"]["forward_op_dispatch_us"]["kind"] = "guess";
  EXPECT_THROW(parse_gpu_spec(bad, "bad.json"), ConfigError);
  bad = doc;
  bad["constants"]["busy_watts"]["value"] = 50;  // below the P2 figures
  EXPECT_THROW(parse_gpu_spec(bad, "bad.json"), ConfigError);
  bad = doc;
  bad["constants"]["extra"] = {{"value", 1}, {"unit", "x"}, {"kind", "assumption"}, {"source", "assumption"}};
  EXPECT_THROW(parse_gpu_spec(bad, "bad.json"), ConfigError);
}

LinearLayerSpec tt_layer() {
  LinearLayerSpec l;
  l.name = "enc0.q";
  l.kind = "attention";
  l.in_dim = 768;
  l.out_dim = 768;
  l.format = WeightFormat::kTT;
  l.tt.in_factors = {12, 8, 8};
  l.tt.out_factors = {8, 8, 12};
  l.tt.ranks = {1, 12, 12, 12, 12, 12, 1};
  return l;
}

struct Counts {
  int fwd_ops = 0, fwd_kernel_ops = 0, fwd_kernels = 0, bwd_nodes = 0, bwd_kernel_nodes = 0, bwd_kernels = 0;
  int module_calls = 0;
};

Counts count(const LinearLayerSpec& l, Flow flow, double rows) {
  TorchProgram p;
  TorchStepBuilder b(p);
  linear_ops(b, l, flow, rows);
  b.finish_backward();
  Counts c;
  for (const TorchOp& o : p.ops) {
    const int k = static_cast<int>(o.kernels.size());
    if (o.dispatch == DispatchKind::kModuleCall) {  // Python, not a dispatcher call
      c.module_calls += 1;
      continue;
    }
    if (o.phase == OpPhase::kBackward) {
      c.bwd_nodes += 1;
      c.bwd_kernel_nodes += k > 0;
      c.bwd_kernels += k;
    } else {
      c.fwd_ops += 1;
      c.fwd_kernel_ops += k > 0;
      c.fwd_kernels += k;
    }
  }
  return c;
}

// Hand count for one TT linear layer, M = 12·8·8, N = 8·8·12, ranks 1,12,12,12,12,12,1,
// K = 32 rows, sequential flow, as eager PyTorch's autograd runs this forward:
//
//   for k, core in enumerate(in_cores):          # core: (r, m, r2)
//       t = t.reshape(K, m, rest, r)             # view
//       t = t.permute(0, 2, 1, 3)                # view
//       t = t.contiguous()                       # copy kernel unless m == 1 or rest == 1
//       t = t.view(K * rest, m * r)              # view
//       w = core.permute(1, 0, 2)                # view
//       w = w.contiguous()                       # copy kernel unless r == 1 or m == 1
//       w = w.view(m * r, r2)                    # view
//       t = torch.mm(t, w)                       # 1 GEMM
//   for core in out_cores:                       # core: (r, n, r2)
//       t = torch.mm(t, core.view(r, n * r2))    # view + 1 GEMM
//       t = t.view(-1, r2)                       # view
//   y = t.view(K, N) + bias                      # view + 1 add
//
// Forward: 3 input steps × 8 ops + 3 output steps × 3 ops + 2 = 35 ops. Copies: input
// step 1 (m 12, rest 64, r 1): t only; step 2 (m 8, rest 8, r 12): t and core; step 3
// (rest 1): core only → 4 copies + 6 GEMMs + 1 add = 11 kernels, from 11 ops; 24 views.
// Backward (autograd nodes): per input step MmBackward0 (2 GEMMs: grad of both operands),
// ViewBackward0 and PermuteBackward0 on the core path, CloneBackward0 where a copy was
// made, AccumulateGrad (1 copy kernel when the gradient arrives permuted, i.e. when the
// core was copied: steps 2, 3), ViewBackward0 + PermuteBackward0 on the t path, and the
// reshape's ViewBackward0 (1 copy kernel when the gradient is not viewable, i.e. when t
// was copied: steps 1, 2) → 7 nodes + 1 CloneBackward0 per copy: 8 + 9 + 8 = 25 nodes;
// kernels 3 + 4 + 3 = 10 in 7 nodes. Per output step ViewBackward0, MmBackward0 (2 GEMMs),
// ViewBackward0, AccumulateGrad → 12 nodes, 6 kernels in 3 nodes. Bias: ViewBackward0,
// AddBackward0 (1 reduction kernel: sum_to_size of the broadcast bias), AccumulateGrad.
// Total backward: 25 + 12 + 3 = 40 nodes, 17 kernels in 11 nodes.
TEST(TorchLayers, TtLinearSequentialMatchesTheHandCountOfAutograd) {
  const Counts c = count(tt_layer(), Flow::kTT, 32);
  EXPECT_EQ(c.module_calls, 1);  // the layer's nn.Module.__call__
  EXPECT_EQ(c.fwd_ops, 35);
  EXPECT_EQ(c.fwd_kernel_ops, 11);
  EXPECT_EQ(c.fwd_kernels, 11);
  EXPECT_EQ(c.bwd_nodes, 40);
  EXPECT_EQ(c.bwd_kernel_nodes, 11);
  EXPECT_EQ(c.bwd_kernels, 17);
}

// Hand count for the same layer with the BTT flow:
//   L = core1.view(12, 12); for each next input core: L = mm(L, core.view(12, 8*12)).view(-1, 12)
//   R = core4.view(12*8, 12); for each next output core: R = mm(R, core.view(12, n*r2)).view(-1, r2)
//   R = R.view(12, 768); y = mm(mm(x, L), R).view(K, N) + bias
// Forward: per chain 1 + 2 × 3 = 7 ops (2 GEMMs), R view 1, 2 mm, view + add 2 → 19 ops,
// 7 kernels. Backward: per chain ViewBackward0 + AccumulateGrad for the first core and 4
// nodes per merge (ViewBackward0, MmBackward0, ViewBackward0, AccumulateGrad) = 10;
// ViewBackward0 of R; 2 MmBackward0; bias 3 nodes → 26 nodes; kernels 2 × 2 × 2 + 2 × 2
// + 1 = 13 in 7 nodes. No copies: every reshape of BTT is a view.
TEST(TorchLayers, TtLinearBttMatchesTheHandCountOfAutograd) {
  const Counts c = count(tt_layer(), Flow::kBTT, 32);
  EXPECT_EQ(c.fwd_ops, 19);
  EXPECT_EQ(c.fwd_kernels, 7);
  EXPECT_EQ(c.bwd_nodes, 26);
  EXPECT_EQ(c.bwd_kernel_nodes, 7);
  EXPECT_EQ(c.bwd_kernels, 13);
}

// nn.Linear: weight.t() (view) + addmm (1 kernel); AddmmBackward0 (2 GEMMs + bias sum),
// TBackward0, two AccumulateGrad.
TEST(TorchLayers, DenseLinearIsAddmmAndItsBackward) {
  LinearLayerSpec l = tt_layer();
  l.format = WeightFormat::kDense;
  const Counts c = count(l, Flow::kTT, 32);
  EXPECT_EQ(c.fwd_ops, 2);
  EXPECT_EQ(c.fwd_kernels, 1);
  EXPECT_EQ(c.bwd_nodes, 4);
  EXPECT_EQ(c.bwd_kernels, 3);
}

ModelSpec preset() { return load_model_spec("configs/models/atis_2enc.json"); }

TorchProgram step_program(Flow flow, bool foreach, const GpuSpec& g) {
  return torch_training_step(preset(), flow, 32, foreach, g.at("foreach_max_tensors"), g.at("foreach_max_blocks"),
                             g.at("foreach_chunk_elements"));
}

TEST(GpuStep, PowerNeverBelowTheP2FigureWhileAStepRuns) {
  const GpuSpec base = rtx3090();
  for (Flow flow : {Flow::kMM, Flow::kTT, Flow::kBTT}) {
    for (const auto& [name, c] : base.constants) {
      if (!c.has_range) continue;
      for (double v : {c.lo, c.hi}) {
        const GpuSpec g = base.with(name, v);
        const GpuStep s = gpu_step(step_program(flow, true, g), g);
        EXPECT_GE(s.power_watts, g.at("p2_idle_watts")) << name << " = " << v;
        EXPECT_LE(s.power_watts, g.at("busy_watts")) << name << " = " << v;
      }
    }
  }
  // A step with nothing but a synchronisation still draws P2 idle.
  TorchProgram sync_only;
  TorchOp sync;
  sync.dispatch = DispatchKind::kSync;
  sync_only.ops.push_back(sync);
  EXPECT_DOUBLE_EQ(gpu_step(sync_only, base).power_watts, base.at("p2_idle_watts"));
}

TEST(GpuStep, EnergyIsMonotoneInStepTime) {
  const GpuSpec g = rtx3090();
  // Same kernels, longer step: more energy.
  double last = -1;
  for (double seconds : {0.001, 0.002, 0.005, 0.01, 0.1}) {
    const double e = gpu_step_energy(seconds, 0.001, 0.0001, g);
    EXPECT_GT(e, last);
    last = e;
  }
  // Slower host dispatch (a host-bound step) lengthens the step and raises its energy.
  double last_s = 0, last_e = 0;
  for (double us : {5.0, 7.0, 10.0, 20.0}) {
    const GpuSpec gs = g.with("forward_op_dispatch_us", us);
    const GpuStep s = gpu_step(step_program(Flow::kTT, true, gs), gs);
    EXPECT_GT(s.seconds, last_s);
    EXPECT_GT(s.energy_joules, last_e);
    last_s = s.seconds;
    last_e = s.energy_joules;
  }
}

TEST(GpuStep, StepIsTheLongerChainPlusTheSync) {
  const GpuSpec g = rtx3090();
  const GpuStep s = gpu_step(step_program(Flow::kTT, true, g), g);
  EXPECT_DOUBLE_EQ(s.seconds, std::max(s.host_seconds, s.kernel_seconds) + s.sync_seconds);
  EXPECT_DOUBLE_EQ(s.sync_seconds, g.at("sync_us") * 1e-6);
  EXPECT_LE(s.roofline_seconds, s.kernel_seconds);
}

// The Python side of a step: one nn.Module.__call__ per module a PyTorch implementation
// calls (model; token and position embeddings and their LayerNorm; per encoder the layer,
// its attention, q, k, v, o, two LayerNorms, ffn_in, GELU, ffn_out; two heads; two losses),
// the loop's own work once, and one host-to-device copy per input tensor — each priced by
// its constant of the GPU file on the host chain.
TEST(GpuStep, HostCostsOfTheTrainingLoopAreOnTheHostChain) {
  const GpuSpec g = rtx3090();
  const TorchProgram p = step_program(Flow::kTT, true, g);
  int modules = 0, python = 0, copies = 0;
  for (const TorchOp& o : p.ops) {
    modules += o.dispatch == DispatchKind::kModuleCall;
    python += o.dispatch == DispatchKind::kPythonStep;
    copies += o.dispatch == DispatchKind::kHostCopy;
  }
  EXPECT_EQ(modules, 1 + 3 + 2 * 11 + 2 + 2);
  EXPECT_EQ(python, 1);
  EXPECT_EQ(copies, 3);
  const GpuStep s = gpu_step(p, g);
  EXPECT_EQ(s.module_calls, modules);
  const GpuSpec none = g.with("module_call_us", 0).with("python_step_us", 0).with("h2d_copy_us", 0);
  const GpuStep without = gpu_step(p, none);
  EXPECT_NEAR(s.host_seconds - without.host_seconds,
              (modules * g.at("module_call_us") + g.at("python_step_us") + 3 * g.at("h2d_copy_us")) * 1e-6, 1e-12);
  EXPECT_EQ(s.ops, without.ops);
}

TEST(GpuStep, SgdWithoutForeachLaunchesOneKernelPerParameterTensor) {
  const GpuSpec g = rtx3090();
  const TorchProgram with = step_program(Flow::kTT, true, g), without = step_program(Flow::kTT, false, g);
  const auto n = static_cast<std::int64_t>(without.parameter_bytes.size());
  EXPECT_EQ(without.kernels(OpPhase::kOptimizer), n);
  EXPECT_EQ(without.count(OpPhase::kOptimizer), n + 1);  // + zero_grad
  // foreach: ceil(tensors / 110) launches at least (the chunk limit can add more).
  EXPECT_GE(with.kernels(OpPhase::kOptimizer), (n + 109) / 110);
  EXPECT_LT(with.kernels(OpPhase::kOptimizer), n);
  EXPECT_LT(gpu_step(with, g).seconds, gpu_step(without, g).seconds);
}

TEST(GpuMemory, AllocatorReservesAtLeastWhatItAllocates) {
  const GpuSpec g = rtx3090();
  ModelSpec dense = preset();
  dense.token_embedding.format = WeightFormat::kDense;
  const GpuMemory m = gpu_memory(torch_training_step(dense, Flow::kMM, 32, true, g.at("foreach_max_tensors"),
                                                     g.at("foreach_max_blocks"), g.at("foreach_chunk_elements")),
                                 g);
  const double sum = m.weights + m.gradients + m.activations + m.temporaries + m.workspace;
  EXPECT_GE(m.allocated, sum);
  EXPECT_GE(m.reserved, m.allocated);
  EXPECT_DOUBLE_EQ(m.context, g.at("cuda_context_bytes"));
  EXPECT_DOUBLE_EQ(m.total(), m.reserved + m.context);
  // Dense weights of the 2-encoder preset as stored by PyTorch: FP32, one tensor each.
  EXPECT_NEAR(m.weights, 4.0 * static_cast<double>(dense.dense_params()), 1.0);
}

}  // namespace
}  // namespace ttsim
