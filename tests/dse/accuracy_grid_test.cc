// The accuracy grid (dse/accuracy/accuracy_grid.h): grid file validation, the stopping rule, and
// a run on a tiny synthetic dataset that is interrupted after its first finished run
// and resumed: the finished run is not retrained and the table equals an uninterrupted
// run's (wall times aside). With TTSIM_SHARED, a smoke run on 20 real ATIS utterances.
#include "dse/accuracy/accuracy_grid.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "dse/accuracy/accuracy_grid_spec.h"
#include "tests/models/dataset/synthetic_atis.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

using dataset::testing::fresh_dir;

std::string write_tiny_model(const std::string& dir) {
  const std::string path = dir + "/tiny.json";
  write_file_atomic(path, R"({"name": "tiny", "encoders": 1, "d_model": 16, "heads": 2, "ffn_dim": 16,
    "seq_len": 8, "batch": 1, "vocab": 32, "intents": 4, "slot_tags": 8,
    "token_embedding": {"format": "ttm", "vocab_factors": [4, 8], "dim_factors": [4, 4], "rank": 2},
    "layers": {
      "attention": {"format": "tt", "in_factors": [4, 4], "out_factors": [4, 4], "rank": 2},
      "ffn_in": {"format": "tt", "in_factors": [4, 4], "out_factors": [4, 4], "rank": 2},
      "ffn_out": {"format": "tt", "in_factors": [4, 4], "out_factors": [4, 4], "rank": 2},
      "intent_head": {"format": "dense"}, "slot_head": {"format": "dense"}}})");
  return path;
}

Json grid_doc(const std::string& model) {
  return {{"models", {model}}, {"tt_ranks", {2, 3}}, {"seeds", {1}}, {"engine", "reference"},
          {"lr", 0.01},        {"max_epochs", 3},    {"patience", 1}};
}

