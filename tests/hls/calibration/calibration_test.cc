// Calibration from csynth reports: module → kernel mapping, samples through the
// _Pipeline_ hierarchy, least-squares fit back to known parameters, calibration files,
// refusal of another part or clock, the calibrated simulator, leave-one-out, and the
// power coefficient fit (synthetic pairs; the real U50 KNN report via TTSIM_SHARED).
// Every csynth / Vivado report here is written by tests/hls/calibration/
// synthetic_reports.h from known parameters: no real report of the ttsim kernels exists.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <map>

#include "hls/include/kernel_spec.h"

#include "core/errors.h"
#include "hls/calibration/kernel_fit.h"
#include "hls/calibration/kernel_samples.h"
#include "hls/calibration/power_fit.h"
#include "hls/kernels/modules.h"
#include "hw/loop_nest.h"
#include "hls/reports/report_set.h"
#include "hls/reports/xml_util.h"
#include "models/model_spec.h"
#include "models/training_graph.h"
#include "hw/calibration.h"
#include "hw/kernel_latency.h"
#include "sim/step_sim.h"
#include "tests/hls/calibration/synthetic_reports.h"

namespace ttsim::hls {
namespace {

namespace fs = std::filesystem;
using testing::SyntheticTruth;

std::string tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  const std::string p = std::string(d ? d : "/tmp") + "/" + name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

ArchSpec paper() { return load_arch_spec("configs/arch/u50_paper.json"); }
DeviceSpec u50() { return load_device_spec("configs/devices/u50.json"); }

/// Writes `from` to `to` (the same file allowed) with each (text, replacement) of `edits`
/// applied to its first occurrence; a text not found fails the test.
void write_edited(const std::string& from, const std::string& to,
                  const std::vector<std::pair<std::string, std::string>>& edits) {
  std::ifstream in(from);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  for (const auto& [old_text, new_text] : edits) {
    const std::size_t at = text.find(old_text);
    ASSERT_NE(at, std::string::npos) << from << ": " << old_text;
    text.replace(at, old_text.size(), new_text);
  }
  std::ofstream(to) << text;
}

/// The InputError power_samples raises for the reports under `root`, "" when it raises none.
std::string power_samples_error(const std::string& root) {
  try {
    power_samples(read_reports(root));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ModuleMap, FollowsTheHlsModuleNames) {
  for (const auto& m : kTtsimModules) {
    auto op = task_op_of_module(m.module);
    ASSERT_TRUE(op.has_value()) << m.module;
    EXPECT_STREQ(to_string(*op), m.task_op) << m.module;
  }
  EXPECT_FALSE(task_op_of_module("ttsim_train_step"));
  EXPECT_FALSE(task_op_of_module("ttsim_softmax_Pipeline_softmax_max"));
  EXPECT_FALSE(task_op_of_module("softmax"));
  EXPECT_FALSE(task_op_of_module("ttsim_"));
}

TEST(KernelSamples, GathersLoopsFromPipelineCallees) {
  const std::string dir = tmp("samples");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  const KernelSampleSet set = collect_kernel_samples(read_reports(dir).csynth);
  EXPECT_TRUE(set.skipped.empty());
  int contraction = 0, softmax = 0, layernorm = 0;
  for (const auto& s : set.samples) {
    (s.op == TaskOp::kContraction ? contraction : s.op == TaskOp::kSoftmax ? softmax : layernorm)++;
    const auto spec = all_kernel_loops(s.op, 1);
    ASSERT_EQ(s.loops.size(), spec.size());  // every report holds every loop of its kernel
    ASSERT_EQ(s.trips().size(), spec.size());
    for (std::size_t i = 0; i < s.loops.size(); ++i) {
      EXPECT_EQ(s.loops[i].name, spec[i].name);
      EXPECT_EQ(s.loops[i].rtl_module, s.module + "_Pipeline_" + s.loops[i].name);
      EXPECT_TRUE(s.loops[i].ii && s.loops[i].depth);
    }
  }
  EXPECT_EQ(contraction, 4);
  EXPECT_EQ(softmax, 5);  // the ranged report gives a best and a worst sample
  EXPECT_EQ(layernorm, 3);
  const auto best = std::find_if(set.samples.begin(), set.samples.end(), [](auto& s) { return s.bound == "best"; });
  ASSERT_NE(best, set.samples.end());
  // Softmax of 32 rows of 32 on 8 lanes (the u50_paper softmax unit): ceil(32/16)·16·4
  // for the slot-interleaved passes, 32·4 for normalize.
  EXPECT_EQ(best->trips(), (std::vector<std::int64_t>{128, 128, 128}));
  EXPECT_EQ(best->latency, *best->latency_best.min);
  EXPECT_FALSE(best->op_binds.empty());
}

TEST(KernelSamples, AModuleOfOneVariantHoldsOnlyItsLoop) {
  const std::string dir = tmp("variant");
  const SyntheticTruth truth;
  testing::SyntheticKernel k;
  k.module = "ttsim_column_sum";
  k.op = TaskOp::kAdd;
  k.lanes = 16;
  k.trips = {0, 480, 0};  // add_accumulate, column_sum, transpose
  k.iis = {1, 1, 1};
  k.depths = {9, 12, 4};
  testing::write_kernel_report(dir + "/csynth.xml", k);
  const KernelSampleSet set = collect_kernel_samples(read_reports(dir).csynth);
  ASSERT_EQ(set.samples.size(), 1u) << (set.skipped.empty() ? "" : set.skipped[0].reason);
  EXPECT_EQ(set.samples[0].op, TaskOp::kAdd);
  ASSERT_EQ(set.samples[0].loops.size(), 1u);
  EXPECT_EQ(set.samples[0].loops[0].name, "column_sum");
  EXPECT_EQ(set.samples[0].trips(), (std::vector<std::int64_t>{0, 480, 0}));
  // A softmax module without its (every-variant) normalize loop is skipped, naming it.
  const std::string bad = tmp("missing_loop");
  testing::SyntheticKernel m;
  m.module = "ttsim_softmax";
  m.op = TaskOp::kSoftmax;
  m.lanes = 16;
  m.trips = {64, 64, 0};
  m.iis = {1, 1, 1};
  m.depths = {9, 9, 9};
  testing::write_kernel_report(bad + "/csynth.xml", m);
  const KernelSampleSet skipped = collect_kernel_samples(read_reports(bad).csynth);
  EXPECT_TRUE(skipped.samples.empty());
  ASSERT_EQ(skipped.skipped.size(), 1u);
  EXPECT_NE(skipped.skipped[0].reason.find("softmax_normalize"), std::string::npos) << skipped.skipped[0].reason;
}

/// Replaces in `file` the first `from` found after `after` (from the start when empty) by
/// `to`; fails the test when there is none.
void replace_after(const std::string& file, const std::string& after, const std::string& from, const std::string& to) {
  std::string text = xml::read_file(file);
  const std::size_t start = after.empty() ? 0 : text.find(after);
  ASSERT_NE(start, std::string::npos) << after;
  const std::size_t at = text.find(from, start);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  std::ofstream(file) << text;
}

std::size_t samples_from(const KernelSampleSet& set, const std::string& source) {
  return static_cast<std::size_t>(
      std::count_if(set.samples.begin(), set.samples.end(), [&](const KernelSample& s) { return s.source == source; }));
}

TEST(KernelSamples, AReportOfAnotherDesignIsRefusedNamingItsTopUnlessKept) {
  const std::string dir = tmp("foreign");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  const std::string f = dir + "/ttsim_contraction_0/syn/report/csynth.xml";
  replace_after(f, "", "<TopModelName>ttsim_contraction<", "<TopModelName>other_design_top<");
  const auto reports = read_reports(dir).csynth;
  const KernelSampleSet set = collect_kernel_samples(reports);
  ASSERT_EQ(set.refused.size(), 1u);
  EXPECT_EQ(set.refused[0].source, f);
  EXPECT_NE(set.refused[0].reason.find("report of another design: its top other_design_top is not a ttsim module"),
            std::string::npos)
      << set.refused[0].reason;
  EXPECT_NE(set.refused[0].reason.find("RTLDesignHierarchy top module ttsim_contraction differs from TopModelName "
                                       "other_design_top"),
            std::string::npos);
  EXPECT_EQ(samples_from(set, f), 0u);
  EXPECT_EQ(set.samples.size(), 11u);  // 12 from the whole set, less the refused report's one
  const KernelSampleSet kept = collect_kernel_samples(reports, {}, SampleOptions{{f}});
  EXPECT_TRUE(kept.refused.empty());
  ASSERT_EQ(kept.kept.size(), 1u);
  EXPECT_EQ(samples_from(kept, f), 1u);
  EXPECT_THROW(collect_kernel_samples(reports, {}, SampleOptions{{dir + "/not_a_report_csynth.xml"}}), InputError);
  // A ttsim_* top naming no kernel module is refused too.
  replace_after(f, "", "<TopModelName>other_design_top<", "<TopModelName>ttsim_contration<");
  const KernelSampleSet typo = collect_kernel_samples(read_reports(dir).csynth);
  ASSERT_EQ(typo.refused.size(), 1u);
  EXPECT_NE(typo.refused[0].reason.find("its top ttsim_contration claims to be a ttsim module, but no ttsim kernel "
                                        "module"),
            std::string::npos)
      << typo.refused[0].reason;
}

TEST(KernelSamples, AReportThatContradictsItselfIsRefusedWithTheNumbers) {
  const std::string dir = tmp("contradicts");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  const KernelSampleSet clean = collect_kernel_samples(read_reports(dir).csynth);
  EXPECT_TRUE(clean.refused.empty()) << clean.refused.front().reason;  // the synthetic set holds together
  const std::string f = dir + "/ttsim_softmax_4/syn/report/csynth.xml";
  const CsynthReport before = read_csynth_xml(f);
  const LoopReport& loop = before.module("ttsim_softmax_Pipeline_softmax_max")->loops.at(0);
  const std::string lat = std::to_string(*loop.latency.max);
  replace_after(f, "<Name>ttsim_softmax_Pipeline_softmax_max</Name>", "<Latency>" + lat + "<",
                "<Latency>" + std::to_string(10 * *loop.latency.max) + "<");
  const auto reports = read_reports(dir).csynth;
  const KernelSampleSet set = collect_kernel_samples(reports);
  ASSERT_EQ(set.refused.size(), 1u);
  EXPECT_NE(set.refused[0].reason.find("contradicts itself: ttsim_softmax_Pipeline_softmax_max: loop softmax_max: "
                                       "Latency " + std::to_string(10 * *loop.latency.max) + " above (TripCount"),
            std::string::npos)
      << set.refused[0].reason;
  EXPECT_EQ(samples_from(set, f), 0u);
  EXPECT_EQ(samples_from(collect_kernel_samples(reports, {}, SampleOptions{{f}}), f), 1u);
}

TEST(KernelSamples, UnknownValuesSkipOnlyTheirKernelNamingThem) {
  const std::string dir = tmp("unknown");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  const std::string q = dir + "/ttsim_softmax_5/syn/report/csynth.xml";
  const std::string worst = std::to_string(*read_csynth_xml(q).module("ttsim_softmax")->latency_worst.max);
  replace_after(q, "<Name>ttsim_softmax</Name>", "<Worst-caseLatency>" + worst + "<", "<Worst-caseLatency>?<");
  const std::string s = dir + "/ttsim_layernorm_9/syn/report/csynth.xml";
  const LoopReport& l = read_csynth_xml(s).module("ttsim_layernorm_Pipeline_layernorm_var")->loops.at(0);
  replace_after(s, "<Name>ttsim_layernorm_Pipeline_layernorm_var</Name>",
                "<TripCount>" + std::to_string(*l.trip_count.max) + "<",
                "<TripCount><range><min>1</min><max>1152921504606846976</max></range><");
  const KernelSampleSet set = collect_kernel_samples(read_reports(dir).csynth);
  EXPECT_TRUE(set.refused.empty()) << set.refused.front().reason;
  EXPECT_EQ(set.samples.size(), 10u);  // 12 less one from each edited report
  ASSERT_EQ(set.skipped.size(), 2u);
  EXPECT_NE(set.skipped[1].reason.find("ttsim_softmax: PerformanceEstimates/SummaryOfOverallLatency/"
                                       "Worst-caseLatency = ?"),
            std::string::npos)
      << set.skipped[1].reason;
  EXPECT_NE(set.skipped[0].reason.find("ttsim_layernorm_Pipeline_layernorm_var: PerformanceEstimates/"
                                       "SummaryOfLoopLatency/layernorm_var/TripCount = 1 ~ 1152921504606846976"),
            std::string::npos)
      << set.skipped[0].reason;
}

TEST(KernelSamples, AnUnknownIiOrDepthSkipsItsKernelNamingTheField) {
  // Neither is guessed (the model's II in place of the report's): the kernel is skipped.
  const std::string dir = tmp("unknown_ii");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  const std::string q = dir + "/ttsim_softmax_5/syn/report/csynth.xml";
  const LoopReport& m = read_csynth_xml(q).module("ttsim_softmax_Pipeline_softmax_max")->loops.at(0);
  replace_after(q, "<Name>ttsim_softmax_Pipeline_softmax_max</Name>",
                "<PipelineII>" + std::to_string(*m.pipeline_ii->min) + "<",
                "<PipelineII>1 ~ 1152921504606846977<");
  const std::string s = dir + "/ttsim_layernorm_9/syn/report/csynth.xml";
  const LoopReport& l = read_csynth_xml(s).module("ttsim_layernorm_Pipeline_layernorm_var")->loops.at(0);
  replace_after(s, "<Name>ttsim_layernorm_Pipeline_layernorm_var</Name>",
                "<PipelineDepth>" + std::to_string(*l.pipeline_depth->min) + "<", "<PipelineDepth>?<");
  const KernelSampleSet set = collect_kernel_samples(read_reports(dir).csynth);
  EXPECT_TRUE(set.refused.empty()) << set.refused.front().reason;
  EXPECT_EQ(set.samples.size(), 10u);  // 12 less one from each edited report
  ASSERT_EQ(set.skipped.size(), 2u);
  EXPECT_EQ(set.skipped[1].module, "ttsim_softmax");
  EXPECT_NE(set.skipped[1].reason.find("loop softmax_max (in ttsim_softmax_Pipeline_softmax_max): PipelineII "
                                       "is 1 ~ ?, not one number"),
            std::string::npos)
      << set.skipped[1].reason;
  EXPECT_NE(set.skipped[1].reason.find("PipelineII = 1 ~ 1152921504606846977"), std::string::npos)
      << set.skipped[1].reason;
  EXPECT_NE(set.skipped[0].reason.find("loop layernorm_var (in ttsim_layernorm_Pipeline_layernorm_var): "
                                       "PipelineDepth is undef, not one number"),
            std::string::npos)
      << set.skipped[0].reason;
}

/// Calibrated cycles of every loop of every sample vs the report, and of the module.
void expect_round_trip(const KernelSampleSet& set, const Calibration& c, double tolerance_pct) {
  ArchSpec a = paper();
  DeviceSpec d = u50();
  apply_calibration(c, a, d);
  const KernelLatencyModel m(a, d);
  int loops = 0;
  for (const auto& s : set.samples) {
    const std::vector<LoopLatency> classes = m.loop_classes(unit_of(s.op), s.op);
    for (const auto& o : s.loops) {
      const auto it = std::find_if(classes.begin(), classes.end(), [&](auto& l) { return l.name == o.name; });
      ASSERT_NE(it, classes.end()) << o.name;
      const double cycles = static_cast<double>((o.trip - 1) * it->ii + it->depth);
      EXPECT_LE(std::fabs(cycles - o.latency), tolerance_pct / 100 * o.latency)
          << s.source << " " << s.bound << " " << o.name << ": " << cycles << " vs " << o.latency;
      ++loops;
    }
    const double module = static_cast<double>(predict_sample(s, m));
    EXPECT_LE(std::fabs(module - s.latency), tolerance_pct / 100 * s.latency) << s.source << " " << s.bound;
  }
  EXPECT_GT(loops, 30);
}

void expect_fit(const Calibration& c, const SyntheticTruth& truth) {
  ASSERT_EQ(c.kernels.size(), 3u);
  for (const auto& [op, k] : c.kernels) {
    const auto spec = all_kernel_loops(op, 1);
    const int loops = static_cast<int>(spec.size());
    EXPECT_EQ(k.lanes, truth.lanes.at(op)) << to_string(op);
    ASSERT_EQ(k.loops.size(), spec.size()) << to_string(op);
    const std::vector<int> iis = truth.iis(op);
    for (std::size_t i = 0; i < spec.size(); ++i) {
      const LoopFitRecord& l = k.loops.at(spec[i].name);
      EXPECT_NEAR(k.params.depth_adjust.at(spec[i].name), truth.extra_depth - 1, 1e-9) << spec[i].name;
      ASSERT_TRUE(l.report_ii) << spec[i].name;
      EXPECT_EQ(*l.report_ii, iis[i]) << spec[i].name;
      EXPECT_EQ(l.model_ii, iis[i] - truth.extra_ii) << spec[i].name;
      EXPECT_EQ(*l.report_depth, l.model_depth + truth.extra_depth) << spec[i].name;
      if (truth.extra_ii == 0) EXPECT_LT(l.max_abs_residual_cycles, 1e-9) << spec[i].name;
    }
    if (truth.extra_ii == 0) {
      EXPECT_NEAR(k.params.overhead, SyntheticTruth::overhead(loops), 1e-9) << to_string(op);
      EXPECT_LT(k.max_abs_residual_cycles, 1.0) << to_string(op);
    }
  }
  // Every operator of the written kernels' chains was read from the BindNodes.
  EXPECT_EQ(c.op_latency.size(), 6u);  // fadd, fmul, fcmp, fexp, fdiv, fsqrt (flog is in no written kernel)
  for (const auto& [op, cycles] : c.op_latency) EXPECT_EQ(cycles, truth.bind_latency.at(op)) << op;
}

TEST(KernelFit, RecoversKnownParameters) {
  const std::string dir = tmp("fit");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  const KernelSampleSet set = collect_kernel_samples(read_reports(dir).csynth);
  const Calibration c = fit_calibration(set, paper(), u50(), "m");
  expect_fit(c, SyntheticTruth{});
  EXPECT_EQ(c.part, "xcu50-fsvh2104-2-e");
  EXPECT_DOUBLE_EQ(c.target_clock_ns, 10.0);
  EXPECT_EQ(c.tool_version, "2023.2");
  EXPECT_EQ(c.reports.size(), 11u);
  EXPECT_EQ(c.kernels.at(TaskOp::kContraction).module, "ttsim_contraction");
  EXPECT_EQ(c.kernels.at(TaskOp::kSoftmax).samples, 5);
}

TEST(KernelFit, ReportsWrittenFromTheSpecificationRoundTripEveryLoopWithinOnePercent) {
  // Default truth, and one where fadd (200 cycles) exceeds the kAccSlots interleave: the
  // derived II of softmax_exp_sum (8 lanes: ResMII 1) becomes its RecMII ceil(200 / 16) =
  // 13, the reports carry it, the fit keeps it.
  SyntheticTruth slow;
  slow.bind_latency["fadd"] = 200;
  slow.extra_depth = 7;
  ASSERT_EQ(SyntheticTruth{}.iis(TaskOp::kSoftmax)[1], 1);
  ASSERT_EQ(slow.iis(TaskOp::kSoftmax)[1], 13);
  for (const SyntheticTruth& t : {SyntheticTruth{}, slow}) {
    const std::string dir = tmp("roundtrip");
    testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0, t);
    const KernelSampleSet set = collect_kernel_samples(read_reports(dir).csynth);
    const Calibration c = fit_calibration(set, paper(), u50(), "m");
    expect_fit(c, t);
    expect_round_trip(set, c, 1.0);
  }
}

TEST(KernelFit, AReportIiAboveTheDerivedIiIsKeptApart) {
  SyntheticTruth t;
  t.extra_ii = 1;  // Vitis scheduled every loop one cycle slower than the specification allows
  const std::string dir = tmp("fit_ii");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0, t);
  const Calibration c = fit_calibration(collect_kernel_samples(read_reports(dir).csynth), paper(), u50(), "m");
  expect_fit(c, t);  // depths from PipelineDepth still recovered; the II is not fitted
  for (const auto& [op, k] : c.kernels) {
    for (const auto& [name, l] : k.loops) {
      EXPECT_NE(*l.report_ii, l.model_ii) << name;
      EXPECT_GT(l.max_abs_residual_cycles, 10) << name;  // (trip − 1) cycles unexplained
    }
  }
}

TEST(KernelFit, WithTheStepEveryLoopIsPricedAtItsInstancesIi) {
  // A step whose LayerNorm gradients read dy from the array their dγ and dβ are written to
  // (the binding moved to grad_mem here: the shipped arena plan gives no loop more sites per
  // bank than its ports): layernorm_grad_params then makes three accesses per bank of one
  // array per iteration, so its instance runs at II 2, the II the emitted pragma would ask
  // for, while the other two loops stay at II 1; a report at that II is fitted with no
  // residual and the true overhead when the fit knows the step, while a fit at the per-call
  // II 1 puts the extra (trip − 1) cycles into the kernel overhead.
  const ArchSpec a = paper();
  const DeviceSpec d = u50();
  TaskGraph step = build_training_graph(load_model_spec("configs/models/atis_2enc.json"), graph_options(a, 0));
  const ttsim_spec::KernelSpec& lng = kernel_spec(TaskOp::kLayerNormGrad);
  for (Task& t : step.tasks) {
    if (t.op != TaskOp::kLayerNormGrad) continue;
    t.shape.memories = ttsim_spec::with_memory(t.shape.memories, ttsim_spec::kernel_array_slot(lng, "dy"),
                                               ttsim_spec::kGradMem);
  }
  KernelLatencyModel bound(a, d);
  bound.bind_instances(step);
  KernelSample s;
  s.source = "synthetic_layernorm_grad.xml";
  s.module = "ttsim_layernorm_grad";
  s.op = TaskOp::kLayerNormGrad;
  s.bound = "worst";
  const std::int64_t trip = 768;  // any trip >= 2 shows the difference
  const double overhead = 5;
  std::int64_t params_trip = 0;
  for (const LoopLatency& c : bound.loop_classes(UnitKind::kLayerNorm, TaskOp::kLayerNormGrad)) {
    LoopObservation o;
    o.name = c.name;
    o.trip = trip;
    o.ii = c.ii;
    o.latency = (trip - 1) * c.ii + c.depth;
    s.latency += o.latency;
    s.loops.push_back(o);
    if (c.name == "layernorm_grad_params") {
      EXPECT_EQ(c.ii, 2);
      params_trip = trip;
    }
  }
  ASSERT_GT(params_trip, 0);
  s.latency += static_cast<std::int64_t>(overhead);
  const std::vector<const KernelSample*> samples{&s};
  const KernelFitRecord with = fit_kernel(TaskOp::kLayerNormGrad, samples, a, d, {}, &step);
  EXPECT_NEAR(with.params.overhead, overhead, 1e-9);
  EXPECT_LT(with.max_abs_residual_cycles, 1e-9);
  EXPECT_EQ(with.loops.at("layernorm_grad_params").model_ii, 2);
  const KernelFitRecord without = fit_kernel(TaskOp::kLayerNormGrad, samples, a, d, {});
  EXPECT_EQ(without.loops.at("layernorm_grad_params").model_ii, 1);
  EXPECT_NEAR(without.params.overhead, overhead + static_cast<double>(params_trip - 1), 1e-9);
}

TEST(KernelFit, ErrorsNameTheProblem) {
  const std::string other = tmp("nomap");
  testing::SyntheticKernel k;
  k.module = "md_kernel";
  k.trips = {4096, 0, 0, 0};
  k.iis = {1, 1, 1, 1};
  k.depths = {9, 9, 9, 9};
  testing::write_kernel_report(other + "/csynth.xml", k);
  try {
    fit_calibration(collect_kernel_samples(read_reports(other).csynth), paper(), u50(), "m");
    FAIL() << "nothing mapped yet no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no csynth module maps"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("md_kernel"), std::string::npos) << e.what();
  }
  const std::string u280dir = tmp("u280");
  testing::write_synthetic_set(u280dir, "xcu280-fsvh2892-2L-e", 10.0);
  try {
    fit_calibration(collect_kernel_samples(read_reports(u280dir).csynth), paper(), u50(), "m");
    FAIL() << "part mismatch accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("xcu280-fsvh2892-2L-e"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("xcu50-fsvh2104-2-e"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fit_kernel(TaskOp::kGelu, {}, paper(), u50(), {}), InputError);
}

TEST(CalibrationFile, RoundTripsAndValidates) {
  const std::string dir = tmp("file");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  ReportSet rs = read_reports(dir);
  Calibration c = fit_calibration(collect_kernel_samples(rs.csynth), paper(), u50(), "atis_2enc");
  c.power = PowerFitRecord{};
  c.power->dsp_watts_per_mhz = 7e-6;
  c.power->reports = {"p.rpt"};
  write_calibration(dir + "/c.json", c);
  const Calibration back = load_calibration(dir + "/c.json");
  EXPECT_EQ(calibration_to_json(back), calibration_to_json(c));
  EXPECT_EQ(back.kernels.at(TaskOp::kSoftmax).params.depth_adjust, c.kernels.at(TaskOp::kSoftmax).params.depth_adjust);
  Json doc = calibration_to_json(c);
  EXPECT_EQ(doc["version"], 2);
  doc["kernels"]["softmax"]["iii"] = 1;
  EXPECT_THROW(parse_calibration(doc, "x.json"), ConfigError);
  doc = calibration_to_json(c);
  doc["kernels"]["convolution"] = doc["kernels"]["softmax"];
  try {
    parse_calibration(doc, "x.json");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/kernels/convolution");
  }
  doc = calibration_to_json(c);
  doc["kernels"]["softmax"]["loops"]["contract_column"] = doc["kernels"]["softmax"]["loops"]["softmax_max"];
  try {
    parse_calibration(doc, "x.json");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/kernels/softmax/loops/contract_column");
  }
}

TEST(CalibrationFile, RefusesANegativeDepthOrPowerNamingThePointer) {
  const std::string dir = tmp("negative");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  ReportSet rs = read_reports(dir);
  Calibration c = fit_calibration(collect_kernel_samples(rs.csynth), paper(), u50(), "atis_2enc");
  c.power = PowerFitRecord{};
  c.power->dsp_watts_per_mhz = 7e-6;
  c.power->reports = {"p.rpt"};
  Json doc = calibration_to_json(c);
  const int model_depth = doc["kernels"]["softmax"]["loops"]["softmax_max"]["model_depth"];
  doc["kernels"]["softmax"]["loops"]["softmax_max"]["depth_adjust"] = -model_depth - 5;  // depth −5 cycles
  try {
    parse_calibration(doc, "neg.json");
    FAIL() << "a negative calibrated depth was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "neg.json");
    EXPECT_EQ(e.pointer(), "/kernels/softmax/loops/softmax_max/depth_adjust");
  }
  doc = calibration_to_json(c);
  doc["power"]["dsp_watts_per_mhz"] = -7e-6;
  try {
    parse_calibration(doc, "neg.json");
    FAIL() << "a negative power coefficient was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/power/dsp_watts_per_mhz");
  }
  doc = calibration_to_json(c);
  doc["provenance"]["achievable_clock_ns"] = 5.0;  // below the 10 ns target
  EXPECT_THROW(parse_calibration(doc, "neg.json"), ConfigError);
  doc = calibration_to_json(c);
  doc["kernels"]["softmax"]["overhead"] = -3.0;  // refused, not clamped to 0
  try {
    parse_calibration(doc, "neg.json");
    FAIL() << "a negative overhead was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/kernels/softmax/overhead");
  }
}

