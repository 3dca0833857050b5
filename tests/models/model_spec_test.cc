// Validation of model configs (models/model_spec.h): one test per kind of error, each
// asserting the file, the JSON pointer, what was expected and what was found; and a
// round trip of every shipped model config through to_json() and the parser.

#include <dirent.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "models/model_spec.h"

namespace ttsim {
namespace {

/// A small valid model: TTM embedding, TT layers, dense heads.
Json base_doc() {
  return Json::parse(R"({
    "name": "small", "encoders": 2, "d_model": 64, "heads": 4, "ffn_dim": 96, "seq_len": 8,
    "vocab": 100, "intents": 5, "slot_tags": 7,
    "token_embedding": {"format": "ttm", "vocab_factors": [4, 25], "dim_factors": [8, 8], "rank": 4},
    "layers": {
      "attention": {"format": "tt", "in_factors": [4, 4, 4], "out_factors": [4, 16], "rank": 3},
      "ffn_in": {"format": "tt", "in_factors": [8, 8], "out_factors": [8, 12], "ranks": [1, 2, 3, 2, 1]},
      "ffn_out": {"format": "tt", "in_factors": [8, 12], "out_factors": [8, 8], "rank": 2},
      "intent_head": {"format": "dense"},
      "slot_head": {"format": "dense", "bias": false}
    },
    "overrides": {"enc1.o": {"format": "dense"}, "enc0.k": {"ranks": [1, 2, 2, 2, 2, 1]}}
  })");
}

std::string write_doc(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  write_file_atomic(path, text);
  return path;
}

/// Loads `doc` (patched by `patch`, a JSON Patch) from a file; returns the ConfigError.
ConfigError load_error(const std::string& name, const Json& patch) {
  const std::string path = write_doc(name, base_doc().patch(patch).dump(2));
  try {
    load_model_spec(path);
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path);
    return e;
  }
  ADD_FAILURE() << "no ConfigError for " << patch.dump();
  return ConfigError("", "", "", "");
}

void expect_error(const std::string& name, const Json& patch, const std::string& pointer,
                  const std::string& expected, const std::string& found) {
  const ConfigError e = load_error(name, patch);
  EXPECT_EQ(e.pointer(), pointer) << e.what();
  EXPECT_NE(e.expected().find(expected), std::string::npos) << "expected: " << e.expected();
  EXPECT_NE(e.found().find(found), std::string::npos) << "found: " << e.found();
  // The message carries all four parts.
  const std::string what = e.what();
  EXPECT_NE(what.find(e.file()), std::string::npos) << what;
  EXPECT_NE(what.find(pointer.empty() ? "/" : pointer), std::string::npos) << what;
}

Json op(const std::string& o, const std::string& path, const Json& value = nullptr) {
  Json j = {{"op", o}, {"path", path}};
  if (o != "remove") j["value"] = value;
  return Json::array({j});
}

TEST(ModelSpecLoader, BaseDocumentIsValid) {
  const ModelSpec m = load_model_spec(write_doc("base.json", base_doc().dump()));
  ASSERT_EQ(m.linears.size(), 14u);
  EXPECT_EQ(m.linears[1].tt.ranks, (std::vector<std::int64_t>{1, 2, 2, 2, 2, 1}));
  EXPECT_EQ(m.linears[0].tt.ranks, (std::vector<std::int64_t>{1, 3, 3, 3, 3, 1}));
  EXPECT_EQ(m.linears[9].format, WeightFormat::kDense);  // enc1.o
  EXPECT_FALSE(m.linears[13].bias);
  EXPECT_EQ(m.token_embedding.ttm.ranks, (std::vector<std::int64_t>{1, 4, 1}));
}

