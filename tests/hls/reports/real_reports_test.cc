// Reader tests on real HLS / Vivado reports from public builds (shared/data/hls_reports,
// provenance in its SOURCES.md). Values asserted are those printed in the files.
// Skipped when TTSIM_SHARED is not set.

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "hls/reports/csynth.h"
#include "hls/reports/impl_reports.h"
#include "hls/reports/report_set.h"
#include "hls/reports/vivado_rpt.h"

namespace ttsim::hls {
namespace {

std::string real(const std::string& rel) {
  const char* s = std::getenv("TTSIM_SHARED");
  return std::string(s ? s : "") + "/data/hls_reports/" + rel;
}

#define REQUIRE_SHARED()                                                           \
  if (!std::getenv("TTSIM_SHARED")) GTEST_SKIP() << "TTSIM_SHARED not set: real " \
                                                    "reports in shared/data/hls_reports unavailable"

void expect_resources(const Resources& r, long bram, long dsp, long ff, long lut, long uram) {
  EXPECT_EQ(r.bram_18k, bram);
  EXPECT_EQ(r.dsp, dsp);
  EXPECT_EQ(r.ff, ff);
  EXPECT_EQ(r.lut, lut);
  EXPECT_EQ(r.uram, uram);
}

const LoopReport* find_loop(const std::vector<LoopReport>& loops, const std::string& name) {
  for (const auto& l : loops) {
    if (l.name == name) return &l;
    if (auto* c = find_loop(l.loops, name)) return c;
  }
  return nullptr;
}

TEST(RealCsynth, VivadoHls2018_2_Mnist) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("mnist_hls_c_mnist/csynth.xml"));
  EXPECT_EQ(r.tool_version, "2018.2");
  EXPECT_EQ(r.part, "xcvu13p-flga2577-2-e");
  EXPECT_EQ(r.top, "c_mnist");
  EXPECT_DOUBLE_EQ(*r.target_clock_ns, 10.0);
  EXPECT_DOUBLE_EQ(*r.estimated_clock_ns, 8.419);
  EXPECT_FALSE(r.latency_best.known());
  EXPECT_FALSE(r.latency_worst.known());
  EXPECT_FALSE(r.interval_max.known());
  EXPECT_TRUE(r.flow_target.empty());
  expect_resources(r.resources, 3391, 80, 14744, 21133, 0);  // DSP48E 80
  EXPECT_EQ(r.available.dsp, 12288);
  ASSERT_EQ(r.loops.size(), 12u);
  const LoopReport& l3 = r.loops[2];
  EXPECT_EQ(l3.name, "Loop3");
  EXPECT_EQ(l3.trip_count, Count::exact(784));
  EXPECT_EQ(l3.latency, Count::exact(3081904));
  EXPECT_EQ(*l3.iteration_latency, Count::exact(3931));
  EXPECT_FALSE(l3.pipelined());
  ASSERT_EQ(l3.loops.size(), 1u);
  EXPECT_EQ(l3.loops[0].name, "Loop3.1");  // dotted nested name kept
  EXPECT_TRUE(l3.loops[0].pipelined());
  EXPECT_EQ(*l3.loops[0].pipeline_ii, Count::exact(5));
  EXPECT_EQ(*l3.loops[0].pipeline_depth, Count::exact(8));
  EXPECT_FALSE(r.loops[0].trip_count.known());  // Loop1 TripCount undef
  EXPECT_EQ(r.loops[8].trip_count, Count::range(1, 25));  // Loop9 <range>
  EXPECT_EQ(r.loops[8].latency, Count::range(2, 26));
  EXPECT_TRUE(r.modules.empty());
}

TEST(RealCsynth, VivadoHls2019_1_BoostingTreeRanges) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("boostingtree_predict_ensemble/csynth.xml"));
  EXPECT_EQ(r.tool_version, "2019.1");
  EXPECT_EQ(r.part, "xc7z020-clg400-2");
  EXPECT_EQ(r.top, "predict_ensemble");
  EXPECT_EQ(r.latency_best, Count::exact(1160));
  EXPECT_EQ(r.latency_worst, Count::exact(13448));
  EXPECT_EQ(r.interval_min, Count::exact(1161));
  EXPECT_EQ(r.interval_max, Count::exact(13449));
  expect_resources(r.resources, 32, 2, 1087, 1215, 0);
  const LoopReport* t = find_loop(r.loops, "Tree_Tranversal");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->latency, Count::range(576, 6720));
  EXPECT_EQ(*t->iteration_latency, Count::range(9, 105));
  ASSERT_EQ(t->loops.size(), 1u);
  EXPECT_EQ(t->loops[0].name, "LOOP_TREE_DEPTH");
}

