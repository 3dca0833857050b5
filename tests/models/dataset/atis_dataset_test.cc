#include "models/dataset/atis_dataset.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "models/dataset/encoding.h"
#include "tests/models/dataset/synthetic_atis.h"

namespace ttsim::dataset {
namespace {

using testing::SyntheticLine;

std::string small_dataset(const std::string& name) {
  const std::string dir = testing::fresh_dir(name);
  testing::write_labels(dir, {"UNK", "atis_flight", "atis_airfare"},
                        {"PAD", "UNK", "O", "B-city", "I-city"});
  testing::write_split(dir, "train",
                       {{"fly to new york", "O O B-city I-city", "atis_flight"},
                        {"fares to boston", "O O B-city", "atis_airfare"}});
  testing::write_split(dir, "dev", {{"fly to paris now", "O O B-city B-time", "atis_flight"}});
  testing::write_split(dir, "test",
                       {{"cheap fares  to york\r", "O O O B-city\r", "atis_cheap\r"}});
  return dir;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

TEST(AtisDataset, VocabularyFromTrainWithPadAndUnk) {
  const auto ds = load_atis_dataset(small_dataset("vocab"));
  EXPECT_EQ(ds.vocab.name(ds.pad_token), "PAD");
  EXPECT_EQ(ds.vocab.name(ds.unk_token), "UNK");
  // PAD, UNK + fly to new york fares boston
  EXPECT_EQ(ds.vocab.size(), 8);
  EXPECT_EQ(ds.train.size(), 2);
  const auto& u = ds.train.utterances[0];
  EXPECT_EQ(u.line, 1);
  EXPECT_EQ(u.token_ids, (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(u.intent_id, 1);
  EXPECT_EQ(u.tag_ids, (std::vector<int>{2, 2, 3, 4}));
}

TEST(AtisDataset, UnseenTokensIntentsAndTagsMapToUnk) {
  const auto ds = load_atis_dataset(small_dataset("unk"));
  const auto& d = ds.dev.utterances[0];
  EXPECT_EQ(d.token_ids[2], ds.unk_token);  // "paris" not in train
  EXPECT_EQ(d.token_ids[3], ds.unk_token);  // "now"
  EXPECT_EQ(d.tag_ids[3], ds.unk_tag);      // B-time not in slot_label.txt
  EXPECT_EQ(d.tags[3], "B-time");           // original string kept for metrics
  const auto& t = ds.test.utterances[0];
  EXPECT_EQ(t.intent_id, ds.unk_intent);    // atis_cheap not in intent_label.txt
  EXPECT_EQ(t.intent, "atis_cheap");        // CR stripped
  EXPECT_EQ(t.length(), 4);                 // double space and CRLF tolerated
  EXPECT_EQ(t.token_ids[3], ds.vocab.find("york").value());
}

TEST(AtisDataset, TagCountMismatchNamesFileAndLine) {
  const std::string dir = small_dataset("mismatch");
  testing::write_split(dir, "dev",
                       {{"fly to boston", "O O B-city", "atis_flight"},
                        {"fly to boston", "O B-city", "atis_flight"}});
  const auto msg = error_of([&] { load_atis_dataset(dir); });
  EXPECT_NE(msg.find(dir + "/dev/seq.out:2:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected 3 slot tags"), std::string::npos) << msg;
  EXPECT_NE(msg.find("found 2"), std::string::npos) << msg;
}

TEST(AtisDataset, MissingFilesAreNamed) {
  const std::string dir = small_dataset("missing");
  ASSERT_EQ(std::remove((dir + "/test/label").c_str()), 0);
  auto msg = error_of([&] { load_atis_dataset(dir); });
  EXPECT_NE(msg.find(dir + "/test/label: cannot open"), std::string::npos) << msg;
  ASSERT_EQ(std::remove((dir + "/slot_label.txt").c_str()), 0);
  msg = error_of([&] { load_atis_dataset(dir); });
  EXPECT_NE(msg.find(dir + "/slot_label.txt: cannot open"), std::string::npos) << msg;
  msg = error_of([&] { load_atis_dataset(dir + "/nowhere"); });
  EXPECT_NE(msg.find("nowhere: expected a dataset folder"), std::string::npos) << msg;
}

TEST(AtisDataset, LineCountMismatchAndEmptyUtterance) {
  const std::string dir = small_dataset("counts");
  testing::write_text(dir + "/dev/label", "atis_flight\natis_flight\n");
  auto msg = error_of([&] { load_atis_dataset(dir); });
  EXPECT_NE(msg.find("same number of lines, found 1, 1 and 2"), std::string::npos) << msg;
  testing::write_split(dir, "dev", {{"fly", "O", "atis_flight"}, {"", "", "atis_flight"}});
  msg = error_of([&] { load_atis_dataset(dir); });
  EXPECT_NE(msg.find(dir + "/dev/seq.in:2: expected at least one token"), std::string::npos)
      << msg;
}

TEST(AtisDataset, LabelFilesMustReserveUnkAndPad) {
  const std::string dir = small_dataset("labels");
  testing::write_labels(dir, {"atis_flight", "atis_airfare"}, {"PAD", "UNK", "O", "B-city"});
  auto msg = error_of([&] { load_atis_dataset(dir); });
  EXPECT_NE(msg.find("intent_label.txt: expected a line \"UNK\""), std::string::npos) << msg;
  testing::write_labels(dir, {"UNK", "atis_flight"}, {"UNK", "O", "B-city"});
  msg = error_of([&] { load_atis_dataset(dir); });
  EXPECT_NE(msg.find("slot_label.txt: expected a line \"PAD\""), std::string::npos) << msg;
  testing::write_labels(dir, {"UNK", "atis_flight", "atis_flight"}, {"PAD", "UNK"});
  msg = error_of([&] { load_atis_dataset(dir); });
  EXPECT_NE(msg.find("intent_label.txt:3: label \"atis_flight\" listed twice"),
            std::string::npos)
      << msg;
}

TEST(Encoding, PadsShortAndTruncatesLongUtterances) {
  const auto ds = load_atis_dataset(small_dataset("encode"));
  const auto& u = ds.train.utterances[0];  // 4 tokens
  const auto padded = encode_utterance(ds, u, 6);
  EXPECT_EQ(padded.length, 4);
  EXPECT_FALSE(padded.truncated());
  EXPECT_EQ(padded.tokens, (std::vector<int>{2, 3, 4, 5, ds.pad_token, ds.pad_token}));
  EXPECT_EQ(padded.tags, (std::vector<int>{2, 2, 3, 4, ds.pad_tag, ds.pad_tag}));
  const auto cut = encode_utterance(ds, u, 3);
  EXPECT_EQ(cut.length, 3);
  EXPECT_EQ(cut.full_length, 4);
  EXPECT_TRUE(cut.truncated());
  EXPECT_EQ(cut.tokens, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(cut.tags, (std::vector<int>{2, 2, 3}));
  EXPECT_THROW(encode_utterance(ds, u, 0), std::invalid_argument);
}

TEST(ToyDataset, IsReproducibleAndLoads) {
  const auto a = load_atis_dataset(testing::write_toy_atis("toy_a", 40, 10, 10, 3));
  const auto b = load_atis_dataset(testing::write_toy_atis("toy_b", 40, 10, 10, 3));
  ASSERT_EQ(a.train.size(), 40);
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(a.train.utterances[i].words, b.train.utterances[i].words);
  }
}

}  // namespace
}  // namespace ttsim::dataset
