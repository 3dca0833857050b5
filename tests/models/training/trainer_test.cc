#include "models/training/trainer.h"

#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "models/dataset/atis_dataset.h"
#include "models/training/checkpoint.h"
#include "tests/models/dataset/synthetic_atis.h"
#include "tests/models/training/tiny_engine.h"

namespace ttsim::training {
namespace {

using testing::TinyEngine;

struct Fixture {
  dataset::AtisDataset ds;
  EngineSetup setup;
  RunIdentity id;
};

Fixture make_fixture(const std::string& name, std::uint64_t seed = 5) {
  Fixture f;
  f.ds = dataset::load_atis_dataset(
      dataset::testing::write_toy_atis(name, /*train=*/120, /*dev=*/40, /*test=*/40));
  f.setup.model.name = "tiny";
  f.setup.model.vocab = f.ds.vocab.size();
  f.setup.model.intents = f.ds.intents.size() + 2;  // more outputs than labels, like ATIS
  f.setup.model.slot_tags = f.ds.slot_tags.size();
  f.setup.model.seq_len = 6;
  f.setup.seed = seed;
  f.id = RunIdentity{"tiny", "tiny", seed, 0.2f, f.ds.train.size(), f.ds.vocab.size(), 6};
  return f;
}

TrainOptions options(int epochs, std::uint64_t seed = 5) {
  TrainOptions o;
  o.epochs = epochs;
  o.lr = 0.2f;
  o.seed = seed;
  o.seq_len = 6;  // toy utterances have 6 or 7 tokens: some are truncated
  return o;
}

TEST(ShuffledOrder, IsASeededPermutation) {
  const auto a = shuffled_order(100, 1, 1);
  EXPECT_EQ(std::set<int>(a.begin(), a.end()).size(), 100u);
  EXPECT_EQ(*std::min_element(a.begin(), a.end()), 0);
  EXPECT_EQ(*std::max_element(a.begin(), a.end()), 99);
  EXPECT_EQ(a, shuffled_order(100, 1, 1));
  EXPECT_NE(a, shuffled_order(100, 2, 1));
  EXPECT_NE(a, shuffled_order(100, 1, 2));
  std::vector<int> identity(100);
  for (int i = 0; i < 100; ++i) identity[i] = i;
  EXPECT_NE(a, identity);
  EXPECT_TRUE(shuffled_order(0, 1, 1).empty());
  EXPECT_EQ(shuffled_order(1, 1, 1), std::vector<int>{0});
}

TEST(Trainer, LossFallsAndTheModelLearnsTheToyTask) {
  auto f = make_fixture("learn");
  TinyEngine engine(f.setup);
  std::ostringstream progress;
  const auto r = train(engine, f.ds, options(6), f.id, &progress);
  ASSERT_EQ(r.epochs.size(), 6u);
  EXPECT_EQ(engine.steps, 6 * 120);
  EXPECT_LT(r.epochs.back().train_loss, 0.5 * r.epochs.front().train_loss);
  EXPECT_GT(r.epochs.back().dev.intent_accuracy, 0.95);
  EXPECT_GT(r.epochs.back().test.slot_f1, 0.8);
  EXPECT_EQ(r.epochs.back().dev.samples, 40);
  EXPECT_NE(progress.str().find("samples/s"), std::string::npos);
  EXPECT_NE(progress.str().find("running loss"), std::string::npos);
}

TEST(Trainer, SameSeedSameNumbersOtherSeedOtherNumbers) {
  auto f = make_fixture("seed");
  TinyEngine a(f.setup), b(f.setup);
  const auto ra = train(a, f.ds, options(2), f.id, nullptr);
  const auto rb = train(b, f.ds, options(2), f.id, nullptr);
  for (int e = 0; e < 2; ++e) {
    EXPECT_EQ(ra.epochs[e].train_loss, rb.epochs[e].train_loss);
    EXPECT_EQ(ra.epochs[e].dev.slot_f1, rb.epochs[e].dev.slot_f1);
    EXPECT_EQ(ra.epochs[e].test.intent_accuracy, rb.epochs[e].test.intent_accuracy);
  }
  EXPECT_EQ(a.save_parameters(), b.save_parameters());
  TinyEngine c(f.setup);
  const auto rc = train(c, f.ds, options(2, /*seed=*/6), f.id, nullptr);
  EXPECT_NE(ra.epochs[0].train_loss, rc.epochs[0].train_loss);  // another order
}

TEST(Trainer, CheckpointResumeEqualsUninterruptedRun) {
  auto f = make_fixture("resume");
  const std::string ckpt = dataset::testing::fresh_dir("resume_ckpt") + "/run.ckpt";
  TinyEngine straight(f.setup);
  const auto full = train(straight, f.ds, options(3), f.id, nullptr);

  auto o = options(1);
  o.checkpoint_path = ckpt;
  TinyEngine first(f.setup);
  train(first, f.ds, o, f.id, nullptr);
  o.epochs = 3;
  TinyEngine resumed(f.setup);  // fresh initialization, overwritten by the checkpoint
  std::ostringstream progress;
  const auto r = train(resumed, f.ds, o, f.id, &progress);
  EXPECT_NE(progress.str().find("after epoch 1"), std::string::npos);
  EXPECT_EQ(r.resumed_after_epoch, 1);
  EXPECT_EQ(resumed.steps, 2 * 120);
  ASSERT_EQ(r.epochs.size(), 3u);
  for (int e = 0; e < 3; ++e) {
    EXPECT_EQ(r.epochs[e].epoch, e + 1);
    EXPECT_EQ(r.epochs[e].train_loss, full.epochs[e].train_loss) << e;
    EXPECT_EQ(r.epochs[e].dev.slot_f1, full.epochs[e].dev.slot_f1) << e;
  }
  EXPECT_EQ(resumed.save_parameters(), straight.save_parameters());
  // The checkpoint on disk now holds 3 epochs and the final parameters.
  const auto c = read_checkpoint(ckpt);
  EXPECT_EQ(c.header.at("epochs").size(), 3u);
  EXPECT_EQ(c.parameters, straight.save_parameters());
}

TEST(Trainer, CheckpointOfAnotherRunIsRejected) {
  auto f = make_fixture("other_run");
  const std::string ckpt = dataset::testing::fresh_dir("other_ckpt") + "/run.ckpt";
  auto o = options(1);
  o.checkpoint_path = ckpt;
  TinyEngine e(f.setup);
  train(e, f.ds, o, f.id, nullptr);
  auto other = f.id;
  other.seed = 9;
  o.seed = 9;
  o.epochs = 2;
  TinyEngine e2(f.setup);
  try {
    train(e2, f.ds, o, other, nullptr);
    FAIL() << "no InputError";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("its seed is 5, this run's is 9"), std::string::npos)
        << err.what();
  }
  // A damaged file is named.
  { std::ofstream(ckpt, std::ios::trunc) << "garbage\n"; }
  EXPECT_THROW(train(e2, f.ds, o, f.id, nullptr), InputError);
  {
    std::ofstream out(ckpt, std::ios::trunc);
    out << "ttsim-checkpoint 2\n{}\n100\nshort";
  }
  try {
    read_checkpoint(ckpt);
    FAIL() << "no InputError";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("expected 100 parameter bytes, found 5"),
              std::string::npos)
        << err.what();
  }
}

