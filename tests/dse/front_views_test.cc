#include "dse/front_views.h"

#include <cmath>

#include <gtest/gtest.h>

#include "dse/html_text.h"

namespace ttsim::dse {
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