TEST(RealCsynth, VivadoHls2019_2_AutoBridgeTask) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("autobridge_stencil_compute/compute_csynth.xml"));
  EXPECT_EQ(r.tool_version, "2019.2");
  EXPECT_EQ(r.part, "xcu250-figd2104-2L-e");
  EXPECT_EQ(r.top, "compute");
  EXPECT_DOUBLE_EQ(*r.target_clock_ns, 3.33);
  EXPECT_DOUBLE_EQ(*r.clock_uncertainty_ns, 0.42);
  EXPECT_FALSE(r.latency_best.known());
  expect_resources(r.resources, 128, 704, 116392, 60166, 0);
  ASSERT_EQ(r.loops.size(), 1u);
  EXPECT_FALSE(r.loops[0].trip_count.known());
  EXPECT_EQ(*r.loops[0].pipeline_depth, Count::exact(35));
}

TEST(RealCsynth, VitisHls2021_1_1_PnaModules) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("gnn_acc_pna_molhiv/csynth.xml"));
  EXPECT_EQ(r.tool_version, "2021.1.1");
  EXPECT_EQ(r.part, "xcu50-fsvh2104-2-e");
  EXPECT_EQ(r.top, "PNA_compute_one_graph");
  EXPECT_EQ(r.latency_best, Count::exact(387589));
  EXPECT_EQ(r.latency_worst, Count::exact(403525));
  EXPECT_EQ(r.interval_max, Count::exact(403526));
  expect_resources(r.resources, 233, 50, 34532, 40957, 144);
  EXPECT_EQ(r.modules.size(), 46u);
  ASSERT_TRUE(r.hierarchy.has_value());
  EXPECT_EQ(r.hierarchy->module_name, "PNA_compute_one_graph");
  const ModuleReport* top = r.module("PNA_compute_one_graph");
  ASSERT_NE(top, nullptr);
  EXPECT_EQ(top->latency_worst, Count::exact(403525));
  EXPECT_EQ(top->available.bram_18k, 2688);  // AVAIL_BRAM
  // Storage BindNodes: BRAM latency 1 (hls-reports.md §2.3).
  bool found_bram = false;
  for (const auto& m : r.modules)
    for (const auto& b : m.bind_nodes)
      if (b.bind_type == "storage" && b.impl == "bram") {
        found_bram = true;
        EXPECT_EQ(b.latency, 1);
      }
  EXPECT_TRUE(found_bram);
}

TEST(RealCsynth, VitisHls2021_1_1_PerModuleFile) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("gnn_acc_pna_molhiv/Linear_relu_csynth.xml"));
  EXPECT_EQ(r.top, "Linear_relu");
  EXPECT_EQ(r.latency_worst, Count::exact(4218));
  const LoopReport* l = find_loop(r.loops, "VITIS_LOOP_360_1");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->trip_count, Count::exact(26));
  EXPECT_EQ(*l->iteration_latency, Count::exact(82));
}

TEST(RealCsynth, VitisHls2022_1_IgcnUndefTop) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("igcn/csynth.xml"));
  EXPECT_EQ(r.tool_version, "2022.1");
  EXPECT_EQ(r.part, "xc7z045-ffv900-3");
  EXPECT_EQ(r.top, "IGCN");
  EXPECT_FALSE(r.latency_worst.known());
  EXPECT_FALSE(r.interval_min.known());
  expect_resources(r.resources, 2, 0, 96, 320, 0);
  ASSERT_EQ(r.modules.size(), 3u);
  EXPECT_EQ(r.modules[0].name, "IGCN_Pipeline_VITIS_LOOP_12_1");
}