TEST(Trainer, LimitsAndJsonReport) {
  auto f = make_fixture("limits");
  auto o = options(2);
  o.limit = 30;
  o.eval_limit = 10;
  f.id.train_samples = 30;
  TinyEngine e(f.setup);
  const auto r = train(e, f.ds, o, f.id, nullptr);
  EXPECT_EQ(e.steps, 60);
  EXPECT_EQ(r.epochs[0].train_samples, 30);
  EXPECT_EQ(r.epochs[0].dev.samples, 10);
  const Json j = train_report_to_json(r);
  EXPECT_EQ(j.at("engine"), "tiny");
  EXPECT_EQ(j.at("train_samples"), 30);
  ASSERT_EQ(j.at("epochs").size(), 2u);
  const auto& e2 = j.at("epochs")[1];
  EXPECT_EQ(e2.at("epoch"), 2);
  for (const char* k : {"train_loss", "train_seconds", "samples_per_second"}) {
    EXPECT_TRUE(e2.contains(k)) << k;
  }
  for (const char* k : {"intent_accuracy", "slot_f1", "slot_precision", "slot_recall"}) {
    EXPECT_TRUE(e2.at("dev").contains(k)) << k;
    EXPECT_TRUE(e2.at("test").contains(k)) << k;
  }
  const auto back = epoch_from_json(e2, "x");
  EXPECT_EQ(back.train_loss, r.epochs[1].train_loss);
  EXPECT_EQ(back.test.correct_spans, r.epochs[1].test.correct_spans);
}

