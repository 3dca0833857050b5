// ModelReparser gives parse_model_spec's result and errors for every document of a
// sequence: random per-layer rank edits (the reuse path), and edits it must parse in full
// (a kind's rank, a factor list, an explicit rank list, a dense override, ranks out of
// range or not integers).

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "models/model_reparse.h"
#include "models/model_spec.h"

namespace ttsim {
namespace {

// The parse of `doc` as text: the resolved spec, or the error's message.
std::string outcome(const std::function<ModelSpec()>& parse) {
  try {
    return parse().to_json().dump();
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}

TEST(ModelReparser, EqualsAFullParseOverRandomEdits) {
  const Json base = load_json_file("configs/models/atis_2enc.json");
  const std::vector<std::string> layers = {"enc0.q", "enc0.k",  "enc0.v",      "enc0.o",     "enc0.ffn_in",
                                           "enc0.ffn_out", "enc1.q", "enc1.ffn_out", "intent_head"};
  std::mt19937 rng(7);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  ModelReparser reparser;
  Json doc = base;
  int fast_eligible = 0;
  for (int step = 0; step < 3000; ++step) {
    const std::string layer = layers[pick(static_cast<int>(layers.size()))];
    switch (pick(12)) {
      case 0:
        doc["layers"]["ffn_in"]["rank"] = 4 + pick(20);  // a kind's rank
        break;
      case 1:
        doc["overrides"][layer]["ranks"] = {1, 5, 6, 7, 8, 9, 1};  // an explicit list
        break;
      case 2:
        if (doc["overrides"][layer].is_object()) doc["overrides"][layer].erase("ranks");
        break;
      case 3:
        doc["overrides"][layer]["rank"] = pick(2) ? Json(0) : Json(5000);  // out of range
        break;
      case 4:
        doc["overrides"][layer]["rank"] = pick(2) ? Json(8.5) : Json("8");  // not an integer
        break;
      case 5:
        doc["overrides"][layer]["format"] = pick(3) ? "tt" : "dense";
        break;
      case 6:
        doc = base;
        break;
      default:
        doc["overrides"][layer]["rank"] = 1 + pick(40);  // what the reuse path takes
        ++fast_eligible;
    }
    std::shared_ptr<const ModelSpec> held;  // sometimes keep the result past the next call
    const std::string got = outcome([&] {
      auto s = reparser.parse(doc, "m.json");
      if (pick(4) == 0) held = s;
      return *s;
    });
    ASSERT_EQ(got, outcome([&] { return parse_model_spec(doc, "m.json"); })) << "step " << step << "\n" << doc.dump();
    if (held) {
      const std::string before = held->to_json().dump();
      doc["overrides"]["enc0.q"]["rank"] = 1 + pick(40);
      (void)outcome([&] { return *reparser.parse(doc, "m.json"); });
      EXPECT_EQ(held->to_json().dump(), before) << "a held result changed, step " << step;
    }
  }
  EXPECT_GT(fast_eligible, 1000);
}

TEST(ModelReparser, ARankEditReusesThePreviousParse) {
  Json doc = load_json_file("configs/models/atis_2enc.json");
  ModelReparser reparser;
  const ModelSpec* first = reparser.parse(doc, "m.json").get();
  doc["overrides"]["enc1.ffn_out"]["rank"] = 20;
  const ModelSpec* second = reparser.parse(doc, "m.json").get();  // a new override: parsed
  doc["overrides"]["enc1.ffn_out"]["rank"] = 24;
  const auto third = reparser.parse(doc, "m.json");
  EXPECT_NE(first, nullptr);
  EXPECT_EQ(third.get(), second);  // the same storage, ranks changed in place
  EXPECT_EQ(third->to_json(), parse_model_spec(doc, "m.json").to_json());
  EXPECT_EQ(third->linears[11].tt.ranks, (std::vector<std::int64_t>{1, 24, 24, 24, 24, 24, 1}));
}

TEST(ModelReparser, AnotherFileIsParsedForItsErrors) {
  Json doc = load_json_file("configs/models/atis_2enc.json");
  ModelReparser reparser;
  reparser.parse(doc, "a.json");
  doc["overrides"]["enc0.q"]["rank"] = 0;
  try {
    reparser.parse(doc, "b.json");
    FAIL() << "rank 0 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("b.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/overrides/enc0.q/rank"), std::string::npos) << e.what();
  }
}

TEST(ModelReparser, ASharedDocumentIsKnownByItsAddressUntilAnotherIsParsed) {
  Json doc = load_json_file("configs/models/atis_2enc.json");
  const auto a = std::make_shared<const Json>(doc);
  doc["overrides"]["enc1.ffn_out"]["rank"] = 20;
  const auto b = std::make_shared<const Json>(doc);
  ModelReparser reparser;
  const auto first = reparser.parse(a, "m.json");
  EXPECT_EQ(reparser.parse(a, "m.json"), first);  // the same object: the same result
  // Another document in between (shared or not): the first one parses to its own ranks again.
  for (int k = 0; k < 2; ++k) {
    const auto other = k == 0 ? reparser.parse(b, "m.json") : reparser.parse(*b, "m.json");
    EXPECT_EQ(other->to_json(), parse_model_spec(*b, "m.json").to_json());
    const auto again = reparser.parse(a, "m.json");
    EXPECT_EQ(again->to_json(), parse_model_spec(*a, "m.json").to_json());
  }
  EXPECT_NE(reparser.parse(a, "other.json"), nullptr);  // another file: parsed again, not refused
  EXPECT_EQ(reparser.parse(a, "other.json")->to_json(), parse_model_spec(*a, "m.json").to_json());
}

}  // namespace
}  // namespace ttsim
