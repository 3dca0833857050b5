#include "models/dataset/metrics.h"

#include <gtest/gtest.h>

namespace ttsim::dataset {
namespace {

using Tags = std::vector<std::string>;

TEST(BioSpans, BeginInsideAndOutside) {
  const auto s = bio_spans({"O", "B-city", "I-city", "O", "B-date", "B-date", "I-date"});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], (SlotSpan{"city", 1, 3}));
  EXPECT_EQ(s[1], (SlotSpan{"date", 4, 5}));
  EXPECT_EQ(s[2], (SlotSpan{"date", 5, 7}));
}

TEST(BioSpans, InsideWithoutBeginStartsASpan) {
  // conlleval: I-X after O / at the start / after another type opens a span.
  const auto s = bio_spans({"I-city", "I-city", "O", "I-date", "B-city", "I-date"});
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0], (SlotSpan{"city", 0, 2}));
  EXPECT_EQ(s[1], (SlotSpan{"date", 3, 4}));
  EXPECT_EQ(s[2], (SlotSpan{"city", 4, 5}));
  EXPECT_EQ(s[3], (SlotSpan{"date", 5, 6}));
}

TEST(BioSpans, UnprefixedTagsActAsOutside) {
  const auto s = bio_spans({"B-city", "PAD", "I-city", "UNK", "B-", "O"});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], (SlotSpan{"city", 0, 1}));
  EXPECT_EQ(s[1], (SlotSpan{"city", 2, 3}));
  EXPECT_TRUE(bio_spans({}).empty());
}

TEST(SlotF1, ExactBoundariesAndTypeRequired) {
  SlotF1 m;
  // gold: city[1,3) date[4,5); predicted: city[1,2) (wrong end) date[4,5) (right)
  m.add({"O", "B-city", "I-city", "O", "B-date"}, {"O", "B-city", "O", "O", "B-date"});
  // gold: city[0,1); predicted: time[0,1) (wrong type), city[2,3) (spurious)
  m.add({"B-city", "O", "O"}, {"B-time", "O", "B-city"});
  EXPECT_EQ(m.gold_spans(), 3);
  EXPECT_EQ(m.predicted_spans(), 4);
  EXPECT_EQ(m.correct_spans(), 1);
  EXPECT_DOUBLE_EQ(m.precision(), 0.25);
  EXPECT_DOUBLE_EQ(m.recall(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(m.f1(), 2 * 0.25 * (1.0 / 3) / (0.25 + 1.0 / 3));
  EXPECT_THROW(m.add({"O"}, {"O", "O"}), std::invalid_argument);
}

TEST(SlotF1, PerfectAndEmpty) {
  SlotF1 none;
  EXPECT_EQ(none.f1(), 0.0);
  none.add({"O", "O"}, {"O", "O"});
  EXPECT_EQ(none.f1(), 0.0);  // no spans at all: conlleval reports 0
  SlotF1 perfect;
  perfect.add({"B-a", "I-a", "O", "I-b"}, {"B-a", "I-a", "O", "B-b"});  // I-b == B-b span
  EXPECT_DOUBLE_EQ(perfect.f1(), 1.0);
}

TEST(IntentAccuracy, CountsExactMatches) {
  IntentAccuracy a;
  EXPECT_EQ(a.accuracy(), 0.0);
  a.add("atis_flight", "atis_flight");
  a.add("atis_airfare#atis_flight", "atis_airfare");
  a.add("atis_cheap", "UNK");  // an unlisted gold intent is never right
  EXPECT_EQ(a.total(), 3);
  EXPECT_EQ(a.correct(), 1);
  EXPECT_DOUBLE_EQ(a.accuracy(), 1.0 / 3);
}

}  // namespace
}  // namespace ttsim::dataset
