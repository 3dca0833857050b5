// The rank-accuracy table (written here by the test in the `ttsim train` format):
// validation, exact / interpolated / out-of-range lookups, and what the explorer does
// with them (accuracy and slot_f1 metrics, accuracy_source, the min_accuracy reason).
#include "dse/accuracy_table.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "dse/explore.h"
#include "dse/sweep_spec.h"
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

Json row(int rank, double acc, double f1) {
  return Json{{"rank", rank},           {"test_intent_accuracy", acc}, {"test_slot_f1", f1},
              {"dev_intent_accuracy", acc + 0.01}, {"dev_slot_f1", f1 + 0.01},
              {"final_train_loss", 0.5}, {"seconds", 12.5}};
}

Json table_doc() {
  return Json{{"source", "ttsim train on ATIS (test)"},
              {"command", "ttsim train --rank R ..."},
              {"model", "configs/models/atis_2enc.json"},
              {"epochs", 3},
              {"lr", 0.01},
              {"seed", 7},
              {"limit", nullptr},
              {"ranks", Json::array({row(16, 0.94, 0.86), row(4, 0.80, 0.70), row(8, 0.90, 0.80)})}};
}

std::string error_of(const Json& doc) {
  try {
    parse_accuracy_table(doc, "table.json");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(AccuracyTable, ReadsTheTrainFormat) {
  const AccuracyTable t = parse_accuracy_table(table_doc(), "table.json");
  ASSERT_EQ(t.ranks.size(), 3u);
  EXPECT_EQ(t.ranks.front().rank, 4);  // sorted
  EXPECT_EQ(t.ranks.back().rank, 16);
  EXPECT_EQ(t.epochs, 3);
  EXPECT_FALSE(t.limit.has_value());
  EXPECT_EQ(t.provenance()["command"], "ttsim train --rank R ...");
  Json limited = table_doc();
  limited["limit"] = 500;
  EXPECT_EQ(*parse_accuracy_table(limited, "t.json").limit, 500);
}

TEST(AccuracyTable, RejectsMalformedTablesNamingThePointer) {
  Json d = table_doc();
  d.erase("command");
  EXPECT_NE(error_of(d).find("required key \"command\""), std::string::npos) << error_of(d);
  d = table_doc();
  d["ranks"][1]["test_intent_accuracy"] = 1.2;
  EXPECT_NE(error_of(d).find("/ranks/1/test_intent_accuracy"), std::string::npos) << error_of(d);
  d = table_doc();
  d["ranks"][2]["rank"] = 16;
  EXPECT_NE(error_of(d).find("/ranks/2/rank"), std::string::npos) << error_of(d);
  d = table_doc();
  d["ranks"][0].erase("test_slot_f1");
  EXPECT_NE(error_of(d).find("/ranks/0: expected required key \"test_slot_f1\""), std::string::npos)
      << error_of(d);
  d = table_doc();
  d["accuracy"] = 0.9;
  EXPECT_NE(error_of(d).find("accuracy"), std::string::npos) << error_of(d);
  d = table_doc();
  d["ranks"] = Json::array();
  EXPECT_NE(error_of(d).find("/ranks"), std::string::npos) << error_of(d);
  EXPECT_THROW(load_accuracy_table("/nonexistent/table.json"), std::exception);
}

TEST(AccuracyTable, ExactInterpolatedAndNeverExtrapolated) {
  const AccuracyTable t = parse_accuracy_table(table_doc(), "table.json");
  const auto r8 = t.at(8);
  ASSERT_TRUE(r8);
  EXPECT_FALSE(r8->interpolated);
  EXPECT_STREQ(r8->source(), "table");
  EXPECT_DOUBLE_EQ(r8->intent_accuracy, 0.90);
  EXPECT_DOUBLE_EQ(r8->slot_f1, 0.80);
  const auto r12 = t.at(12);  // halfway between 8 and 16
  ASSERT_TRUE(r12);
  EXPECT_TRUE(r12->interpolated);
  EXPECT_STREQ(r12->source(), "interpolated");
  EXPECT_DOUBLE_EQ(r12->intent_accuracy, 0.90 + 0.5 * (0.94 - 0.90));
  EXPECT_DOUBLE_EQ(r12->slot_f1, 0.80 + 0.5 * (0.86 - 0.80));
  EXPECT_EQ(r12->lower_rank, 8);
  EXPECT_EQ(r12->upper_rank, 16);
  const auto r5 = t.at(5);
  ASSERT_TRUE(r5);
  EXPECT_DOUBLE_EQ(r5->intent_accuracy, 0.80 + 0.25 * (0.90 - 0.80));
  EXPECT_FALSE(t.at(3));   // below the table
  EXPECT_FALSE(t.at(17));  // above the table
  EXPECT_TRUE(t.at(4) && t.at(16));
}

TEST(AccuracyTable, ExplorerReportsSourceAndMarksUnknownRanksInfeasible) {
  const std::string dir = tmp_dir("accuracy_sweep");
  write_file_atomic(dir + "/table.json", table_doc().dump(1));
  write_file_atomic(dir + "/toy_arch.json", R"({"x": 0, "y": 0, "z": 0})");
  write_file_atomic(dir + "/sweep.json", R"({
    "name": "accuracy",
    "base": {"model": "configs/models/atis_2enc.json", "arch": ")" + dir + R"(/toy_arch.json",
             "device": "configs/devices/u50.json"},
    "accuracy_table": ")" + dir + R"(/table.json",
    "axes": {"tt_rank": [2, 4, 6, 12, 16, 20], "arch:/x": [0, 1]},
    "constraints": {"min_accuracy": 0.84},
    "objectives": ["epoch_seconds", "accuracy"],
    "search": {"strategy": "grid"},
    "fidelity": "analytic"
  })");
  const SweepSpec sweep = load_sweep_spec(dir + "/sweep.json");
  ASSERT_EQ(sweep.accuracy_table, dir + "/table.json");
  testing::ToyEvaluator toy(1);
  SweepEvaluation eval(sweep, Evaluators{&toy, nullptr}, load_accuracy_table(sweep.accuracy_table));
  ASSERT_EQ(eval.objectives().size(), 2u);  // accuracy is available
  ExploreOptions o;
  o.out_dir = dir + "/out";
  const auto r = run_explore(eval, "sweep.json", o);
  ASSERT_EQ(r.outcome, ExploreOutcome::kComplete);

  const Json results = load_json_file(o.out_dir + "/results.json");
  EXPECT_EQ(results["accuracy_table"]["ranks"], Json::array({4, 8, 16}));
  int checked = 0;
  for (const auto& p : results["points"]) {
    const int rank = p["values"]["tt_rank"].get<int>();
    const Json& m = p["metrics"];
    EXPECT_EQ(p["tt_rank"], rank);
    if (rank == 2 || rank == 20) {
      EXPECT_TRUE(m["accuracy"].is_null());
      EXPECT_TRUE(m["slot_f1"].is_null());
      EXPECT_TRUE(p["accuracy_source"].is_null());
      EXPECT_FALSE(p["feasible"].get<bool>());
      EXPECT_NE(p["reason"].get<std::string>().find("accuracy unknown at rank " + std::to_string(rank)),
                std::string::npos)
          << p["reason"];
    } else if (rank == 4 || rank == 16) {
      EXPECT_EQ(p["accuracy_source"], "table");
      EXPECT_DOUBLE_EQ(m["accuracy"].get<double>(), rank == 4 ? 0.80 : 0.94);
      EXPECT_EQ(p["feasible"].get<bool>(), rank == 16);  // 0.80 < 0.84
    } else {
      EXPECT_EQ(p["accuracy_source"], "interpolated");
      const double expect = rank == 6 ? 0.85 : 0.92;
      EXPECT_NEAR(m["accuracy"].get<double>(), expect, 1e-12);
      EXPECT_NEAR(m["slot_f1"].get<double>(), rank == 6 ? 0.75 : 0.83, 1e-12);
      EXPECT_TRUE(p["feasible"].get<bool>());
    }
    ++checked;
  }
  EXPECT_EQ(checked, 12);
  // The CSV carries the slot F1 and the source columns.
  std::ifstream csv(o.out_dir + "/results.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_NE(header.find(",accuracy,slot_f1,"), std::string::npos) << header;
  EXPECT_NE(header.find(",accuracy_source,reason"), std::string::npos) << header;
}

TEST(AccuracyTable, AbsentTableKeepsTheUnavailableNotes) {
  const std::string dir = tmp_dir("accuracy_absent");
  write_file_atomic(dir + "/toy_arch.json", R"({"x": 0})");
  write_file_atomic(dir + "/sweep.json", R"({
    "name": "absent",
    "base": {"model": "configs/models/atis_2enc.json", "arch": ")" + dir + R"(/toy_arch.json",
             "device": "configs/devices/u50.json"},
    "accuracy_table": "no_such_table.json",
    "axes": {"arch:/x": [0, 1]},
    "constraints": {"min_accuracy": 0.9},
    "objectives": ["epoch_seconds", "accuracy"],
    "fidelity": "analytic"
  })");
  const SweepSpec sweep = load_sweep_spec(dir + "/sweep.json");
  EXPECT_TRUE(sweep.accuracy_table.empty());
  testing::ToyEvaluator toy(1);
  SweepEvaluation eval(sweep, Evaluators{&toy, nullptr}, std::nullopt);
  ASSERT_EQ(eval.objectives().size(), 1u);
  std::string notes;
  for (const auto& n : eval.notes()) notes += n + "\n";
  EXPECT_NE(notes.find("objective accuracy unavailable: no rank-accuracy table (no_such_table.json does not exist)"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("constraint min_accuracy unavailable"), std::string::npos) << notes;
}

}  // namespace
}  // namespace ttsim::dse
