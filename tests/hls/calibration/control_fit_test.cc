// The LUT and FF estimates' control figures per pipelined loop are the fits over real csynth
// reports.

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "hls/calibration/control_fit.h"
#include "hw/ff_estimate.h"
#include "hls/reports/report_set.h"
#include "hw/lut_estimate.h"

namespace ttsim::hls {
namespace {

namespace fs = std::filesystem;

// Prints the per-design table of `f` (the figures docs/resources.md summarises).
/// TTSIM_SHARED/data/hls_reports (the real csynth reports), or "" when absent.
std::string real_reports_root() {
  const char* shared = std::getenv("TTSIM_SHARED");
  if (!shared || !fs::exists(fs::path(shared) / "data/hls_reports")) return "";
  return (fs::path(shared) / "data/hls_reports").string();
}

void print_fit(const char* what, const LoopControlFit& f) {
  std::cout << fmt::format("{:<40} {:<9} {:<22} {:>7} {:>7} {:>7} {:>7}\n", "design", "tool", "part", "modules",
                           "median", "min", "max");
  for (const DesignControl& d : f.designs) {
    std::cout << fmt::format("{:<40} {:<9} {:<22} {:>7} {:>7.0f} {:>7.0f} {:>7.0f}\n", d.design, d.tool_version,
                             d.part, d.modules, d.median, d.min, d.max);
  }
  std::cout << fmt::format("{}: {} modules of {} designs ({} left out): median of design medians {:.1f}, range "
                           "{:.1f} .. {:.1f}\n",
                           what, f.modules, f.designs.size(), f.modules_left_out, f.median, f.low, f.high);
}

TEST(ControlFit, MedianOfDesignMedians) {
  auto sample = [](const char* design, double luts, double ops) {
    LoopControlSample s;
    s.design = design;
    s.module = std::string(design) + "_Pipeline_L";
    s.luts = luts;
    s.operator_luts = ops;
    return s;
  };
  // Design a: controls 100, 300 (median 200); b: 50; c: 400, 500, 900 (median 500). A
  // large design does not outvote a small one.
  const LoopControlFit f = fit_loop_control(
      {sample("a", 100, 0), sample("a", 520, 220), sample("b", 128, 78), sample("c", 400, 0), sample("c", 500, 0),
       sample("c", 900, 0)},
      2);
  ASSERT_EQ(f.designs.size(), 3u);
  EXPECT_DOUBLE_EQ(f.designs[0].median, 200);
  EXPECT_DOUBLE_EQ(f.designs[1].median, 50);
  EXPECT_DOUBLE_EQ(f.designs[2].median, 500);
  EXPECT_DOUBLE_EQ(f.median, 200);
  EXPECT_DOUBLE_EQ(f.low, 50);
  EXPECT_DOUBLE_EQ(f.high, 500);
  EXPECT_EQ(f.modules, 6);
  EXPECT_EQ(f.modules_left_out, 2);
  EXPECT_THROW(fit_loop_control({}), InputError);
}

TEST(ControlFit, TheLutEstimateUsesTheFitOfTheRealReports) {
  const std::string root = real_reports_root();
  if (root.empty()) GTEST_SKIP() << "TTSIM_SHARED/data/hls_reports not found (set TTSIM_SHARED to the shared folder)";
  int left_out = 0;
  const std::vector<LoopControlSample> samples = loop_control_samples(read_reports(root), root, &left_out);
  const LoopControlFit f = fit_loop_control(samples, left_out);
  print_fit("LUT", f);
  EXPECT_GE(f.designs.size(), 5u);
  EXPECT_EQ(kControlLutsPerPipelinedLoop, std::round(f.median));
  EXPECT_EQ(kControlLutsPerPipelinedLoopLow, std::round(f.low));
  EXPECT_EQ(kControlLutsPerPipelinedLoopHigh, std::round(f.high));
  for (const LoopControlSample& s : samples) EXPECT_GE(s.control(), 0) << s.design << " " << s.module;
}

TEST(ControlFit, FfsAreFittedOverTheModulesWithAnFfFigure) {
  auto sample = [](const char* design, double ffs, double ops) {
    LoopControlSample s;
    s.design = design;
    s.module = std::string(design) + "_Pipeline_L";
    s.ffs = ffs;
    s.operator_ffs = ops;
    return s;
  };
  LoopControlSample no_ff = sample("b", -1, 0);  // a report without the module's FFs
  no_ff.luts = 10;
  const LoopControlFit f =
      fit_loop_control({sample("a", 300, 205), sample("a", 100, 0), no_ff, sample("c", 50, 0)}, 0, ControlMeasure::kFfs);
  ASSERT_EQ(f.designs.size(), 2u);  // b has no FF figure
  EXPECT_DOUBLE_EQ(f.designs[0].median, 97.5);  // a: 95 and 100
  EXPECT_DOUBLE_EQ(f.median, 73.75);
  EXPECT_EQ(f.modules, 3);
  EXPECT_THROW(fit_loop_control({no_ff}, 0, ControlMeasure::kFfs), InputError);
}

TEST(ControlFit, TheFfEstimateUsesTheFitOfTheRealReports) {
  const std::string root = real_reports_root();
  if (root.empty()) GTEST_SKIP() << "TTSIM_SHARED/data/hls_reports not found (set TTSIM_SHARED to the shared folder)";
  int left_out = 0;
  const std::vector<LoopControlSample> samples = loop_control_samples(read_reports(root), root, &left_out);
  const LoopControlFit f = fit_loop_control(samples, left_out, ControlMeasure::kFfs);
  print_fit("FF", f);
  EXPECT_GE(f.designs.size(), 5u);
  EXPECT_EQ(kControlFfsPerPipelinedLoop, std::round(f.median));
  EXPECT_EQ(kControlFfsPerPipelinedLoopLow, std::round(f.low));
  EXPECT_EQ(kControlFfsPerPipelinedLoopHigh, std::round(f.high));
  for (const LoopControlSample& s : samples) {
    if (s.ffs >= 0) EXPECT_GE(s.control_ffs(), 0) << s.design << " " << s.module;
  }
}

}  // namespace
}  // namespace ttsim::hls