TEST(RealCsynth, VitisHls2022_2_SystolicMultiplier) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("systolic_multiplier/csynth.xml"));
  EXPECT_EQ(r.tool_version, "2022.2");
  EXPECT_EQ(r.part, "xck26-sfvc784-2LV-c");
  EXPECT_EQ(r.top, "multiplier");
  EXPECT_EQ(r.latency_best, Count::exact(260));
  EXPECT_EQ(r.interval_min, Count::exact(261));
  expect_resources(r.resources, 0, 192, 18616, 26638, 0);
  EXPECT_EQ(r.modules.size(), 9u);
  auto sub = read_csynth_xml(real("systolic_multiplier/multiplier_Pipeline_systolic1_csynth.xml"));
  EXPECT_EQ(sub.top, "multiplier_Pipeline_systolic1");
  EXPECT_EQ(sub.latency_worst, Count::exact(25));
}

TEST(RealCsynth, VitisHls2022_2_RadixSortRangeLatency) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("radix_sort_separate_bucket_parallel_5/csynth.xml"));
  EXPECT_EQ(r.part, "xcu280-fsvh2892-2L-e");
  EXPECT_EQ(r.latency_best, Count::exact(2550));
  EXPECT_EQ(r.latency_worst, Count::exact(8694));
  expect_resources(r.resources, 5, 0, 1264, 3440, 0);
  const LoopReport* s = find_loop(r.loops, "sort_procedure");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->latency, Count::range(2496, 8640));
  EXPECT_EQ(*s->iteration_latency, Count::range(312, 1080));
  EXPECT_NE(find_loop(s->loops, "output_bucket"), nullptr);
}

TEST(RealCsynth, VitisHls2022_2_LargeSortTop) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("sort_top_64/csynth.xml"));
  EXPECT_EQ(r.top, "sort_top_64");
  EXPECT_EQ(r.latency_worst, Count::exact(3437745));
  EXPECT_EQ(r.interval_min, Count::exact(1562728));
  expect_resources(r.resources, 3040, 128, 165077, 179436, 0);
  EXPECT_EQ(r.modules.size(), 448u);
}

TEST(RealCsynth, VitisHls2023_2_KnnOnU50) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("ahls_knn/csynth.xml"));
  EXPECT_EQ(r.tool_version, "2023.2");
  EXPECT_EQ(r.part, "xcu50-fsvh2104-2-e");
  EXPECT_EQ(r.product_family, "virtexuplusHBM");
  EXPECT_EQ(r.top, "md_kernel");
  EXPECT_DOUBLE_EQ(*r.target_clock_ns, 8.0);
  EXPECT_DOUBLE_EQ(*r.estimated_clock_ns, 5.825);
  EXPECT_EQ(r.latency_best, Count::exact(262913));
  EXPECT_EQ(r.interval_max, Count::exact(262914));
  ASSERT_TRUE(r.latency_worst_time.has_value());
  EXPECT_NEAR(*r.latency_worst_time->max_ns, 2.103e6, 1e3);  // "2.103 ms"
  expect_resources(r.resources, 0, 33, 3195, 3143, 0);
  expect_resources(r.available, 2688, 5952, 1743360, 871680, 640);
  const LoopReport* li = find_loop(r.loops, "loop_i");
  ASSERT_NE(li, nullptr);
  EXPECT_EQ(li->trip_count, Count::exact(256));
  EXPECT_EQ(li->latency, Count::exact(262912));
  EXPECT_EQ(*li->iteration_latency, Count::exact(1027));
  // BindNode operator latencies: dmul maxdsp 3 cycles, ddiv fabric 13 (§2.6).
  const ModuleReport* m = r.module("md_kernel");
  ASSERT_NE(m, nullptr);
  bool dmul = false, ddiv = false;
  for (const auto& b : m->bind_nodes) {
    if (b.op_type == "dmul") { dmul = true; EXPECT_EQ(b.latency, 3); EXPECT_EQ(b.impl, "maxdsp"); }
    if (b.op_type == "ddiv") { ddiv = true; EXPECT_EQ(b.latency, 13); }
  }
  EXPECT_TRUE(dmul);
  EXPECT_TRUE(ddiv);
}