TEST(CalibrationFile, OldFilesWithAFittedIiAreRefused) {
  const std::string dir = tmp("old");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  const Calibration c = fit_calibration(collect_kernel_samples(read_reports(dir).csynth), paper(), u50(), "m");
  // A version-1 file (a flat "ii" per kernel).
  Json v1 = calibration_to_json(c);
  v1["version"] = 1;
  v1["kernels"]["softmax"]["ii"] = 1.0;
  try {
    parse_calibration(v1, "v1.json");
    FAIL() << "a version 1 calibration was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/version");
    EXPECT_NE(e.expected().find("flat II"), std::string::npos) << e.what();
    EXPECT_NE(e.expected().find("hls/include/kernel_spec.h"), std::string::npos) << e.what();
  }
  // An "ii" in a version-2 document.
  Json v2 = calibration_to_json(c);
  v2["kernels"]["softmax"]["ii"] = 1.0;
  try {
    parse_calibration(v2, "v2.json");
    FAIL() << "an ii key was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/kernels/softmax/ii");
    EXPECT_NE(e.expected().find("derived from the kernel specification"), std::string::npos) << e.what();
  }
}

TEST(CalibrationFile, RefusesAnotherPartOrClock) {
  Calibration c;
  c.file = "c.json";
  c.part = "xcu280-fsvh2892-2L-e";
  c.target_clock_ns = 10.0;
  ArchSpec a = paper();
  DeviceSpec d = u50();
  try {
    apply_calibration(c, a, d);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("xcu280-fsvh2892-2L-e"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("xcu50-fsvh2104-2-e"), std::string::npos);
  }
  EXPECT_EQ(a.calibration, nullptr);
  c.part = "xcu50-fsvh2104-2-e";
  c.target_clock_ns = 3.33;
  try {
    apply_calibration(c, a, d);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("3.33 ns"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("100 MHz"), std::string::npos) << e.what();
  }
  c.target_clock_ns = 10.0;
  EXPECT_NO_THROW(apply_calibration(c, a, d));
  EXPECT_NE(a.calibration, nullptr);
}