std::string grid_error(const Json& doc) {
  try {
    parse_grid_spec(doc, "grid.json");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(AccuracyGridSpec, DerivesRunsSeedMajorWithTheRankApplied) {
  const std::string dir = fresh_dir("grid_spec");
  Json doc = grid_doc(write_tiny_model(dir));
  doc["seeds"] = {1, 2};
  const GridSpec g = parse_grid_spec(doc, "grid.json");
  ASSERT_EQ(g.runs.size(), 4u);
  EXPECT_EQ(g.runs[0].id, "e1_tt2_ttm2_s1");
  EXPECT_EQ(g.runs[1].id, "e1_tt3_ttm2_s1");
  EXPECT_EQ(g.runs[2].id, "e1_tt2_ttm2_s2");
  EXPECT_EQ(g.runs[1].model["layers"]["ffn_out"]["rank"], 3);
  EXPECT_EQ(g.runs[1].model_name, "tiny_r3");
  EXPECT_EQ(g.fixed, (Json{{"d_model", 16}, {"heads", 2}, {"ffn_dim", 16}, {"seq_len", 8}}));
}

TEST(AccuracyGridSpec, LayerRanksDesignsAreKeyedByEveryTtLayersRank) {
  const std::string dir = fresh_dir("grid_layers");
  Json doc = grid_doc(write_tiny_model(dir));
  doc["layer_ranks"] = {{{"name", "attn3"}, {"encoders", 1}, {"ranks", {{"tt_rank.attention", 3}}}},
                        {{"name", "enc0_ffn_in4"}, {"encoders", 1}, {"ranks", {{"tt_rank.enc0.ffn_in", 4}}}}};
  const GridSpec g = parse_grid_spec(doc, "grid.json");
  ASSERT_EQ(g.runs.size(), 4u);  // tt 2, tt 3, then the two designs
  const GridRun& r = g.runs[2];
  EXPECT_EQ(r.id, "e1_attn3_ttm2_s1");
  EXPECT_EQ(r.model_name, "tiny_attn3");
  EXPECT_TRUE(r.key.per_layer());
  EXPECT_EQ(r.key.tt_rank, 0);
  EXPECT_EQ(r.key.layer_ranks, (std::map<std::string, std::int64_t>{
                                   {"enc0.q", 3}, {"enc0.k", 3}, {"enc0.v", 3}, {"enc0.o", 3},
                                   {"enc0.ffn_in", 2}, {"enc0.ffn_out", 2}}));
  EXPECT_EQ(g.runs[3].key.layer_ranks.at("enc0.ffn_in"), 4);
  EXPECT_EQ(g.runs[3].key.layer_ranks.at("enc0.q"), 2);  // the base model's rank

  auto error = [&](const Json& design) {
    Json d = doc;
    d["layer_ranks"] = {design};
    return grid_error(d);
  };
  auto design = [](const std::string& name, int enc, const Json& ranks) {
    return Json{{"name", name}, {"encoders", enc}, {"ranks", ranks}};
  };
  EXPECT_NE(error(design("Bad Name", 1, {{"tt_rank.attention", 3}})).find("/layer_ranks/0/name: expected a name of a-z"),
            std::string::npos);
  EXPECT_NE(error(design("a", 2, {{"tt_rank.attention", 3}})).find("/layer_ranks/0/encoders: expected the encoder count"),
            std::string::npos);
  EXPECT_NE(error(design("a", 1, {{"tt_rank.enc1.ffn_in", 3}})).find("/layer_ranks/0/ranks/tt_rank.enc1.ffn_in: expected a TT "
                                                                    "rank axis of a 1-encoder model"),
            std::string::npos)
      << error(design("a", 1, {{"tt_rank.enc1.ffn_in", 3}}));
  EXPECT_NE(error(design("a", 1, {{"lanes", 3}})).find("expected a TT rank axis"), std::string::npos);
  EXPECT_NE(error(design("a", 1, {{"tt_rank.attention", 2}})).find("a uniform rank belongs in /tt_ranks"),
            std::string::npos)
      << error(design("a", 1, {{"tt_rank.attention", 2}}));
  Json twice = doc;
  twice["layer_ranks"].push_back(design("attn3_again", 1, {{"tt_rank.enc0.attention", 3}}));
  EXPECT_NE(grid_error(twice).find("/layer_ranks/2/ranks: expected ranks no other design has, found the ranks of "
                                   "tiny_attn3"),
            std::string::npos)
      << grid_error(twice);
  twice = doc;
  twice["layer_ranks"].push_back(design("attn3", 1, {{"tt_rank.attention", 4}}));
  EXPECT_NE(grid_error(twice).find("/layer_ranks/2/name: expected each name once"), std::string::npos);
}

TEST(AccuracyGridSpec, RejectsBadGridsNamingThePointer) {
  const std::string dir = fresh_dir("grid_bad");
  const std::string model = write_tiny_model(dir);
  Json d = grid_doc(model);
  d["epochs"] = 3;
  EXPECT_NE(grid_error(d).find("grid.json"), std::string::npos) << grid_error(d);
  EXPECT_NE(grid_error(d).find("epochs"), std::string::npos) << grid_error(d);
  d = grid_doc(model);
  d["tt_ranks"] = {2, 2};
  EXPECT_NE(grid_error(d).find("/tt_ranks/1: expected each value once"), std::string::npos) << grid_error(d);
  d = grid_doc(model);
  d["models"] = {dir + "/nope.json"};
  EXPECT_NE(grid_error(d).find("/models/0: expected a path to an existing model file"), std::string::npos)
      << grid_error(d);
  Json wide = load_json_file(model);
  wide["d_model"] = 32;
  wide["encoders"] = 2;
  write_file_atomic(dir + "/wide.json", wide.dump());
  d = grid_doc(model);
  d["models"] = {model, dir + "/wide.json"};
  EXPECT_NE(grid_error(d).find("/models/1: expected a model with the first model's d_model"), std::string::npos)
      << grid_error(d);
  d = grid_doc(model);
  d["models"] = {model, model};
  EXPECT_NE(grid_error(d).find("/models/1: expected one model per encoder count"), std::string::npos)
      << grid_error(d);
  d = grid_doc(model);
  d["patience"] = -1;
  EXPECT_NE(grid_error(d).find("/patience"), std::string::npos) << grid_error(d);
}

TEST(AccuracyGridSpec, StoppingRule) {
  EXPECT_EQ(best_epoch_index({0.5, 0.7, 0.7, 0.6}), 1u);  // earliest on ties
  EXPECT_FALSE(should_stop({0.5, 0.7}, 2));
  EXPECT_FALSE(should_stop({0.5, 0.7, 0.6}, 2));
  EXPECT_TRUE(should_stop({0.5, 0.7, 0.6, 0.7}, 2));  // equal is not better
  EXPECT_TRUE(should_stop({0.5, 0.4}, 1));
  EXPECT_FALSE(should_stop({0.9, 0.1, 0.1}, 0));  // patience 0: never early
}

/// A stream that sets `flag` when a run reports itself finished (a deterministic Ctrl-C
/// right after the first finished run).
class InterruptAfterFinish : public std::stringbuf {
 public:
  explicit InterruptAfterFinish(std::atomic<bool>& flag) : flag_(flag) {}
  int sync() override {
    if (str().find("finished e") != std::string::npos) flag_ = true;
    return 0;
  }
 private:
  std::atomic<bool>& flag_;
};

Json comparable(Json table) {
  table.erase("provenance");
  for (auto& e : table["entries"]) {
    for (auto& r : e["runs"]) {
      r.erase("seconds");
      r.erase("samples_per_second");
    }
  }
  return table;
}

TEST(AccuracyGrid, ResumeAfterInterruptionGivesTheUninterruptedTable) {
  const std::string dir = fresh_dir("grid_resume");
  Json doc = grid_doc(write_tiny_model(dir));
  doc["layer_ranks"] = {{{"name", "attn3"}, {"encoders", 1}, {"ranks", {{"tt_rank.attention", 3}}}}};
  const GridSpec g = parse_grid_spec(doc, dir + "/grid.json");
  GridOptions o;
  o.data = dataset::testing::write_toy_atis("grid_toy", 24, 8, 8);
  o.jobs = 1;
  o.limit = 16;  // --limit: 16 of the 24 training utterances per epoch

  o.run_dir = dir + "/whole";
  o.table_out = dir + "/whole.json";
  const GridOutcome whole = run_accuracy_grid(g, o);
  EXPECT_FALSE(whole.interrupted);
  EXPECT_EQ(whole.finished_now, 3);
  ASSERT_EQ(whole.table.entries.size(), 3u);
  EXPECT_EQ(whole.table.entries.back().model, "tiny_attn3");  // per-layer keys sort last
  EXPECT_EQ(whole.table.entries.back().key.layer_ranks.at("enc0.k"), 3);
  EXPECT_TRUE(whole.table.missing.empty());
  for (const auto& e : whole.table.entries) {
    EXPECT_LE(e.runs.at(0).stopped_epoch, 3);
    EXPECT_LE(e.runs.at(0).best_epoch, e.runs.at(0).stopped_epoch);
  }

  std::atomic<bool> cancel{false};
  InterruptAfterFinish buf(cancel);
  std::ostream progress(&buf);
  o.run_dir = dir + "/split";
  o.table_out = dir + "/split.json";
  o.cancel = &cancel;
  o.progress = &progress;
  const GridOutcome first = run_accuracy_grid(g, o);
  EXPECT_TRUE(first.interrupted);
  EXPECT_EQ(first.finished_now, 1);
  const Json partial = load_json_file(o.table_out);
  EXPECT_EQ(partial["entries"].size(), 1u);
  ASSERT_EQ(partial["missing"].size(), 2u);
  EXPECT_EQ(partial["missing"][0]["tt_rank"], 3);
  EXPECT_EQ(partial["missing"][1]["layer_ranks"]["enc0.q"], 3);
  const std::string finished = o.run_dir + "/runs/e1_tt2_ttm2_s1.json";
  std::ifstream in(finished);
  const std::string before((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  cancel = false;
  o.progress = nullptr;
  const GridOutcome rest = run_accuracy_grid(g, o);
  EXPECT_FALSE(rest.interrupted);
  EXPECT_EQ(rest.finished_before, 1);
  EXPECT_EQ(rest.finished_now, 2);
  std::ifstream again(finished);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>()), before)
      << "the finished run was retrained";
  EXPECT_EQ(comparable(load_json_file(o.table_out)), comparable(load_json_file(dir + "/whole.json")));
  // The table reads back.
  EXPECT_EQ(load_accuracy_table(o.table_out).entries.size(), 3u);

  // Each run file records its settings: with grid.json gone, a run of other settings is
  // still refused rather than reused.
  fs::remove(dir + "/whole/grid.json");
  GridOptions other_limit = o;
  other_limit.run_dir = dir + "/whole";
  other_limit.table_out = dir + "/whole_again.json";
  other_limit.limit = 12;
  try {
    run_accuracy_grid(g, other_limit);
    ADD_FAILURE() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/settings/limit: expected 12"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir + "/whole/grid.json")) << "a refused grid recorded its settings";

  // The table is never written into the run folder (it would replace grid.json or a run).
  GridOptions inside = o;
  inside.table_out = o.run_dir + "/grid.json";
  try {
    run_accuracy_grid(g, inside);
    ADD_FAILURE() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("outside the --runs folder"), std::string::npos) << e.what();
  }

  // A run folder made with other settings is refused.
  Json other = grid_doc(write_tiny_model(dir));
  other["lr"] = 0.02;
  const GridSpec g2 = parse_grid_spec(other, dir + "/grid.json");
  try {
    run_accuracy_grid(g2, o);
    ADD_FAILURE() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("/lr: expected 0.02"), std::string::npos) << e.what();
  }
}

TEST(AccuracyGrid, SmokeOnRealAtis) {
  const char* shared = std::getenv("TTSIM_SHARED");
  if (!shared || !fs::exists(fs::path(shared) / "data/atis")) {
    GTEST_SKIP() << "TTSIM_SHARED/data/atis not found (set TTSIM_SHARED to the shared folder)";
  }
  const std::string dir = fresh_dir("grid_atis");
  Json doc = {{"models", {"configs/models/atis_2enc.json"}}, {"tt_ranks", {4, 8}}, {"seeds", {1}},
              {"engine", "reference"}, {"lr", 0.004}, {"max_epochs", 1}, {"patience", 0}};
  const GridSpec g = parse_grid_spec(doc, "grid.json");
  GridOptions o;
  o.data = (fs::path(shared) / "data/atis").string();
  o.run_dir = dir + "/runs";
  o.table_out = dir + "/table.json";
  o.jobs = 2;
  o.limit = 200;
  o.eval_limit = 100;
  const GridOutcome r = run_accuracy_grid(g, o);
  ASSERT_EQ(r.table.entries.size(), 2u);
  EXPECT_EQ(r.table.training.test_samples, 100);
  EXPECT_EQ(*r.table.training.limit, 200);
  // One epoch on 200 real utterances already learns the intents well above chance (18
  // intents; the most frequent, "flight", is about 70 % of the test set).
  for (const auto& e : r.table.entries) {
    EXPECT_GT(e.test_intent_accuracy.mean, 0.5) << e.model;
    EXPECT_LE(e.test_intent_accuracy.mean, 1.0) << e.model;
  }
  EXPECT_EQ(r.table.entries[0].key, (AccuracyKey{2, 4, 30}));
  EXPECT_EQ(load_accuracy_table(o.table_out).entries.size(), 2u);
}

}  // namespace
}  // namespace ttsim::dse
