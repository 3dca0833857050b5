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
#include "models/model_spec.h"
#include "tests/dse/toy_evaluator.h"
#include "tests/testing/tmp_dir.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

using ::ttsim::testing::tmp_dir;

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
  expect_error(d, "/entries/2: expected each (encoders, tt_rank or layer_ranks, ttm_rank) once");
  d = table_doc();
  d["entries"][0]["runs"][1]["seed"] = 1;
  expect_error(d, "/entries/0/runs/1/seed: expected each seed once");
  d = table_doc();
  d["entries"][0]["runs"][0]["stopped_epoch"] = 9;
  expect_error(d, "/entries/0/runs/0/stopped_epoch: expected at most /training/max_epochs = 8");
  d = table_doc();
  d["entries"][0]["layer_ranks"] = {{"enc0.q", 4}, {"enc0.k", 8}};
  expect_error(d, "/entries/0: expected one of tt_rank and layer_ranks, found both");
  // entries[0] has 2 encoders: every one of its 12 TT layers must be named, each once.
  Json all4 = Json::object();
  for (const char* e : {"enc0.", "enc1."}) {
    for (const char* x : {"q", "k", "v", "o", "ffn_in", "ffn_out"}) all4[std::string(e) + x] = 4;
  }
  d = table_doc();
  d["entries"][0].erase("tt_rank");
  d["entries"][0]["layer_ranks"] = all4;
  expect_error(d, "/entries/0/layer_ranks: expected ranks that differ between layers, found every layer at rank 4");
  d["entries"][0]["layer_ranks"]["enc1.v"] = 8;
  EXPECT_EQ(error_of(d), "");  // a complete per-layer key reads
  d["entries"][0]["layer_ranks"].erase("enc1.v");
  expect_error(d, "/entries/0/layer_ranks: expected the rank of every TT encoder layer (12 layers for 2 encoders), "
                  "found 11 layer(s)");
  d["entries"][0]["layer_ranks"]["enc2.v"] = 8;
  expect_error(d, "/entries/0/layer_ranks/enc2.v: expected a TT encoder layer of a 2-encoder model");
  d["entries"][0]["layer_ranks"].erase("enc2.v");
  d["entries"][0]["layer_ranks"]["enc1.x"] = 8;
  expect_error(d, "/entries/0/layer_ranks/enc1.x: expected a TT encoder layer");
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
  Json mixed = model;  // per-layer ranks, and the table has no per-layer trainings to validate the model
  mixed["layers"]["ffn_in"]["rank"] = 8;
  EXPECT_NE(lookup_accuracy(t, mixed).unknown_reason.find(
                "per-layer TT ranks: the per-layer model is not validated for 2 encoders (the table holds 0"),
            std::string::npos)
      << lookup_accuracy(t, mixed).unknown_reason;
  Json percore = model;
  percore["overrides"]["enc1.k"] = {{"ranks", {1, 8, 12, 12, 12, 12, 1}}};
  EXPECT_NE(lookup_accuracy(t, percore).unknown_reason.find("layer enc1.k has per-core ranks"), std::string::npos)
      << lookup_accuracy(t, percore).unknown_reason;
  Json wide = model;
  wide["d_model"] = 1024;
  EXPECT_NE(lookup_accuracy(t, wide).unknown_reason.find("d_model = 768 only"), std::string::npos);
}

/// The 2-encoder preset with its TT layer kinds at these ranks.
Json with_kind_ranks(std::int64_t attention, std::int64_t ffn_in, std::int64_t ffn_out) {
  Json m = load_json_file("configs/models/atis_2enc.json");
  m["layers"]["attention"]["rank"] = attention;
  m["layers"]["ffn_in"]["rank"] = ffn_in;
  m["layers"]["ffn_out"]["rank"] = ffn_out;
  return m;
}

/// TT weight words of the encoder layers, counted on the parsed model (ModelSpec), independently
/// of the lookup's rank substitution.
double tt_words_of(const Json& model) {
  double w = 0;
  for (const auto& l : parse_model_spec(model, "m").linears) {
    if (l.encoder >= 0 && l.format == WeightFormat::kTT) w += static_cast<double>(l.tt.total_words());
  }
  return w;
}

AccuracyEntry per_layer_entry(const Json& model, std::vector<double> accs) {
  std::string why;
  AccuracyEntry e = entry(2, 0, std::move(accs));
  e.key = *accuracy_key_of(model, Json(), why);
  return e;
}