// Cycles of a task by the calibrated formula, computed here from the loop nest (names,
// recurrences, accesses), the known operator latencies and the fitted parameters (not
// through KernelLatencyModel). Kernels the calibration does not cover keep the unit's
// overhead and their model depths but use the calibration's operator latencies too.
/// The II and depth of loop `l` of task `t` by the formula, independently of the model:
/// RecMII from the recurrences, ResMII from the accesses (arguments the task places in one
/// memory pool its two ports), depth from the chain with the calibrated adjustment.
std::pair<std::int64_t, std::int64_t> expected_loop(const Task& t, const LoopSpec& l, const ArchSpec& arch,
                                                    const DeviceSpec& device, const Calibration& c) {
  auto lat = [&](const std::string& f) -> std::int64_t {
    if (c.op_latency.count(f)) return c.op_latency.at(f);
    if (f == "read") return std::max(device.bram_read_latency, device.uram_read_latency);
    if (f == "write") return device.write_latency;
    return device.op(f).latency_at(arch.clock_mhz);
  };
  const UnitSpec& u = arch.unit(t.unit);
  const bool cal = c.kernels.count(t.op) > 0;
  const KernelParams p = cal ? c.kernels.at(t.op).params : KernelParams{};
  std::int64_t depth = 0, ii = 1;
  for (const auto& f : l.chain) depth += lat(f);
  for (const auto& r : l.recurrences) {
    std::int64_t sum = 0;
    for (const auto& f : r.ops) sum += lat(f);
    ii = std::max(ii, ceil_div(sum, r.distance));
  }
  const ttsim_spec::KernelSpec& ks = ttsim_spec::kKernelSpecs[ttsim_spec::kernel_index(to_string(t.op))];
  std::map<std::string, std::int64_t> per_array;
  std::map<int, std::int64_t> per_memory;
  for (const auto& a : l.accesses) {
    const int mem = ttsim_spec::memory_of(t.shape.memories, ttsim_spec::kernel_array_slot(ks, a.array.c_str()));
    (mem == ttsim_spec::kOwnMemory ? per_array[a.array] : per_memory[mem]) += a.bank_accesses(u.lanes);
  }
  for (const auto& [name, n] : per_array) ii = std::max<std::int64_t>(ii, ceil_div(n, 2));
  for (const auto& [mem, n] : per_memory) ii = std::max<std::int64_t>(ii, ceil_div(n, 2));
  if (p.depth_adjust.count(l.name)) depth = std::max<std::int64_t>(1, std::llround(depth + p.depth_adjust.at(l.name)));
  return {ii, depth};
}