TEST(RealCsynth, VitisHls2023_2_PcaUndefAndCosim) {
  REQUIRE_SHARED();
  auto r = read_csynth_xml(real("ece5404_pca/csynth.xml"));
  EXPECT_EQ(r.part, "xcu250-figd2104-2L-e");
  EXPECT_EQ(r.top, "dut");
  EXPECT_FALSE(r.latency_best.known());
  expect_resources(r.resources, 10, 98, 61437, 32419, 2);
  EXPECT_EQ(r.modules.size(), 33u);
  auto c = read_cosim_rpt(real("ece5404_pca/dut_cosim.rpt"));
  ASSERT_NE(c.passed(), nullptr);
  EXPECT_EQ(c.passed()->rtl, "Verilog");
  EXPECT_EQ(c.passed()->latency_max, Count::exact(89388));
  EXPECT_FALSE(c.passed()->interval_min.known());  // "NA"
  EXPECT_EQ(c.runs[0].status, "NA");
  EXPECT_EQ(c.simulation_tool, "xsim");
}

TEST(RealImpl, KnnExportImplUtilizationPower) {
  REQUIRE_SHARED();
  auto e = read_export_impl_xml(real("ahls_knn/export_impl.xml"));
  EXPECT_EQ(e.vivado_version, "v.2023.2");
  EXPECT_DOUBLE_EQ(*e.target_clock_ns, 8.0);
  EXPECT_DOUBLE_EQ(*e.achieved_clock_ns, 6.416);
  EXPECT_EQ(e.timing_met, true);
  EXPECT_EQ(e.lut, 6203);
  EXPECT_EQ(e.ff, 4074);
  EXPECT_EQ(e.dsp, 33);
  EXPECT_EQ(e.clb, 1184);
  EXPECT_EQ(e.avail_bram_18k, 2688);
  auto u = read_utilization_rpt(real("ahls_knn/bd_0_wrapper_utilization_placed.rpt"));
  EXPECT_EQ(u.device, "xcu50-fsvh2104-2-e");
  EXPECT_DOUBLE_EQ(u.clb_luts.used, 6203);
  EXPECT_DOUBLE_EQ(*u.clb_luts.available, 871680);
  EXPECT_DOUBLE_EQ(u.clb_registers.used, 4074);
  EXPECT_DOUBLE_EQ(u.dsp.used, 33);
  EXPECT_DOUBLE_EQ(*u.dsp.available, 5952);
  EXPECT_DOUBLE_EQ(*u.uram->available, 640);
  auto p = read_power_rpt(real("ahls_knn/bd_0_wrapper_power_routed.rpt"));
  EXPECT_DOUBLE_EQ(p.total_on_chip_w, 2.432);
  EXPECT_DOUBLE_EQ(p.device_static_w, 2.216);
  EXPECT_DOUBLE_EQ(p.dynamic_w, 0.216);
  EXPECT_DOUBLE_EQ(*p.hbm_w, 0.240);
  EXPECT_EQ(p.confidence_level, "Medium");
  EXPECT_FALSE(p.components.empty());
}

TEST(RealImpl, PcaFractionalBlockRamAndPower) {
  REQUIRE_SHARED();
  auto u = read_utilization_rpt(real("ece5404_pca/bd_0_wrapper_utilization_placed.rpt"));
  EXPECT_EQ(u.device, "xcu250-figd2104-2L-e");
  EXPECT_DOUBLE_EQ(u.block_ram_tile.used, 9.5);
  EXPECT_DOUBLE_EQ(u.bram_18k(), 19.0);
  EXPECT_DOUBLE_EQ(u.clb_luts.used, 44205);
  auto p = read_power_rpt(real("ece5404_pca/bd_0_wrapper_power_routed.rpt"));
  EXPECT_DOUBLE_EQ(p.total_on_chip_w, 5.665);
  EXPECT_DOUBLE_EQ(p.device_static_w, 2.995);
  EXPECT_FALSE(p.hbm_w.has_value());
}

TEST(RealFolder, EveryRealReportReads) {
  REQUIRE_SHARED();
  auto s = read_reports(real(""));
  EXPECT_EQ(s.csynth.size(), 24u);
  EXPECT_EQ(s.export_impl.size(), 1u);
  EXPECT_EQ(s.cosim.size(), 1u);
  EXPECT_EQ(s.utilization.size(), 2u);
  EXPECT_EQ(s.power.size(), 2u);
}

}  // namespace
}  // namespace ttsim::hls
