// Tests of the loop-latency composition rules (hls/reports/latency_rules.h).

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "hls/reports/latency_rules.h"
#include "hls/reports/report_set.h"

namespace ttsim::hls {
namespace {

LoopReport pipelined(std::int64_t trip, std::int64_t ii, std::int64_t depth) {
  LoopReport l;
  l.name = "p";
  l.trip_count = Count::exact(trip);
  l.pipeline_ii = Count::exact(ii);
  l.pipeline_depth = Count::exact(depth);
  l.pipeline_type = "yes";
  return l;
}

LoopReport sequential(std::int64_t trip, std::optional<std::int64_t> iteration) {
  LoopReport l;
  l.name = "s";
  l.trip_count = Count::exact(trip);
  if (iteration) l.iteration_latency = Count::exact(*iteration);
  l.pipeline_type = "no";
  return l;
}

TEST(LatencyRules, PipelinedAndSequentialLoops) {
  // Textbook (trip-1)*II + depth; HLS reports (trip-1)*II + max(depth-1, 1).
  EXPECT_EQ(rule_loop_latency(pipelined(784, 5, 8), RuleSet::kTextbook, {}, {}), 783 * 5 + 8);
  EXPECT_EQ(rule_loop_latency(pipelined(784, 5, 8), RuleSet::kHlsStates, {}, {}), 3922);  // mnist Loop3.1
  EXPECT_EQ(rule_loop_latency(pipelined(49, 1, 1), RuleSet::kHlsStates, {}, {}), 49);     // mnist Loop2
  EXPECT_EQ(rule_loop_latency(sequential(16, 26), RuleSet::kTextbook, {}, {}), 416);
  EXPECT_FALSE(rule_loop_latency(sequential(16, std::nullopt), RuleSet::kTextbook, {}, {}));
  LoopReport undef_trip = pipelined(1, 1, 2);
  undef_trip.trip_count = Count::unknown();
  EXPECT_FALSE(rule_loop_latency(undef_trip, RuleSet::kHlsStates, {}, {}));
  LoopReport range_trip = pipelined(1, 1, 2);
  range_trip.trip_count = Count::range(1, 25);
  EXPECT_FALSE(rule_loop_latency(range_trip, RuleSet::kHlsStates, {}, {}));
}

TEST(LatencyRules, PipelineDepthTermIsWhatTheCalibrationConvertsWith) {
  EXPECT_EQ(pipeline_depth_term(8, RuleSet::kTextbook), 8);
  EXPECT_EQ(pipeline_depth_term(8, RuleSet::kHlsStates), 7);
  EXPECT_EQ(pipeline_depth_term(1, RuleSet::kHlsStates), 1);  // never below 1
  EXPECT_EQ(pipelined_loop_latency(784, 5, 8, RuleSet::kHlsStates), 3922);
  EXPECT_EQ(pipelined_loop_latency(784, 5, 8, RuleSet::kTextbook), 783 * 5 + 8);
  EXPECT_EQ(pipelined_loop_latency(1, 3, 9, RuleSet::kTextbook), 9);
}

TEST(LatencyRules, NestedCompositionAndCalls) {
  // stencil3d loop_height (2023.2): 14 × (loop_col + 2), loop_col = 14 × (loop_row + 2),
  // loop_row = 6 × 6 (leaf body read from the report) → 7476 as reported.
  LoopReport row = sequential(6, 6);
  LoopReport col = sequential(14, 38);
  col.loops.push_back(row);
  LoopReport height = sequential(14, 534);
  height.loops.push_back(col);
  EXPECT_EQ(rule_loop_latency(height, RuleSet::kHlsStates, {}, {}), 7476);
  EXPECT_EQ(rule_loop_latency(height, RuleSet::kTextbook, {}, {}), 14 * 14 * 36);
  // A nested body with a call: the callee's reported latency is added.
  ModuleReport callee;
  callee.name = "f";
  callee.latency_worst = Count::exact(10);
  LoopReport outer = sequential(3, std::nullopt);
  outer.loops.push_back(pipelined(4, 1, 1));
  outer.instances.push_back("grp_f_fu_1");
  EXPECT_EQ(rule_loop_latency(outer, RuleSet::kTextbook, {callee}, {{"grp_f_fu_1", "f"}}), 3 * (4 + 10));
  EXPECT_EQ(rule_loop_latency(outer, RuleSet::kHlsStates, {callee}, {{"grp_f_fu_1", "f"}}), 3 * (4 + 10 + 3));
  EXPECT_FALSE(rule_loop_latency(outer, RuleSet::kTextbook, {}, {}));  // callee unknown
}

TEST(LatencyRules, FixtureModules) {
  auto s = read_reports("tests/hls/reports/testdata");
  auto ev = evaluate_rules(s.csynth, RuleSet::kHlsStates);
  ASSERT_EQ(ev.results.size(), 2u);
  ASSERT_EQ(ev.skipped.size(), 1u);  // tt_contract: its "drain" loops have range / undef trips
  EXPECT_EQ(ev.skipped[0].module, "tt_contract");
  EXPECT_EQ(ev.skipped[0].reason, "incomplete loop data in drain");
  for (const auto& r : ev.results) {
    if (r.module == "tt_kernel_Pipeline_contract") {
      EXPECT_EQ(r.predicted, 1033 + 2);  // (1024-1)*1 + 10, + entry + exit states
      EXPECT_EQ(r.reported, 1035);
    } else {
      EXPECT_EQ(r.module, "tt_kernel");
      EXPECT_EQ(r.calls, 1);
      EXPECT_EQ(r.predicted, 1035 + 2);
    }
  }
}

TEST(LatencyRules, RealReportsMapeWithinGoal) {
  if (!std::getenv("TTSIM_SHARED")) GTEST_SKIP() << "TTSIM_SHARED not set: real reports unavailable";
  auto s = read_reports(std::string(std::getenv("TTSIM_SHARED")) + "/data/hls_reports");
  auto hls = evaluate_rules(s.csynth, RuleSet::kHlsStates);
  auto textbook = evaluate_rules(s.csynth, RuleSet::kTextbook);
  EXPECT_GT(hls.results.size(), 1000u);
  EXPECT_LE(*hls.mape(), 5.0);
  EXPECT_LT(*hls.mape(), *textbook.mape());
  for (const auto& r : hls.results) {
    if (r.module == "stencil3d") {
      EXPECT_EQ(r.predicted, r.reported);
    }
  }
}

TEST(LatencyRules, NothingEvaluatedHasNoMape) {
  const RuleEvaluation ev = evaluate_rules({}, RuleSet::kHlsStates);
  EXPECT_TRUE(ev.results.empty());
  EXPECT_FALSE(ev.mape().has_value());  // "n/a", never 0 %
}

TEST(LatencyRules, CosimLatencyIsGroundTruthWhereCsynthIsUndef) {
  if (!std::getenv("TTSIM_SHARED")) GTEST_SKIP() << "TTSIM_SHARED not set: real reports unavailable";
  auto s = read_reports(std::string(std::getenv("TTSIM_SHARED")) + "/data/hls_reports/ece5404_pca");
  ASSERT_EQ(s.cosim.size(), 1u);
  auto ev = evaluate_rules(s.csynth, RuleSet::kHlsStates, s.cosim);
  bool named = false;
  for (const auto& r : ev.results) {
    if (r.module == "dut") {
      EXPECT_EQ(r.reported, 89388);
      EXPECT_EQ(r.reported_source, "cosim");
      named = true;
    }
  }
  for (const auto& k : ev.skipped) {
    if (k.module == "dut") {
      EXPECT_NE(k.reason.find("co-simulation latency 89388 cycles"), std::string::npos) << k.reason;
      EXPECT_NE(k.reason.find("dut_cosim.rpt"), std::string::npos) << k.reason;
      named = true;
    }
  }
  EXPECT_TRUE(named) << "module dut neither evaluated nor skipped";
}

}  // namespace
}  // namespace ttsim::hls
