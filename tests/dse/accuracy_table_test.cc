// The accuracy table (dse/accuracy/accuracy_table.h, dse/accuracy/accuracy_lookup.h): validation naming the
// file and JSON pointer, exact / interpolated lookups that never cross encoder counts or
// TTM ranks, the unknown case, the noise rule (95 % lower confidence bound), and what the
// explorer does with them (metrics, accuracy_source, the min_accuracy reason).
#include "dse/accuracy/accuracy_table.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/json_lines.h"
#include "dse/accuracy/accuracy_lookup.h"
#include "dse/run/explore.h"
#include "dse/space/sweep_spec.h"
#include "tests/dse/toy_evaluator.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

std::string tmp_dir(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const fs::path p = fs::path(t ? t : "/tmp") / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

AccuracyRun run(int seed, double acc) {
  AccuracyRun r;
  r.seed = seed;
  r.best_epoch = 2;
  r.stopped_epoch = 4;
  r.test_intent_accuracy = acc;
  r.test_slot_f1 = acc - 0.1;
  r.dev_intent_accuracy = acc + 0.01;
  r.dev_slot_f1 = acc - 0.09;
  r.train_loss = 0.5;
  r.seconds = 100;
  r.samples_per_second = 50;
  return r;
}

AccuracyEntry entry(int enc, int rank, std::vector<double> accs) {
  AccuracyEntry e;
  e.key = AccuracyKey{enc, rank, 30};
  e.model = "m";
  for (std::size_t i = 0; i < accs.size(); ++i) e.runs.push_back(run(static_cast<int>(i) + 1, accs[i]));
  summarize(e);
  return e;
}

/// 2 encoders: ranks 4, 8, 16 (two seeds each); 4 encoders: rank 8 only.
AccuracyTable table() {
  AccuracyTable t;
  t.description = "test";
  t.fixed = {{"d_model", 768}, {"heads", 12}, {"ffn_dim", 768}, {"seq_len", 32}};
  t.training.engine = "reference";
  t.training.lr = 0.004;
  t.training.max_epochs = 8;
  t.training.patience = 2;
  t.training.selection = "best dev";
  t.training.test_samples = 1000;
  t.provenance = {{"command", "ttsim accuracy-grid ..."}, {"data", "atis"}, {"grid", "g.json"},
                  {"git_commit", "abc"}};
  t.entries = {entry(2, 16, {0.94, 0.94}), entry(2, 4, {0.80, 0.80}), entry(2, 8, {0.89, 0.91}),
               entry(4, 8, {0.70, 0.70})};
  std::sort(t.entries.begin(), t.entries.end(),
            [](const AccuracyEntry& a, const AccuracyEntry& b) { return a.key < b.key; });
  t.missing = {MissingRuns{AccuracyKey{6, 8, 30}, {1, 2}}};
  return t;
}

Json table_doc() { return accuracy_table_to_json(table()); }

std::string error_of(const Json& doc) {
  try {
    parse_accuracy_table(doc, "table.json");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(AccuracyTable, RoundTripsAndComputesTheSpread) {
  const AccuracyTable t = parse_accuracy_table(table_doc(), "table.json");
  ASSERT_EQ(t.entries.size(), 4u);
  EXPECT_EQ(t.entries.front().key, (AccuracyKey{2, 4, 30}));  // sorted by key
  const AccuracyEntry* e = t.find(AccuracyKey{2, 8, 30});
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->test_intent_accuracy.mean, 0.90);
  ASSERT_TRUE(e->test_intent_accuracy.std);
  EXPECT_NEAR(*e->test_intent_accuracy.std, std::sqrt(2 * 0.01 * 0.01), 1e-12);  // sample std
  EXPECT_EQ(t.missing.at(0).seeds, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(accuracy_table_to_json(t), table_doc());
  const Spread one = spread_of({0.5});
  EXPECT_FALSE(one.std.has_value());
}

TEST(AccuracyTable, RejectsMalformedTablesNamingFileAndPointer) {
  auto expect_error = [](const Json& d, const std::string& want) {
    const std::string e = error_of(d);
    EXPECT_NE(e.find("table.json"), std::string::npos) << e;
    EXPECT_NE(e.find(want), std::string::npos) << "want \"" << want << "\" in: " << e;
  };
  Json d = table_doc();
  d["training"].erase("patience");
  expect_error(d, "/training: expected required key \"patience\"");
  d = table_doc();
  d["entries"][1]["runs"][0]["test_intent_accuracy"] = 1.2;
  expect_error(d, "/entries/1/runs/0/test_intent_accuracy");
  d = table_doc();
  d["entries"][1]["test_intent_accuracy"]["mean"] = 0.5;  // not the runs' mean
  expect_error(d, "/entries/1/test_intent_accuracy/mean: expected 0.9");
  d = table_doc();
  d["entries"][1]["n"] = 3;
  expect_error(d, "/entries/1/n: expected 2 (the number of runs)");
  d = table_doc();
  d["entries"][2]["tt_rank"] = 4;  // (2, 4, 30) twice
  expect_error(d, "/entries/2: expected each (encoders, tt_rank, ttm_rank) once");
  d = table_doc();
  d["entries"][0]["runs"][1]["seed"] = 1;
  expect_error(d, "/entries/0/runs/1/seed: expected each seed once");
  d = table_doc();
  d["entries"][0]["runs"][0]["stopped_epoch"] = 9;
  expect_error(d, "/entries/0/runs/0/stopped_epoch: expected at most /training/max_epochs = 8");
  d = table_doc();
  d["ranks"] = Json::array();  // the old format's key
  expect_error(d, "ranks");
  EXPECT_THROW(load_accuracy_table("/nonexistent/table.json"), std::exception);
}

TEST(AccuracyLookup, ExactAndInterpolatedWithinOneEncoderCount) {
  const AccuracyTable t = table();
  const auto r8 = lookup_accuracy(t, AccuracyKey{2, 8, 30});
  EXPECT_EQ(r8.source, "table");
  EXPECT_DOUBLE_EQ(r8.mean, 0.90);
  const auto r12 = lookup_accuracy(t, AccuracyKey{2, 12, 30});  // halfway between 8 and 16
  EXPECT_EQ(r12.source, "interpolated");
  EXPECT_DOUBLE_EQ(r12.mean, 0.92);
  EXPECT_DOUBLE_EQ(r12.slot_f1, 0.82);
  EXPECT_EQ(r12.lower_rank, 8);
  EXPECT_EQ(r12.upper_rank, 16);
  const double se8 = accuracy_standard_error(*t.find(AccuracyKey{2, 8, 30}), 1000);
  const double se16 = accuracy_standard_error(*t.find(AccuracyKey{2, 16, 30}), 1000);
  EXPECT_DOUBLE_EQ(r12.standard_error, 0.5 * (se8 + se16));
  // 4 encoders has rank 8 only: rank 12 is not interpolated from 2 encoders' ranks.
  const auto e4 = lookup_accuracy(t, AccuracyKey{4, 12, 30});
  EXPECT_FALSE(e4.known());
  EXPECT_NE(e4.unknown_reason.find("outside the measured ranks 8..8 of 4 encoders"), std::string::npos)
      << e4.unknown_reason;
  EXPECT_DOUBLE_EQ(lookup_accuracy(t, AccuracyKey{4, 8, 30}).mean, 0.70);  // not 2 encoders' 0.90
}

TEST(AccuracyLookup, UnmeasuredCombinationsAreUnknown) {
  const AccuracyTable t = table();
  EXPECT_EQ(lookup_accuracy(t, AccuracyKey{6, 8, 30}).source, "unknown");  // listed as missing
  EXPECT_NE(lookup_accuracy(t, AccuracyKey{6, 8, 30}).unknown_reason.find("no entry with 6 encoders"),
            std::string::npos);
  EXPECT_FALSE(lookup_accuracy(t, AccuracyKey{2, 8, 20}).known());  // other TTM rank
  EXPECT_FALSE(lookup_accuracy(t, AccuracyKey{2, 2, 30}).known());  // below: not extrapolated
  EXPECT_FALSE(lookup_accuracy(t, AccuracyKey{2, 20, 30}).known());  // above
  // Model documents: mixed ranks and other model sizes are unknown too.
  Json model = load_json_file("configs/models/atis_2enc.json");
  EXPECT_EQ(lookup_accuracy(t, model).source, "interpolated");  // rank 12
  Json mixed = model;
  mixed["layers"]["ffn_in"]["rank"] = 8;
  EXPECT_NE(lookup_accuracy(t, mixed).unknown_reason.find("do not share one rank"), std::string::npos);
  Json wide = model;
  wide["d_model"] = 1024;
  EXPECT_NE(lookup_accuracy(t, wide).unknown_reason.find("d_model = 768 only"), std::string::npos);
}

TEST(AccuracyLookup, LowerConfidenceBoundCombinesSeedsAndTestSetNoise) {
  const AccuracyTable t = table();
  const AccuracyEntry& e = *t.find(AccuracyKey{2, 8, 30});
  const double s = *e.test_intent_accuracy.std;
  const double se = std::sqrt(s * s / 2 + 0.9 * 0.1 / 1000);
  EXPECT_DOUBLE_EQ(accuracy_standard_error(e, 1000), se);
  const auto a = lookup_accuracy(t, AccuracyKey{2, 8, 30});
  EXPECT_DOUBLE_EQ(a.lower_bound, 0.90 - kAccuracyConfidenceZ * se);
  // Two means closer than their noise: a floor between them passes neither by chance.
  // Means 0.835 and 0.849 (the old table's ranks 8 and 12) on 893 test utterances and one
  // seed: both bounds fall below 0.84.
  AccuracyTable close = table();
  close.training.test_samples = 893;
  close.entries = {entry(2, 8, {0.835}), entry(2, 12, {0.849})};
  EXPECT_LT(lookup_accuracy(close, AccuracyKey{2, 8, 30}).lower_bound, 0.84);
  EXPECT_LT(lookup_accuracy(close, AccuracyKey{2, 12, 30}).lower_bound, 0.84);
  // A one-seed entry takes the table's pooled seed spread: never tighter than the same mean
  // measured with two seeds.
  AccuracyTable mixed = table();
  mixed.training.test_samples = 893;
  mixed.entries = {entry(2, 8, {0.88, 0.90}), entry(2, 12, {0.89}), entry(2, 16, {0.89, 0.91})};
  const double pooled = *pooled_seed_std(mixed);
  EXPECT_NEAR(pooled, std::sqrt((0.02 * 0.02 / 2 + 0.02 * 0.02 / 2) / 2), 1e-12);
  const double se_one = accuracy_standard_error(*mixed.find(AccuracyKey{2, 12, 30}), 893, pooled);
  EXPECT_NEAR(se_one, std::sqrt(pooled * pooled + 0.89 * 0.11 / 893), 1e-12);
  EXPECT_NEAR(lookup_accuracy(mixed, AccuracyKey{2, 12, 30}).standard_error, se_one, 1e-12);
  EXPECT_GT(se_one, accuracy_standard_error(entry(2, 12, {0.88, 0.90}), 893));
  // A well separated, well measured entry passes.
  close.entries = {entry(2, 16, {0.90, 0.91})};
  EXPECT_GT(lookup_accuracy(close, AccuracyKey{2, 16, 30}).lower_bound, 0.84);
}

TEST(AccuracyTable, ExplorerUsesTheBoundAndShowsUnknownDesigns) {
  const std::string dir = tmp_dir("accuracy_sweep");
  write_file_atomic(dir + "/table.json", table_doc().dump(1));
  write_file_atomic(dir + "/toy_arch.json", R"({"x": 0, "y": 0, "z": 0})");
  write_file_atomic(dir + "/sweep.json", R"({
    "name": "accuracy",
    "base": {"model": "configs/models/atis_2enc.json", "arch": ")" + dir + R"(/toy_arch.json",
             "device": "configs/devices/u50.json"},
    "accuracy_table": ")" + dir + R"(/table.json",
    "axes": {"encoders": [2, 4], "tt_rank": [2, 4, 8, 12, 20]},
    "constraints": {"min_accuracy": 0.84},
    "objectives": ["epoch_seconds", "accuracy"],
    "search": {"strategy": "grid"},
    "fidelity": "analytic"
  })");
  const SweepSpec sweep = load_sweep_spec(dir + "/sweep.json");
  testing::ToyEvaluator toy(1);
  const AccuracyTable t = load_accuracy_table(sweep.accuracy_table);
  SweepEvaluator eval(sweep, Evaluators{&toy, nullptr}, t);
  ASSERT_EQ(eval.objectives().size(), 2u);
  std::string notes;
  for (const auto& n : eval.notes()) notes += n + "\n";
  EXPECT_NE(notes.find("2 encoders (TTM rank 30): TT ranks 4,8,16; 4 encoders (TTM rank 30): TT ranks 8"),
            std::string::npos)
      << notes;
  ExploreOptions o;
  o.out_dir = dir + "/out";
  ASSERT_EQ(run_explore(eval, "sweep.json", o).outcome, ExploreOutcome::kComplete);
  const Json results = load_json_file(o.out_dir + "/results.json");
  EXPECT_EQ(results["accuracy_table"]["measured"].size(), 4u);
  int checked = 0;
  for (const auto& p : load_json_lines(o.out_dir + "/results.jsonl")) {
    const int enc = p["values"]["encoders"].get<int>();
    const int rank = p["values"]["tt_rank"].get<int>();
    const Json& m = p["metrics"];
    const auto est = lookup_accuracy(t, AccuracyKey{enc, rank, 30});
    EXPECT_EQ(p["accuracy_source"], est.source) << enc << " " << rank;
    if (!est.known()) {
      EXPECT_TRUE(m["accuracy"].is_null());
      EXPECT_FALSE(p["feasible"].get<bool>());
      EXPECT_NE(p["reason"].get<std::string>().find("accuracy unknown (not measured) at TT rank " +
                                                    std::to_string(rank)),
                std::string::npos)
          << p["reason"];
    } else {
      EXPECT_DOUBLE_EQ(m["accuracy"].get<double>(), est.lower_bound);
      EXPECT_EQ(p["feasible"].get<bool>(), est.lower_bound >= 0.84) << enc << " " << rank;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 10);
  // 4 encoders at rank 12 is unknown, not 2 encoders' interpolated value.
  EXPECT_FALSE(lookup_accuracy(t, AccuracyKey{4, 12, 30}).known());
}

}  // namespace
}  // namespace ttsim::dse
