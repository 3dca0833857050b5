// The "hls" (HLS kernels compiled natively) and "dense" (Eigen reference) training
// engines through the TrainingEngine interface, on a small TT model and the toy dataset.

#include <gtest/gtest.h>

#include "core/errors.h"
#include "models/dataset/atis_dataset.h"
#include "models/dataset/encoding.h"
#include "models/training/trainer.h"
#include "models/training/training_engine.h"
#include "tests/models/dataset/synthetic_atis.h"

namespace ttsim::training {
namespace {

ModelSpec tiny_tt_model() {
  return parse_model_spec(Json::parse(R"({
    "name": "tiny_tt", "encoders": 1, "d_model": 16, "heads": 2, "ffn_dim": 16,
    "seq_len": 8, "batch": 1, "vocab": 32, "intents": 6, "slot_tags": 8,
    "token_embedding": {"format": "ttm", "vocab_factors": [4, 8], "dim_factors": [4, 4],
                        "rank": 2},
    "layers": {
      "attention": {"format": "tt", "in_factors": [4, 4], "out_factors": [4, 4], "rank": 2},
      "ffn_in": {"format": "tt", "in_factors": [4, 4], "out_factors": [4, 4], "rank": 2},
      "ffn_out": {"format": "tt", "in_factors": [4, 4], "out_factors": [4, 4], "rank": 2},
      "intent_head": {"format": "dense"}, "slot_head": {"format": "dense"}}})"),
                          "tiny.json");
}

class Engines : public ::testing::TestWithParam<std::string> {};

TEST_P(Engines, LearnTheToyTaskAndRoundTripTheirParameters) {
  const auto ds = dataset::load_atis_dataset(
      dataset::testing::write_toy_atis("engines_" + GetParam(), 60, 20, 20));
  EngineSetup setup;
  setup.model = tiny_tt_model();
  check_model_fits_dataset(setup.model, ds);
  setup.data = dataset_shape(ds);
  setup.seed = 11;
  auto engine = make_engine(GetParam(), setup);
  EXPECT_FALSE(engine->describe().empty());

  TrainOptions o;
  o.epochs = 4;
  o.lr = 0.02f;
  o.seed = 11;
  o.seq_len = 8;
  const RunIdentity id{GetParam(), "tiny_tt", 11, o.lr, ds.train.size(), ds.vocab.size(), 8};
  const auto report = train(*engine, ds, o, id, nullptr);
  ASSERT_EQ(report.epochs.size(), 4u);
  EXPECT_LT(report.epochs.back().train_loss, 0.7 * report.epochs.front().train_loss);

  // Save -> load into a differently initialized engine: same predictions and same step.
  setup.seed = 99;
  auto other = make_engine(GetParam(), setup);
  other->load_parameters(engine->save_parameters());
  EXPECT_EQ(other->save_parameters(), engine->save_parameters());
  const auto sample = dataset::encode_utterance(ds, ds.dev.utterances[3], 8);
  const Prediction a = engine->predict(sample), b = other->predict(sample);
  EXPECT_EQ(a.intent, b.intent);
  EXPECT_EQ(a.slot_tags, b.slot_tags);
  EXPECT_EQ(a.slot_tags.size(), static_cast<std::size_t>(sample.length));
  EXPECT_EQ(engine->train_step(sample, 0.01f), other->train_step(sample, 0.01f));

  EXPECT_THROW(other->load_parameters("too short"), InputError);
}

INSTANTIATE_TEST_SUITE_P(HlsAndDense, Engines, ::testing::Values("hls", "dense", "reference"));

TEST(EngineRegistry, NamesTheLinkedEnginesWhenUnknown) {
  EngineSetup setup;
  setup.model = tiny_tt_model();
  try {
    make_engine("gpu", setup);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("available: dense, hls, reference"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ttsim::training
