// Checks on the real ATIS files (JointBERT layout) under $TTSIM_SHARED/data/atis, and that
// the shipped configs/datasets/atis_lengths.json is the histogram of those files.

#include <cstdlib>

#include <gtest/gtest.h>

#include "models/dataset/atis_dataset.h"
#include "models/dataset/dataset_lengths.h"

namespace ttsim::dataset {
namespace {

class AtisReal : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* shared = std::getenv("TTSIM_SHARED");
    if (!shared || !*shared) GTEST_SKIP() << "TTSIM_SHARED is not set: no real ATIS data";
    dir_ = std::string(shared) + "/data/atis";
  }
  std::string dir_;
};

TEST_F(AtisReal, SplitSizesAndLabelSets) {
  const auto ds = load_atis_dataset(dir_);
  EXPECT_EQ(ds.train.size(), 4478);
  EXPECT_EQ(ds.dev.size(), 500);
  EXPECT_EQ(ds.test.size(), 893);
  EXPECT_EQ(ds.vocab.size(), 867 + 2);  // train types + PAD + UNK
  EXPECT_EQ(ds.intents.size(), 22);
  EXPECT_EQ(ds.slot_tags.size(), 122);
  // Every train label is listed; dev and test have a few unlisted ones (SOURCE.md).
  int unk_train = 0, unk_dev_intents = 0;
  for (const auto& u : ds.train.utterances) {
    unk_train += u.intent_id == ds.unk_intent;
    for (int t : u.tag_ids) unk_train += t == ds.unk_tag;
  }
  for (const auto& u : ds.dev.utterances) unk_dev_intents += u.intent_id == ds.unk_intent;
  EXPECT_EQ(unk_train, 0);
  EXPECT_EQ(unk_dev_intents, 1);
}

TEST_F(AtisReal, ShippedLengthHistogramMatchesTheData) {
  const auto ds = load_atis_dataset(dir_);
  const auto computed = compute_dataset_lengths(ds, "");
  const auto shipped = load_dataset_lengths("configs/datasets/atis_lengths.json");
  EXPECT_EQ(shipped.max_length, computed.max_length);
  EXPECT_EQ(shipped.max_length, 46);
  for (const char* s : {"train", "dev", "test"}) {
    EXPECT_EQ(shipped.split(s).count, computed.split(s).count) << s;
    EXPECT_EQ(shipped.split(s).samples, computed.split(s).samples) << s;
  }
  EXPECT_EQ(shipped.split("train").count, 4478);
  EXPECT_EQ(shipped.split("dev").count, 500);
  EXPECT_EQ(shipped.split("test").count, 893);
  // Medians and maxima recorded in SOURCE.md next to the data.
  EXPECT_EQ(shipped.split("train").percentile(0.5), 11);
  EXPECT_EQ(shipped.split("dev").max_length(), 35);
  EXPECT_EQ(shipped.split("test").max_length(), 30);
}

}  // namespace
}  // namespace ttsim::dataset