TEST(ModelSpecLoader, UnknownKey) {
  expect_error("unknown_root.json", op("add", "/colour", "red"), "/colour", "one of the known keys",
               "unknown key \"colour\"");
  expect_error("unknown_layer.json", op("add", "/layers/attention/rnak", 3),
               "/layers/attention/rnak", "rank", "unknown key \"rnak\"");
  expect_error("unknown_override.json", op("add", "/overrides/enc0.k/lanes", 2),
               "/overrides/enc0.k/lanes", "in_factors", "unknown key \"lanes\"");
  expect_error("unknown_kind.json", op("add", "/layers/mlp", Json::object()), "/layers/mlp",
               "ffn_in", "unknown key \"mlp\"");
}

// A model whose step the workload's 64-bit counts cannot hold is refused at /d_model, not
// printed with wrapped-around totals.
TEST(ModelSpecLoader, StepTooLargeToCount) {
  const Json patch = Json::array({{{"op", "replace"}, {"path", "/d_model"}, {"value", 1 << 20}},
                                  {{"op", "replace"}, {"path", "/ffn_dim"}, {"value", 1 << 20}},
                                  {{"op", "replace"}, {"path", "/seq_len"}, {"value", 65536}},
                                  {{"op", "replace"}, {"path", "/encoders"}, {"value", 8}}});
  expect_error("too_large.json", patch, "/d_model", "count in 64-bit integers", "multiply-accumulates per step");
}

TEST(ModelSpecLoader, WrongType) {
  expect_error("type_int.json", op("replace", "/d_model", "64"), "/d_model", "an integer",
               "string \"64\"");
  expect_error("type_bool.json", op("replace", "/layers/slot_head/bias", 0),
               "/layers/slot_head/bias", "true or false", "number 0");
  expect_error("type_list.json", op("replace", "/layers/attention/in_factors", 64),
               "/layers/attention/in_factors", "an array", "number 64");
  expect_error("type_enum.json", op("replace", "/layers/ffn_in/format", "ttm"),
               "/layers/ffn_in/format", "one of \"dense\", \"tt\"", "string \"ttm\"");
  expect_error("type_overrides.json", op("replace", "/overrides", Json::array()), "/overrides",
               "an object", "array of 0");
}

TEST(ModelSpecLoader, FactorProductDiffersFromDimension) {
  expect_error("product_in.json", op("replace", "/layers/attention/in_factors", {4, 4, 2}),
               "/layers/attention/in_factors", "product is 64", "[4,4,2] with product 32");
  expect_error("product_out.json", op("replace", "/layers/ffn_in/out_factors", {8, 8}),
               "/layers/ffn_in/out_factors", "product is 96", "[8,8] with product 64");
  expect_error("product_vocab.json", op("replace", "/token_embedding/vocab_factors", {10, 11}),
               "/token_embedding/vocab_factors", "vocabulary 100", "[10,11] with product 110");
  expect_error("product_dim.json", op("replace", "/token_embedding/dim_factors", {8, 4}),
               "/token_embedding/dim_factors", "d_model 64", "[8,4] with product 32");
  // A product beyond 64 bits is never taken for a dimension (a wrapped product could equal one).
  expect_error("product_overflow.json",
               op("replace", "/layers/attention/in_factors", {1048576, 1048576, 1048576, 1048576}),
               "/layers/attention/in_factors", "product is 64", "with product beyond 2^63");
  // An override changing the factors of one layer is checked against that layer.
  expect_error("product_override.json", op("add", "/overrides/enc1.ffn_out", {{"out_factors", {8, 4}}}),
               "/overrides/enc1.ffn_out/out_factors", "product is 64", "with product 32");
}

TEST(ModelSpecLoader, RankBelowOne) {
  expect_error("rank_zero.json", op("replace", "/layers/attention/rank", 0),
               "/layers/attention/rank", "an integer in [1, ", "number 0");
  expect_error("rank_list_zero.json", op("replace", "/layers/ffn_in/ranks", {1, 2, 0, 2, 1}),
               "/layers/ffn_in/ranks/2", "an integer in [1, ", "number 0");
  expect_error("ttm_rank_neg.json", op("replace", "/token_embedding/rank", -3),
               "/token_embedding/rank", "an integer in [1, ", "number -3");
}

