#include "models/dataset/dataset_lengths.h"

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "tests/models/dataset/synthetic_atis.h"

namespace ttsim::dataset {
namespace {

AtisDataset three_splits() {
  const std::string dir = testing::fresh_dir("lengths");
  testing::write_labels(dir, {"UNK", "i"}, {"PAD", "UNK", "O"});
  testing::write_split(dir, "train",
                       {{"a", "O", "i"}, {"a b c", "O O O", "i"}, {"a b c", "O O O", "i"},
                        {"a b c d e f g", "O O O O O O O", "i"}});
  testing::write_split(dir, "dev", {{"a b", "O O", "i"}});
  testing::write_split(dir, "test", {{"a b c d", "O O O O", "i"}, {"a", "O", "i"}});
  return load_atis_dataset(dir);
}

std::string config_error(const std::string& text) {
  try {
    parse_dataset_lengths(Json::parse(text), "l.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

TEST(DatasetLengths, HistogramOfEverySplit) {
  const auto l = compute_dataset_lengths(three_splits(), "synthetic");
  EXPECT_EQ(l.max_length, 7);
  const auto& train = l.split("train");
  EXPECT_EQ(train.count, 4);
  EXPECT_EQ(train.samples, (std::map<std::int64_t, std::int64_t>{{1, 1}, {3, 2}, {7, 1}}));
  EXPECT_EQ(train.total_tokens(), 14);
  EXPECT_EQ(train.percentile(0.5), 3);
  EXPECT_EQ(train.percentile(1.0), 7);
  EXPECT_EQ(train.samples_longer_than(3), 1);
  EXPECT_EQ(l.split("dev").count, 1);
  EXPECT_EQ(l.split("test").max_length(), 4);
  EXPECT_THROW(l.split("valid"), InputError);
}

// An epoch is never priced over a split of no sample (it would print 0 s and 0 J).
TEST(DatasetLengths, AnEmptySplitPricesNoEpoch) {
  const auto l = parse_dataset_lengths(
      Json::parse(R"({"source":"s","splits":{"train":{"count":0,"histogram":{}},"dev":{"count":1,"histogram":{"2":1}}},)"
                  R"("max_length":2})"),
      "l.json");
  EXPECT_EQ(l.split("train").count, 0);
  EXPECT_EQ(l.epoch_split("dev").count, 1);
  try {
    l.epoch_split("train");
    ADD_FAILURE() << "no InputError for an empty split";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("l.json: /splits/train/count: expected a split with at least one sample"),
              std::string::npos)
        << e.what();
  }
}

TEST(DatasetLengths, JsonRoundTripKeepsNumericKeyOrder) {
  const auto l = compute_dataset_lengths(three_splits(), "synthetic");
  const std::string text = dataset_lengths_to_json(l);
  // Keys in increasing length, not lexicographic: "1", "3", "7"; splits train, dev, test.
  EXPECT_LT(text.find("\"train\""), text.find("\"dev\""));
  EXPECT_LT(text.find("\"dev\""), text.find("\"test\""));
  const auto back = parse_dataset_lengths(Json::parse(text), "x.json");
  EXPECT_EQ(back.source, "synthetic");
  EXPECT_EQ(back.max_length, 7);
  for (const char* s : {"train", "dev", "test"}) {
    EXPECT_EQ(back.split(s).samples, l.split(s).samples) << s;
    EXPECT_EQ(back.split(s).count, l.split(s).count) << s;
  }
  const std::string path = testing::fresh_dir("lengths_file") + "/l.json";
  write_file_atomic(path, text);
  EXPECT_EQ(load_dataset_lengths(path).split("train").count, 4);
}

TEST(DatasetLengths, LoaderRejectsInconsistentFiles) {
  EXPECT_NE(config_error(R"({"source":"s","splits":{"train":{"count":3,"histogram":{"2":2}}},)"
                         R"("max_length":2})")
                .find("/splits/train/count: expected the sum of the histogram's samples (2)"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"source":"s","splits":{"train":{"count":1,"histogram":{"02":1}}},)"
                         R"("max_length":2})")
                .find("/splits/train/histogram/02: expected a positive decimal token length"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"source":"s","splits":{"train":{"count":1,"histogram":{"2":1}}},)"
                         R"("max_length":5})")
                .find("/max_length: expected the longest length in the histograms (2)"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"source":"s","splits":{"dev":{"count":1,"histogram":{"2":1}}},)"
                         R"("max_length":2})")
                .find("/splits: expected a \"train\" split"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"source":"s","splits":{"train":{"count":1,"histogram":{"2":-1}}},)"
                         R"("max_length":2})")
                .find("/splits/train/histogram/2"),
            std::string::npos);
  EXPECT_NE(config_error(R"({"source":"s","splits":{},"max_length":2,"extra":1})")
                .find("/extra"),
            std::string::npos);
}

TEST(DatasetLengths, TruncationFoldsLongUtterancesIntoSeqLen) {
  const auto l = compute_dataset_lengths(three_splits(), "synthetic");
  const auto& train = l.split("train");
  const auto p = processed_lengths(train, 3);
  EXPECT_EQ(p.count, 4);
  EXPECT_EQ(p.samples, (std::map<std::int64_t, std::int64_t>{{1, 1}, {3, 3}}));
  EXPECT_EQ(epoch_tokens(train, 3, /*padded=*/false), 1 + 3 * 3);
  EXPECT_EQ(epoch_tokens(train, 3, /*padded=*/true), 4 * 3);
  EXPECT_EQ(epoch_tokens(train, 32, false), 14);
  EXPECT_EQ(epoch_tokens(train, 32, true), 4 * 32);
  EXPECT_THROW(processed_lengths(train, 0), std::invalid_argument);
}

}  // namespace
}  // namespace ttsim::dataset