/// The instance II of every (op, loop) over the step: the largest over the tasks running it
/// (one static schedule per module instance).
std::map<std::pair<TaskOp, std::string>, std::int64_t> expected_instance_ii(const TaskGraph& g, const ArchSpec& arch,
                                                                            const DeviceSpec& device,
                                                                            const Calibration& c) {
  std::map<std::pair<TaskOp, std::string>, std::int64_t> out;
  for (const Task& t : g.tasks) {
    for (const LoopSpec& l : kernel_loops(t.op, t.shape, arch.unit(t.unit).lanes)) {
      std::int64_t& ii = out[{t.op, l.name}];
      ii = std::max(ii, expected_loop(t, l, arch, device, c).first);
    }
  }
  return out;
}

std::int64_t expected_cycles(const Task& t, const ArchSpec& arch, const DeviceSpec& device, const Calibration& c,
                             const std::map<std::pair<TaskOp, std::string>, std::int64_t>& instance_ii) {
  const UnitSpec& u = arch.unit(t.unit);
  const bool cal = c.kernels.count(t.op) > 0;
  const KernelParams p = cal ? c.kernels.at(t.op).params : KernelParams{};
  std::int64_t cycles = cal ? std::max<std::int64_t>(0, std::llround(p.overhead)) : u.overhead;
  for (const LoopSpec& l : kernel_loops(t.op, t.shape, u.lanes)) {
    const std::int64_t depth = expected_loop(t, l, arch, device, c).second;
    cycles += (l.trip - 1) * instance_ii.at({t.op, l.name}) + depth;
  }
  return cycles;
}