TEST(ModelSpecLoader, EmptyList) {
  expect_error("empty_in.json", op("replace", "/layers/attention/in_factors", Json::array()),
               "/layers/attention/in_factors", "an array of at least 1", "an empty array");
  expect_error("empty_vocab.json", op("replace", "/token_embedding/vocab_factors", Json::array()),
               "/token_embedding/vocab_factors", "an array of at least 1", "an empty array");
}

TEST(ModelSpecLoader, NumberOutOfRange) {
  expect_error("range_encoders.json", op("replace", "/encoders", 5000), "/encoders",
               "an integer in [0, 1024]", "number 5000");
  expect_error("range_fraction.json", op("replace", "/seq_len", 8.5), "/seq_len", "an integer",
               "number 8.5");
  expect_error("range_factor.json", op("replace", "/layers/ffn_out/out_factors", {0, 8}),
               "/layers/ffn_out/out_factors/0", "an integer in [1, ", "number 0");
  expect_error("range_heads.json", op("replace", "/heads", 5), "/heads",
               "divides d_model = 64", "5");
}

TEST(ModelSpecLoader, RankListOfWrongLength) {
  expect_error("ranks_short.json", op("replace", "/layers/ffn_in/ranks", {1, 2, 1}),
               "/layers/ffn_in/ranks", "a rank list of 5 entries", "a list of 3");
  // An override of the factors makes the inherited rank list the wrong length: the error
  // points at the rank list in force.
  expect_error("ranks_inherited.json",
               op("add", "/overrides/enc0.ffn_in", {{"in_factors", {2, 4, 8}}}),
               "/layers/ffn_in/ranks", "a rank list of 6 entries", "a list of 5");
  expect_error("ttm_ranks_long.json",
               Json::array({{{"op", "remove"}, {"path", "/token_embedding/rank"}},
                            {{"op", "add"}, {"path", "/token_embedding/ranks"}, {"value", {1, 4, 4, 1}}}}),
               "/token_embedding/ranks", "a rank list of 3 entries", "a list of 4");
}

TEST(ModelSpecLoader, BoundaryRanksNotOne) {
  expect_error("boundary_first.json", op("replace", "/layers/ffn_in/ranks", {2, 2, 3, 2, 1}),
               "/layers/ffn_in/ranks", "boundary ranks r_0 = r_4 = 1", "[2,2,3,2,1]");
  expect_error("boundary_last.json", op("replace", "/overrides/enc0.k/ranks", {1, 2, 2, 2, 2, 3}),
               "/overrides/enc0.k/ranks", "boundary ranks r_0 = r_5 = 1", "[1,2,2,2,2,3]");
}

TEST(ModelSpecLoader, BothRankAndRanks) {
  expect_error("both_layer.json", op("add", "/layers/attention/ranks", {1, 3, 3, 3, 3, 1}),
               "/layers/attention/ranks", "either \"rank\" or \"ranks\"", "both keys");
  expect_error("both_ttm.json", op("add", "/token_embedding/ranks", {1, 4, 1}),
               "/token_embedding/ranks", "either \"rank\" or \"ranks\"", "both keys");
}

TEST(ModelSpecLoader, UnknownOverrideLayer) {
  expect_error("override_enc.json", op("add", "/overrides/enc2.q", {{"rank", 2}}),
               "/overrides/enc2.q", "a layer name", "unknown layer \"enc2.q\"");
  expect_error("override_kind.json", op("add", "/overrides/attention", {{"rank", 2}}),
               "/overrides/attention", "a layer name", "unknown layer \"attention\"");
}

