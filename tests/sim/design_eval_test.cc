// evaluate_design: one SystemC evaluation per canonical design while it is among the
// kSystemcCacheEntries most recently used, re-evaluated (same figures) once evicted; the
// analytic fidelity is computed afresh every call, on a graph reshaped from the thread's
// last graph of the same structure: the same figures as a graph built afresh, and an
// evaluation still held keeps its own graph.

#include "sim/design_eval.h"

#include <gtest/gtest.h>

#include "models/model_spec.h"
#include "models/training_graph.h"
#include "sim/step_sim.h"
#include "sim/arch_spec.h"
#include "sim/device_spec.h"

namespace ttsim {
namespace {

TEST(DesignEval, SystemcEvaluationsAreCachedByDesignAndTheCacheIsBounded) {
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  arch.unit(UnitKind::kContraction).lanes = 4;
  const auto first = evaluate_design(model, arch, device, nullptr, Fidelity::kSystemC);
  EXPECT_EQ(evaluate_design(model, arch, device, nullptr, Fidelity::kSystemC), first);  // the same object
  EXPECT_NE(evaluate_design(model, arch, device, nullptr, Fidelity::kAnalytic), first);
  // As many other designs as the cache holds (clocks from 101 MHz) evict the first.
  for (std::size_t k = 0; k < kSystemcCacheEntries; ++k) {
    ArchSpec other = arch;
    other.clock_mhz = 101 + static_cast<double>(k);
    evaluate_design(model, other, device, nullptr, Fidelity::kSystemC);
  }
  const auto again = evaluate_design(model, arch, device, nullptr, Fidelity::kSystemC);
  EXPECT_NE(again, first);
  EXPECT_EQ(again->step.run.schedule.makespan, first->step.run.schedule.makespan);
}

/// `m` with every interior bond of the TT layers of encoder `e` and kind `kind` at `rank`.
ModelSpec with_rank(ModelSpec m, int e, const std::string& kind, std::int64_t rank) {
  for (auto& l : m.linears) {
    if (l.encoder != e || l.kind != kind || l.format != WeightFormat::kTT) continue;
    for (std::size_t k = 1; k + 1 < l.tt.ranks.size(); ++k) l.tt.ranks[k] = rank;
  }
  return m;
}

TEST(DesignEval, ReshapedGraphsPriceAsBuiltOnesAndHeldEvaluationsKeepTheirs) {
  const ModelSpec base = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  EngineOptions analytic;
  analytic.analytic = true;
  const ModelSpec a = with_rank(base, 0, "ffn_in", 4), b = with_rank(with_rank(base, 1, "attention", 16), 0, "ffn_out", 8);
  const auto held = evaluate_design(a, arch, device, nullptr, Fidelity::kAnalytic);
  const TaskGraph held_graph = held->step.graph();
  // Same structure, other ranks: reshaped (the first graph is held, so copied first).
  for (const ModelSpec* m : {&b, &a, &b}) {
    const auto e = evaluate_design(*m, arch, device, nullptr, Fidelity::kAnalytic);
    const StepResult fresh = simulate_step(*m, arch, device, 0, analytic);
    EXPECT_EQ(e->step.run.schedule.makespan, fresh.run.schedule.makespan);
    EXPECT_EQ(e->machine().bram36(), fresh.machine->bram36());
    EXPECT_EQ(e->machine().uram288(), fresh.machine->uram288());
    EXPECT_EQ(e->machine().onchip_bytes(), fresh.machine->onchip_bytes());
    ASSERT_EQ(e->step.graph().buffers.size(), fresh.graph().buffers.size());
    for (std::size_t i = 0; i < fresh.graph().buffers.size(); ++i) {
      EXPECT_EQ(e->step.graph().buffers[i].words, fresh.graph().buffers[i].words) << fresh.graph().buffers[i].name;
    }
    for (std::size_t i = 0; i < fresh.graph().tasks.size(); ++i) {
      EXPECT_EQ(e->step.graph().tasks[i].macs, fresh.graph().tasks[i].macs) << fresh.graph().tasks[i].name;
    }
  }
  ASSERT_NE(a.compressed_params(), b.compressed_params());  // the two graphs differ
  // The held evaluation's graph did not change under it.
  ASSERT_EQ(held->step.graph().buffers.size(), held_graph.buffers.size());
  for (std::size_t i = 0; i < held_graph.buffers.size(); ++i) {
    EXPECT_EQ(held->step.graph().buffers[i].words, held_graph.buffers[i].words);
  }
  const TaskGraph built_a = build_training_graph(a, graph_options(arch, 0));
  for (std::size_t i = 0; i < built_a.tasks.size(); ++i) {
    EXPECT_EQ(held->step.graph().tasks[i].macs, built_a.tasks[i].macs);
  }
}

}  // namespace
}  // namespace ttsim