TEST(CalibratedSimulator, TaskCyclesFollowTheCalibration) {
  const std::string dir = tmp("sim");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const ArchSpec arch = paper();
  const DeviceSpec device = u50();
  const Calibration c = fit_calibration(collect_kernel_samples(read_reports(dir).csynth), arch, device, model.name);
  ArchSpec arch_cal = arch;
  DeviceSpec device_cal = device;
  apply_calibration(c, arch_cal, device_cal);
  const StepResult un = simulate_step(model, arch, device);
  const StepResult ca = simulate_step(model, arch_cal, device_cal);
  ASSERT_EQ(un.graph().tasks.size(), ca.graph().tasks.size());
  int calibrated = 0;
  const auto instance_ii = expected_instance_ii(ca.graph(), arch, device, c);
  for (const Task& t : ca.graph().tasks) {
    const std::int64_t got = ca.sched.tasks[static_cast<std::size_t>(t.id)].cycles;
    calibrated += c.kernels.count(t.op) ? 1 : 0;
    EXPECT_EQ(got, expected_cycles(t, arch, device, c, instance_ii)) << t.name;
  }
  EXPECT_GT(calibrated, 100);
  EXPECT_NE(ca.run.schedule.makespan, un.run.schedule.makespan);
}

TEST(LeaveOneOut, ExactOnConsistentReportsAndSeesAnOutlier) {
  const std::string dir = tmp("loo");
  testing::write_synthetic_set(dir, "xcu50-fsvh2104-2-e", 10.0);
  KernelSampleSet set = collect_kernel_samples(read_reports(dir).csynth);
  const auto ops = bindnode_op_latencies(set.samples, u50());
  auto loo = leave_one_out(set, paper(), u50(), ops);
  EXPECT_EQ(loo.size(), 4u + 5u + 3u);
  for (const auto& r : loo) {
    ASSERT_TRUE(r.predicted) << r.source << ": " << r.note;
    EXPECT_LT(std::fabs(r.error_pct()), 0.01) << r.source;
  }
  // One report whose loops all take 30 % longer than the others' is predicted badly.
  std::string outlier;
  for (auto& s : set.samples) {
    if (s.op != TaskOp::kContraction || (!outlier.empty() && s.source != outlier)) continue;
    outlier = s.source;
    std::int64_t extra = 0;
    for (auto& o : s.loops) {
      extra += 3 * o.latency / 10;
      o.latency += 3 * o.latency / 10;
      o.depth.reset();
      o.ii.reset();
    }
    s.latency += extra;
  }
  loo = leave_one_out(set, paper(), u50(), ops);
  bool seen = false;
  for (const auto& r : loo) {
    if (r.op == TaskOp::kContraction && r.source == outlier) {
      seen = true;
      EXPECT_GT(std::fabs(r.error_pct()), 20.0);
    }
  }
  EXPECT_TRUE(seen);
}