TEST(ModelSpecLoader, MissingRequiredKeys) {
  expect_error("missing_vocab.json", op("remove", "/vocab"), "", "required key \"vocab\"",
               "no such key");
  expect_error("missing_factors.json", op("remove", "/layers/ffn_out/in_factors"),
               "/layers/ffn_out", "\"in_factors\" for a TT layer", "no such key");
  expect_error("missing_rank.json", op("remove", "/layers/ffn_out/rank"), "/layers/ffn_out",
               "\"rank\" or \"ranks\"", "neither");
  expect_error("missing_kind.json", op("remove", "/layers/ffn_in"), "/layers",
               "a format for layer kind \"ffn_in\"", "no such key");
  expect_error("head_tt_no_factors.json", op("replace", "/layers/intent_head/format", "tt"),
               "/layers/intent_head", "\"in_factors\" for a TT layer", "no such key");
}

TEST(ModelSpecLoader, DenseEmbeddingRejectsTtmKeys) {
  expect_error("dense_embedding.json", op("replace", "/token_embedding/format", "dense"),
               "/token_embedding/vocab_factors", "no \"vocab_factors\" for a dense embedding",
               "the key");
}

TEST(ModelSpecLoader, BadJsonSyntaxGivesTheLine) {
  const std::string path =
      write_doc("syntax.json", "{\n  \"name\": \"x\",\n  \"encoders\": 2,\n  \"d_model\": 64,,\n}\n");
  try {
    load_model_spec(path);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.pointer(), "");
    EXPECT_EQ(e.expected(), "valid JSON");
    EXPECT_NE(e.found().find("line 4"), std::string::npos) << e.found();
  }
}

TEST(ModelSpecLoader, MissingFileIsInputError) {
  EXPECT_THROW(load_model_spec(::testing::TempDir() + "/no_such_model.json"), InputError);
}

std::vector<std::string> json_files(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() > 5 && n.substr(n.size() - 5) == ".json") out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  return out;
}

void expect_same_model(const ModelSpec& a, const ModelSpec& b) {
  EXPECT_EQ(a.to_json(), b.to_json());
  EXPECT_EQ(a.dense_params(), b.dense_params());
  EXPECT_EQ(a.compressed_params(), b.compressed_params());
  ASSERT_EQ(a.linears.size(), b.linears.size());
  for (std::size_t i = 0; i < a.linears.size(); ++i) {
    EXPECT_EQ(a.linears[i].name, b.linears[i].name);
    EXPECT_EQ(a.linears[i].format, b.linears[i].format) << a.linears[i].name;
    EXPECT_EQ(a.linears[i].tt.in_factors, b.linears[i].tt.in_factors) << a.linears[i].name;
    EXPECT_EQ(a.linears[i].tt.out_factors, b.linears[i].tt.out_factors) << a.linears[i].name;
    EXPECT_EQ(a.linears[i].tt.ranks, b.linears[i].tt.ranks) << a.linears[i].name;
    EXPECT_EQ(a.linears[i].bias, b.linears[i].bias) << a.linears[i].name;
  }
  EXPECT_EQ(a.token_embedding.format, b.token_embedding.format);
  EXPECT_EQ(a.token_embedding.ttm.ranks, b.token_embedding.ttm.ranks);
}

TEST(ModelSpecRoundTrip, EveryShippedConfigRoundTripsThroughToJson) {
  const auto files = json_files("configs/models");
  ASSERT_GE(files.size(), 4u);
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const ModelSpec m = load_model_spec(f);
    const std::string path = write_doc("roundtrip.json", m.to_json().dump(2));
    expect_same_model(load_model_spec(path), m);
  }
}

TEST(ModelSpecRoundTrip, ModelWithoutEncodersRoundTrips) {
  Json doc = base_doc();
  doc["encoders"] = 0;
  doc.erase("overrides");
  const ModelSpec m = parse_model_spec(doc, "zero.json");
  EXPECT_EQ(m.linears.size(), 2u);
  expect_same_model(parse_model_spec(m.to_json(), "zero_resolved.json"), m);
}

}  // namespace
}  // namespace ttsim