TEST(AccuracyLookup, PerLayerModelIsALineInLnTtParametersValidatedOnPerLayerTrainings) {
  AccuracyTable t = table();  // 2 encoders: ranks 4 (0.80), 8 (0.90), 16 (0.94)
  const Json held_a = with_kind_ranks(4, 16, 16), held_b = with_kind_ranks(16, 4, 4),
             held_c = with_kind_ranks(8, 16, 4);
  std::string why;
  const AccuracyKey ka = *accuracy_key_of(held_a, t.fixed, why);
  ASSERT_TRUE(ka.per_layer());
  EXPECT_EQ(ka.layer_ranks.size(), 12u);  // q, k, v, o, ffn_in, ffn_out of 2 encoders
  EXPECT_EQ(ka.layer_ranks.at("enc1.v"), 4);
  EXPECT_EQ(ka.layer_ranks.at("enc0.ffn_out"), 16);
  EXPECT_FALSE(accuracy_key_of(with_kind_ranks(8, 8, 8), t.fixed, why)->per_layer());  // equal: uniform

  // Two per-layer trainings: the model is not validated, the design's accuracy unknown.
  t.entries.push_back(per_layer_entry(held_a, {0.90, 0.92}));
  t.entries.push_back(per_layer_entry(held_b, {0.86, 0.88}));
  const Json design = with_kind_ranks(12, 8, 8);
  EXPECT_NE(lookup_accuracy(t, design).unknown_reason.find("the table holds 2 per-layer trainings it can check, 3 needed"),
            std::string::npos)
      << lookup_accuracy(t, design).unknown_reason;
  t.entries.push_back(per_layer_entry(held_c, {0.91, 0.91}));
  std::sort(t.entries.begin(), t.entries.end(),
            [](const AccuracyEntry& a, const AccuracyEntry& b) { return a.key < b.key; });

  // The prediction: the least-squares line of accuracy against ln(TT words) through the
  // uniform ranks 4 (0.80), 8 (0.90), 16 (0.94), computed here from its closed form.
  const std::vector<double> lx = {std::log(tt_words_of(with_kind_ranks(4, 4, 4))),
                                  std::log(tt_words_of(with_kind_ranks(8, 8, 8))),
                                  std::log(tt_words_of(with_kind_ranks(16, 16, 16)))};
  const std::vector<double> ly = {0.80, 0.90, 0.94};
  const double xbar = (lx[0] + lx[1] + lx[2]) / 3, ybar = (ly[0] + ly[1] + ly[2]) / 3;
  double sxx = 0, sxy = 0;
  for (int i = 0; i < 3; ++i) {
    sxx += (lx[i] - xbar) * (lx[i] - xbar);
    sxy += (lx[i] - xbar) * (ly[i] - ybar);
  }
  const double slope = sxy / sxx;
  auto line = [&](double x) { return ybar + slope * (x - xbar); };
  double res = 0;
  for (int i = 0; i < 3; ++i) res += (ly[i] - line(lx[i])) * (ly[i] - line(lx[i]));
  const double s_line = std::sqrt(res / 1);  // n - 2 = 1
  auto predict = [&](const Json& m) { return line(std::log(tt_words_of(m))); };
  const std::vector<std::pair<Json, double>> held = {{held_a, 0.91}, {held_b, 0.87}, {held_c, 0.91}};
  double ss = 0, sa = 0;
  const auto checks = per_layer_checks(t, design);
  ASSERT_EQ(checks.size(), 3u);
  for (const auto& [m, measured] : held) {
    const double d = measured - predict(m);
    ss += d * d;
    sa += std::abs(d);
  }
  for (const auto& c : checks) {
    EXPECT_TRUE(c.unknown_reason.empty()) << c.unknown_reason;
    bool found = false;
    for (const auto& [m, measured] : held) {
      if (c.entry->key == *accuracy_key_of(m, Json(), why)) {
        EXPECT_NEAR(c.predicted, predict(m), 1e-12);
        EXPECT_DOUBLE_EQ(static_cast<double>(c.tt_weight_params), tt_words_of(m));
        found = true;
      }
    }
    EXPECT_TRUE(found);
  }
  const auto a = lookup_accuracy(t, design);
  ASSERT_EQ(a.source, "per_layer_model") << a.unknown_reason;
  EXPECT_NEAR(a.mean, predict(design), 1e-12);
  EXPECT_DOUBLE_EQ(static_cast<double>(a.tt_weight_params), tt_words_of(design));
  EXPECT_EQ(a.validation_entries, 3u);
  EXPECT_NEAR(a.model_rmse, std::sqrt(ss / 3), 1e-12);
  EXPECT_NEAR(a.model_mae, sa / 3, 1e-12);
  // Its SE: the line's standard error at the point, the test set's binomial error and the
  // model's RMS error on the per-layer entries.
  EXPECT_EQ(a.lower_rank, 4);
  EXPECT_EQ(a.upper_rank, 16);
  const double x = std::log(tt_words_of(design));
  const double se_line = s_line * std::sqrt(1.0 / 3 + (x - xbar) * (x - xbar) / sxx);
  EXPECT_NEAR(a.standard_error, std::sqrt(se_line * se_line + a.mean * (1 - a.mean) / 1000 + ss / 3), 1e-12);
  EXPECT_NEAR(a.lower_bound, a.mean - kAccuracyConfidenceZ * a.standard_error, 1e-12);
  // A measured per-layer design is the table's, not the model's.
  const auto exact = lookup_accuracy(t, held_b);
  EXPECT_EQ(exact.source, "table");
  EXPECT_DOUBLE_EQ(exact.mean, 0.87);
  // Beyond the measured uniform ranks' parameters: unknown, not extrapolated.
  // A layer beyond the measured ranks: unknown, not extrapolated, even where the total of
  // parameters lies within the measured range.
  const auto big = lookup_accuracy(t, with_kind_ranks(32, 4, 4));
  EXPECT_NE(big.unknown_reason.find("layer enc0.q at TT rank 32 is outside the measured ranks 4..16"), std::string::npos)
      << big.unknown_reason;
  const auto small = lookup_accuracy(t, with_kind_ranks(2, 16, 16));
  EXPECT_NE(small.unknown_reason.find("at TT rank 2 is outside the measured ranks 4..16"), std::string::npos)
      << small.unknown_reason;
  // The per-layer entry reads back from the document.
  const AccuracyTable back = parse_accuracy_table(accuracy_table_to_json(t), "table.json");
  ASSERT_TRUE(back.find(ka));
  EXPECT_EQ(accuracy_table_to_json(back), accuracy_table_to_json(t));
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

// The shipped table against what the README and the shipped sweep claim of it: every
// (encoders, TT rank) the sweep has, with three seeds; and the per-layer model within the
// noise of the held-out designs' three-seed means.
TEST(ShippedAccuracyTable, CoversTheShippedSweepAndChecksThePerLayerModel) {
  const AccuracyTable t = load_accuracy_table("configs/datasets/atis_accuracy.json");
  const Json sweep = load_json_file("configs/sweeps/atis_u50.json");
  const Json& ranks = sweep.at("axes").at("tt_rank");
  int covered = 0;
  for (const auto& enc : sweep.at("axes").at("encoders")) {
    for (int r = ranks.at("from").get<int>(); r <= ranks.at("to").get<int>(); r += ranks.at("step").get<int>()) {
      const AccuracyEntry* e = t.find(AccuracyKey{enc.get<int>(), r, 30});
      ASSERT_TRUE(e) << "encoders " << enc << " rank " << r;
      EXPECT_GE(e->runs.size(), 3u) << e->key.describe();
      ++covered;
    }
  }
  EXPECT_EQ(covered, 24);
  EXPECT_TRUE(t.missing.empty());

  const auto checks = per_layer_checks(t, load_json_file("configs/models/atis_2enc.json"));
  ASSERT_GE(checks.size(), kPerLayerValidationMin);
  double abs_err = 0, ss = 0, dof = 0, seeds = 0;
  for (const auto& c : checks) {
    ASSERT_TRUE(c.unknown_reason.empty()) << c.entry->model << ": " << c.unknown_reason;
    abs_err += std::abs(c.entry->test_intent_accuracy.mean - c.predicted);
    const double n = static_cast<double>(c.entry->runs.size());
    ss += (n - 1) * *c.entry->test_intent_accuracy.std * *c.entry->test_intent_accuracy.std;
    dof += n - 1;
    seeds += n;
  }
  const double mae = abs_err / static_cast<double>(checks.size());
  const double mean_noise = std::sqrt(ss / dof) / std::sqrt(seeds / static_cast<double>(checks.size()));
  EXPECT_LE(mae, mean_noise) << "the per-layer model's mean absolute error " << mae
                             << " exceeds the seed noise of a held-out mean " << mean_noise;
}

}  // namespace
}  // namespace ttsim::dse