TEST(PowerFit, RecoversSyntheticCoefficients) {
  const double f1 = 100, f2 = 250;
  auto pair = [](const std::string& dir, double mhz, int dsp, double bram, int uram, int luts) {
    testing::SyntheticPower p;
    p.clock_ns = 1000.0 / mhz;
    p.dsp = dsp;
    p.bram_tiles = bram;
    p.uram = uram;
    p.luts = luts;
    p.static_w = 2.216;
    p.dsp_w = 7e-6 * dsp * mhz;
    p.bram_w = 8.4e-6 * bram * mhz;
    p.uram_w = 2.5e-5 * uram * mhz;
    p.logic_w = 1.0e-4 * luts / 1000.0 * mhz;
    p.signals_w = 0.7e-4 * luts / 1000.0 * mhz;
    p.clocks_w = 4.2e-5 * luts / 1000.0 * mhz;
    testing::write_power_pair(dir, p);
  };
  const std::string root = tmp("power");
  fs::create_directories(root + "/a");
  fs::create_directories(root + "/b");
  pair(root + "/a", f1, 3024, 900, 200, 400000);
  pair(root + "/b", f2, 1500, 300, 64, 150000);
  const ReportSet rs = read_reports(root);
  const auto samples = power_samples(rs);
  ASSERT_EQ(samples.size(), 2u);
  const PowerFitRecord f = fit_power(samples);
  EXPECT_NEAR(*f.static_watts, 2.216, 1e-9);
  EXPECT_NEAR(*f.dsp_watts_per_mhz, 7e-6, 0.01 * 7e-6);
  EXPECT_NEAR(*f.bram36_watts_per_mhz, 8.4e-6, 0.01 * 8.4e-6);
  EXPECT_NEAR(*f.uram_watts_per_mhz, 2.5e-5, 0.01 * 2.5e-5);
  EXPECT_NEAR(*f.logic_watts_per_kilolut_mhz, 1.7e-4, 0.01 * 1.7e-4);
  EXPECT_NEAR(*f.clock_watts_per_kilolut_mhz, 4.2e-5, 0.01 * 4.2e-5);
  // A synthesis-time utilization report beside the placed one: the power report pairs with
  // the placed one (the implemented design); two placed ones of one stem are ambiguous.
  const std::string placed = root + "/b/design_utilization_placed.rpt";
  write_edited(placed, root + "/b/design_utilization_synth.rpt",
               {{"Fully Placed", "Synthesized"},
                {"| CLB LUTs                   | 150000 |", "| CLB LUTs                   | 999999 |"}});
  EXPECT_EQ(power_samples(read_reports(root))[1].utilization_source, placed);
  fs::copy_file(placed, root + "/b/design_utilization_routed.rpt");
  std::string e = power_samples_error(root);
  EXPECT_NE(e.find("2 report_utilization files in its folder"), std::string::npos)
      << "two placed utilization reports of one stem were paired: " << e;
  fs::remove(root + "/b/design_utilization_routed.rpt");
  fs::remove(root + "/b/design_utilization_synth.rpt");
  // A power report without the row of a resource its build uses, or of another Design, is
  // refused naming both files: its power would otherwise be fitted as 0.
  const std::string power_b = root + "/b/design_power_routed.rpt";
  write_edited(power_b, power_b, {{"| DSPs   ", "| DSPx   "}});
  e = power_samples_error(root);
  EXPECT_NE(e.find("row \"DSPs\": expected its power, found none"), std::string::npos)
      << "a missing DSPs row was fitted as 0 W: " << e;
  EXPECT_NE(e.find("uses 1500 DSPs"), std::string::npos) << e;
  write_edited(power_b, power_b, {{"| DSPx   ", "| DSPs   "}, {"Design           : bd_0_wrapper", "Design           : other_top"}});
  e = power_samples_error(root);
  EXPECT_NE(e.find("Design other_top differs"), std::string::npos)
      << "a utilization report of another Design was paired: " << e;
  write_edited(power_b, power_b, {{"Design           : other_top", "Design           : bd_0_wrapper"}});
  // Without the utilization report the pair cannot be formed.
  fs::remove(root + "/b/design_utilization_placed.rpt");
  EXPECT_THROW(power_samples(read_reports(root)), InputError);
}

