#include "dse/report/front_views.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "dse/report/gnuplot.h"
#include "dse/report/html_text.h"
#include "dse/report/report_tables.h"

namespace ttsim::dse {

// Found by argument-dependent lookup from std::vector's ==.
bool operator==(const LineVertex& a, const LineVertex& b) { return a.x == b.x && a.y == b.y; }

namespace {

TEST(PairFront, MinimisedPairKeepsTheStaircase) {
  //            0  1  2  3  4    5
  const std::vector<double> x = {1, 2, 3, 2, 4, NAN};
  const std::vector<double> y = {5, 3, 1, 4, 1, 0};
  // (2,4) is beaten by (2,3); (4,1) by (3,1); the NaN point never counts.
  EXPECT_EQ(pair_front(x, false, y, false), (std::vector<bool>{true, true, true, false, false, false}));
}

TEST(PairFront, MaximisedAxisAndEqualPoints) {
  // y maximised (accuracy): low x and high y win; two equal points are both kept.
  const std::vector<double> x = {1, 1, 2, 3, 3};
  const std::vector<double> y = {80, 80, 85, 84, 90};
  EXPECT_EQ(pair_front(x, false, y, true), (std::vector<bool>{true, true, true, false, true}));
}

std::string text(const std::vector<LineVertex>& line) {
  std::string s;
  for (const auto& v : line) s += "(" + std::to_string(v.x) + "," + std::to_string(v.y) + ")";
  return s;
}

TEST(PairStaircase, MinimisedAxesStepRightThenDown) {
  const std::vector<double> x = {1, 2, 3, 2, 4, NAN};
  const std::vector<double> y = {5, 3, 1, 4, 1, 0};
  const auto line = pair_staircase(x, false, y, false);
  // Front (1,5), (2,3), (3,1); between two of them the corner (next x, previous y).
  EXPECT_EQ(line, (std::vector<LineVertex>{{1, 5}, {2, 5}, {2, 3}, {3, 3}, {3, 1}})) << text(line);
}

TEST(PairStaircase, MaximisedYStepsRightThenUp) {
  // Epoch seconds (min) against accuracy (max): (3,84) is beaten by (2,85).
  const std::vector<double> x = {4, 1, 3, 2};
  const std::vector<double> y = {90, 80, 84, 85};
  const auto line = pair_staircase(x, false, y, true);
  EXPECT_EQ(line, (std::vector<LineVertex>{{1, 80}, {2, 80}, {2, 85}, {4, 85}, {4, 90}})) << text(line);
}

TEST(PairStaircase, MaximisedXRunsFromTheLargestX) {
  // Compression (max) against DSPs (min): (20,200) is beaten by (30,150); equal points once.
  const std::vector<double> x = {10, 20, 30, 30};
  const std::vector<double> y = {100, 200, 150, 150};
  const auto line = pair_staircase(x, true, y, false);
  EXPECT_EQ(line, (std::vector<LineVertex>{{30, 150}, {10, 150}, {10, 100}})) << text(line);
  EXPECT_TRUE(pair_staircase({NAN}, false, {1}, false).empty());
}

TEST(PaddedRange, LogAxisByFactorLinearBySpan) {
  const auto log = padded_range({184, 11181, 900, NAN}, true);
  EXPECT_DOUBLE_EQ(log.first, 184 / 1.3);
  EXPECT_DOUBLE_EQ(log.second, 11181 * 1.3);
  const auto lin = padded_range({80, 90}, false);
  EXPECT_DOUBLE_EQ(lin.first, 80 - 0.6);
  EXPECT_DOUBLE_EQ(lin.second, 90 + 0.6);
  const auto one = padded_range({50}, false);
  EXPECT_LT(one.first, 50);
  EXPECT_GT(one.second, 50);
  // Non-negative values: the margin stops at 0 (energy in J never runs below zero).
  const auto energy = padded_range({500, 26000}, false, 1.3, 0.1);
  EXPECT_DOUBLE_EQ(energy.first, 0);
  EXPECT_DOUBLE_EQ(energy.second, 26000 + 2550);
  EXPECT_DOUBLE_EQ(padded_range({0}, false).first, 0);
  // A negative value keeps the margin below it.
  EXPECT_LT(padded_range({-5, 100}, false).first, -5);
}

TEST(LogAxisWanted, SpreadOfTenOrMore) {
  EXPECT_TRUE(log_axis_wanted({100, 1000}));
  EXPECT_TRUE(log_axis_wanted({184, 11181, NAN}));
  EXPECT_FALSE(log_axis_wanted({101, 1000}));
  EXPECT_FALSE(log_axis_wanted({0, 1000}));  // zero has no place on a log axis
  EXPECT_FALSE(log_axis_wanted({}));
}

TEST(TableNumber, FixedDecimalsPerMetricAndGroupedThousands) {
  EXPECT_EQ(table_number(Metric::kEpochSeconds, 11181.04), "11,181.0");
  EXPECT_EQ(table_number(Metric::kEpochSeconds, 184), "184.0");
  EXPECT_EQ(table_number(Metric::kEpochEnergyJoules, 1234567.4), "1,234,567");
  EXPECT_EQ(table_number(Metric::kOnchipBytes, 7.883 * 1024 * 1024), "7.883");
  EXPECT_EQ(table_number(Metric::kStepCycles, 4109620), "4,109,620");
  EXPECT_EQ(table_number(Metric::kAccuracy, 0.842), "84.20");
  EXPECT_EQ(table_number(Metric::kPowerTotalWatts, 9), "9.00");
  EXPECT_EQ(table_number(Metric::kDsp, NAN), "");
}

// gnuplot runs with no shell in between: an out folder named with a quote and a space works.
TEST(RunGnuplot, FolderWithQuoteAndSpace) {
  if (std::system("gnuplot --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::filesystem::path dir = std::filesystem::path(tmp ? tmp : "/tmp") / "it's a \"plot\" folder";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "d.csv") << "x,y\n1,2\n2,3\n";
  std::vector<std::string> notes;
  EXPECT_TRUE(run_gnuplot(dir.string(), "p", gnuplot_head("p", 200, 120) + "plot 'd.csv' using 1:2 with lines\n", notes));
  EXPECT_TRUE(notes.empty()) << notes.front();
  std::ifstream svg(dir / "p.svg");
  std::stringstream body;
  body << svg.rdbuf();
  EXPECT_NE(body.str().find("<svg"), std::string::npos);
  // The script re-plots on its own in its folder, into p.svg.
  std::filesystem::remove(dir / "p.svg");
  const std::string replot = "cd '" + std::string(tmp ? tmp : "/tmp") + "' && cd \"it's a \\\"plot\\\" folder\" && gnuplot p.gp";
  EXPECT_EQ(std::system(replot.c_str()), 0) << replot;
  EXPECT_TRUE(std::filesystem::exists(dir / "p.svg"));
  // A script gnuplot rejects: no SVG, a note, the log kept.
  EXPECT_FALSE(run_gnuplot(dir.string(), "bad", gnuplot_head("bad", 200, 120) + "plot 'missing.csv'\n", notes));
  EXPECT_EQ(notes.size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.svg"));
  EXPECT_TRUE(std::filesystem::exists(dir / "bad.gnuplot.log"));
}

TEST(FrontViews, ChoiceMetricAgainstEveryOtherObjective) {
  const auto v = front_views({Metric::kDsp, Metric::kEpochSeconds, Metric::kAccuracy}, Metric::kEpochSeconds);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].x, Metric::kEpochSeconds);
  EXPECT_EQ(v[0].y, Metric::kDsp);
  EXPECT_EQ(v[1].y, Metric::kAccuracy);
  // The choice metric not among the objectives: the first objective is x.
  EXPECT_EQ(front_views({Metric::kDsp, Metric::kLut}, Metric::kEpochSeconds)[0].x, Metric::kDsp);
  EXPECT_TRUE(front_views({Metric::kDsp}, Metric::kDsp).empty());
}

TEST(PlotAxis, EveryMetricLabelNamesAUnit) {
  for (int m = 0; m < kMetricCount; ++m) {
    const std::string label = plot_axis(static_cast<Metric>(m)).label;
    EXPECT_EQ(label.back(), ')') << label;
    EXPECT_NE(label.find(" ("), std::string::npos) << label;
  }
}

TEST(HtmlText, EscapeAndBase64) {
  EXPECT_EQ(html_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\xff\x00\x10", 3)), "/wAQ");
}

}  // namespace
}  // namespace ttsim::dse