/// An engine whose loss explodes: the driver stops with an InputError.
class DivergingEngine : public TinyEngine {
 public:
  using TinyEngine::TinyEngine;
  double train_step(const dataset::EncodedSample& s, float lr) override {
    TinyEngine::train_step(s, lr);
    return steps >= 3 ? std::nan("") : 1.0;
  }
};

TEST(Trainer, NonFiniteLossStopsWithTheSampleNamed) {
  auto f = make_fixture("diverge");
  DivergingEngine e(f.setup);
  try {
    train(e, f.ds, options(1), f.id, nullptr);
    FAIL() << "no InputError";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("epoch 1, sample 3"), std::string::npos) << err.what();
  }
}

/// Scores a fixed prediction: evaluation follows the documented rules.
class FixedEngine : public TinyEngine {
 public:
  using TinyEngine::TinyEngine;
  Prediction next;
  Prediction predict(const dataset::EncodedSample& s) override {
    Prediction p = next;
    p.slot_tags.resize(static_cast<std::size_t>(s.length), p.slot_tags.empty() ? 0 : p.slot_tags.back());
    return p;
  }
};

TEST(Evaluate, TruncatedGoldSpansCountAsMissedAndUnknownIdsAsWrong) {
  const std::string dir = dataset::testing::fresh_dir("eval_rules");
  dataset::testing::write_labels(dir, {"UNK", "a", "b"}, {"PAD", "UNK", "O", "B-x"});
  dataset::testing::write_split(dir, "train", {{"w v u", "O O B-x", "a"}});
  dataset::testing::write_split(dir, "dev", {{"w v u", "B-x O B-x", "a"}});
  dataset::testing::write_split(dir, "test", {{"w", "O", "zz"}});
  const auto ds = dataset::load_atis_dataset(dir);
  EngineSetup setup;
  setup.model.vocab = ds.vocab.size();
  setup.model.intents = 5;
  setup.model.slot_tags = ds.slot_tags.size();
  FixedEngine e(setup);
  e.next.intent = ds.intents.find("a").value();
  const int bx = ds.slot_tags.find("B-x").value();
  e.next.slot_tags = {bx, bx};  // with seq_len 2: predicts B-x B-x, position 2 unseen
  const auto dev = evaluate(e, ds, ds.dev, /*seq_len=*/2, 0);
  EXPECT_EQ(dev.intent_accuracy, 1.0);
  EXPECT_EQ(dev.gold_spans, 2);
  EXPECT_EQ(dev.predicted_spans, 2);
  EXPECT_EQ(dev.correct_spans, 1);  // [0,1) right; [1,2) spurious; [2,3) truncated: missed
  e.next.intent = 4;  // an output beyond the label set
  const auto test = evaluate(e, ds, ds.test, 2, 0);
  EXPECT_EQ(test.intent_accuracy, 0.0);
}

}  // namespace
}  // namespace ttsim::training