TEST(PowerFit, ReadsTheRealU50KnnReport) {
  const char* shared = std::getenv("TTSIM_SHARED");
  if (!shared) GTEST_SKIP() << "TTSIM_SHARED not set: the real U50 KNN report_power is not available";
  const ReportSet rs = read_reports(std::string(shared) + "/data/hls_reports/ahls_knn");
  const auto samples = power_samples(rs);
  ASSERT_EQ(samples.size(), 1u);
  const PowerSample& s = samples[0];
  EXPECT_EQ(s.device, "xcu50-fsvh2104-2-e");
  EXPECT_DOUBLE_EQ(s.clock_mhz, 125.0);  // 2.2 Clock Constraints: ap_clk 8.0 ns
  EXPECT_EQ(s.dsp, 33);
  EXPECT_EQ(s.bram36, 0);
  const PowerFitRecord f = fit_power(samples);
  EXPECT_DOUBLE_EQ(*f.static_watts, 2.216);
  EXPECT_NEAR(*f.dsp_watts_per_mhz, 0.035 / (33 * 125.0), 1e-12);
  EXPECT_NEAR(*f.logic_watts_per_kilolut_mhz, (0.078 + 0.076) / (6.203 * 125.0), 1e-9);
  EXPECT_NEAR(*f.clock_watts_per_kilolut_mhz, 0.028 / (6.203 * 125.0), 1e-9);
  EXPECT_FALSE(f.bram36_watts_per_mhz);  // the design uses no BRAM: not fitted, not 0
  EXPECT_FALSE(f.uram_watts_per_mhz);
}

}  // namespace
}  // namespace ttsim::hls
