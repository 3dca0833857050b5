// The workload report's totals agree with the task graphs it builds and with the
// model's parameter counts.

#include "models/workload_report.h"

#include <gtest/gtest.h>

#include "core/errors.h"

namespace ttsim {
namespace {

TEST(WorkloadReport, TotalsMatchGraphsAndParameters) {
  for (const char* name : {"atis_2enc", "atis_6enc", "bert_like_ffn3072"}) {
    SCOPED_TRACE(name);
    const auto m = load_model_spec(std::string("configs/models/") + name + ".json");
    const auto r = build_workload_report(m, Flow::kBTT, {32, 128});
    std::int64_t dense = 0, compressed = 0;
    for (const auto& l : r.layers) {
      dense += l.params_dense;
      compressed += l.params_compressed;
    }
    EXPECT_EQ(dense, m.dense_params());
    EXPECT_EQ(compressed, m.compressed_params());
    for (const char* f : {"mm", "tt", "btt"}) {
      const auto& t = r.totals.at(f);
      // Per-layer flow formulas summed == MACs of the task graph built with that flow.
      EXPECT_EQ(t.macs.macs(), t.graph.total_macs) << f;
      EXPECT_EQ(t.macs.forward.macs, t.graph.macs_by_stage.at("forward")) << f;
      EXPECT_GT(t.graph_critical_path_tasks, t.graph_critical_path_contractions);
    }
    EXPECT_LT(r.totals.at("btt").macs.macs(), r.totals.at("tt").macs.macs());
    EXPECT_LT(r.totals.at("btt").macs.macs(), r.totals.at("mm").macs.macs());
    ASSERT_EQ(r.comparison.size(), 2u);
    EXPECT_EQ(r.comparison_layer, "enc0.q");
    const auto j = to_json(r);
    EXPECT_EQ(j.at("layers").size(), r.layers.size());
    EXPECT_EQ(j.at("dense_bytes").get<std::int64_t>(), 4 * m.dense_params());
  }
}

TEST(WorkloadReport, RejectsBadTokenCount) {
  const auto m = load_model_spec("configs/models/atis_2enc.json");
  EXPECT_THROW(build_workload_report(m, Flow::kBTT, {32, 0}), InputError);
}

TEST(GraphCriticalPath, ChainOfThree) {
  TaskGraph g;
  for (int i = 0; i < 4; ++i) {
    Task t;
    t.id = i;
    t.op = i == 1 ? TaskOp::kAdd : TaskOp::kContraction;
    if (i == 1 || i == 2) t.deps = {i - 1};
    g.tasks.push_back(t);
  }
  const auto [tasks, contractions] = graph_critical_path(g);
  EXPECT_EQ(tasks, 3);
  EXPECT_EQ(contractions, 2);
}

}  // namespace
}  // namespace ttsim
