// End-to-end runs of the explorer on a toy evaluator: known front, SystemC refinement of
// the candidates, resume after interruption, shards + merge, thread-count independence.
#include "tests/testing/slurp.h"
#include "dse/run/explore.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <limits>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/json_lines.h"
#include "dse/run/batch_runner.h"
#include "dse/run/outputs.h"
#include "dse/evaluate/resolve.h"
#include "dse/run/result_stream.h"
#include "dse/run/run_state.h"
#include "dse/search/search.h"
#include "models/model_spec.h"
#include "dse/space/sweep_spec.h"
#include "tests/dse/toy_evaluator.h"
#include "tests/testing/tmp_dir.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

using ::ttsim::testing::tmp_dir;

using ttsim::testing::slurp;

const char* const kFiles[] = {"results.csv", "results.jsonl",  "results.json",     "pareto.csv",
                              "chosen.json", "summary.md",     "state.json",       "evaluations.jsonl"};

// Expects the run folders `a` and `b` to hold the same kFiles byte for byte.
void expect_same_files(const std::string& a, const std::string& b) {
  for (const char* file : kFiles) EXPECT_EQ(slurp(a + "/" + file), slurp(b + "/" + file)) << file;
}

struct Fixture {
  std::string dir;
  SweepSpec sweep;
  testing::ToyEvaluator analytic{15, Fidelity::kAnalytic};
  testing::ToyEvaluator systemc{15, Fidelity::kSystemC};
  std::unique_ptr<SweepEvaluator> eval;

  /// `extra_axes`: more axes (JSON members, e.g. "\"arch:/w\": [0, 1]"; the toy arch has a "v" and a "w").
  explicit Fixture(const std::string& name, const std::string& search = R"({"strategy": "grid"})",
                   const std::string& fidelity = "systemc_pareto", const std::string& extra_axes = "") {
    dir = tmp_dir(name);
    write_file_atomic(dir + "/toy_arch.json", R"({"x": 0, "y": 0, "z": 0, "v": 0, "w": 0})");
    const std::string doc = R"({
      "name": "toy",
      "base": {"model": "configs/models/atis_2enc.json", "arch": ")" + dir + R"(/toy_arch.json",
               "device": "configs/devices/u50.json"},
      "axes": {"arch:/x": {"from": 0, "to": 15}, "arch:/y": [0, 1, 2, 3], "arch:/z": [0, 1])" +
                            (extra_axes.empty() ? "" : ", " + extra_axes) + R"(},
      "reference": [{"label": "toy reference", "values": {"arch:/y": 3}}],
      "constraints": {"resource_headroom_pct": 10, "max_epoch_seconds": 14},
      "objectives": ["epoch_seconds", "onchip_bytes"],
      "search": )" + search + R"(,
      "fidelity": ")" + fidelity + R"("
    })";
    write_file_atomic(dir + "/toy_sweep.json", doc);
    sweep = load_sweep_spec(dir + "/toy_sweep.json");
    eval = std::make_unique<SweepEvaluator>(sweep, Evaluators{&analytic, &systemc}, std::nullopt);
  }
  ExploreReport run(const std::string& out, ExploreOptions o = {}) {
    o.out_dir = dir + "/" + out;
    return run_explore(*eval, "toy_sweep.json", o);
  }
  /// Runs shards 1/n..n/n into <dir>/shard0.. (each must write its evaluations); their folders.
  std::vector<std::string> run_shards(int n) {
    std::vector<std::string> dirs;
    for (int i = 0; i < n; ++i) {
      ExploreOptions o;
      o.shard_index = i;
      o.shard_count = n;
      EXPECT_EQ(run("shard" + std::to_string(i), o).outcome, ExploreOutcome::kShardWritten) << i;
      dirs.push_back(dir + "/shard" + std::to_string(i));
    }
    return dirs;
  }
};

TEST(Explore, GridFindsTheKnownFrontAndRefinesItWithSystemC) {
  Fixture f("grid");
  const auto r = f.run("out");
  ASSERT_EQ(r.outcome, ExploreOutcome::kComplete);
  EXPECT_EQ(r.evaluated, 16u * 4 * 2);  // the reference (base x = 0, y = 3) is a grid point
  // Analytic: x + z <= 13 feasible; SystemC adds 0.5 s, so x = 13 (14.5 s) becomes
  // infeasible and the front is y = 0, z = 0, x = 0..12, all SystemC-evaluated.
  std::vector<PointId> expected;
  for (int x = 0; x <= 12; ++x) expected.push_back(f.sweep.space.encode({x, 0, 0}));
  EXPECT_EQ(r.final.front, expected);
  EXPECT_GE(r.final.systemc_rounds, 2);
  EXPECT_LT(r.final.systemc_points, 20u);  // only candidates, not all 128 points
  ASSERT_TRUE(r.final.chosen);
  EXPECT_EQ(*r.final.chosen, f.sweep.space.encode({0, 0, 0}));  // lowest epoch_seconds
  const std::string pareto = slurp(f.dir + "/out/pareto.csv");
  EXPECT_EQ(std::count(pareto.begin(), pareto.end(), '\n'), 14);  // header + 13 rows
  const std::string csv = slurp(f.dir + "/out/results.csv");
  EXPECT_NE(csv.find("epoch 14.5 s > 14 s"), std::string::npos);
  EXPECT_NE(csv.find(",toy reference,"), std::string::npos);
  const std::string summary = slurp(f.dir + "/out/summary.md");
  EXPECT_NE(summary.find("toy reference"), std::string::npos);
  EXPECT_NE(summary.find("dominated by"), std::string::npos);
  // step_cycles names two steps; the summary says which its figures are.
  EXPECT_NE(summary.find(std::string("- step_cycles: ") + kStepCyclesMeaning), std::string::npos);
}

TEST(Explore, ResumeAfterInterruptionEqualsAnUninterruptedRun) {
  Fixture f("resume");
  f.run("whole");
  ExploreOptions o;
  o.control.interrupt_after = 40;
  o.control.threads = 2;
  const auto r1 = f.run("parts", o);
  ASSERT_EQ(r1.outcome, ExploreOutcome::kInterrupted);
  EXPECT_LT(r1.evaluated, 128u);
  EXPECT_TRUE(fs::exists(f.dir + "/parts/results.csv"));
  // Not presented as a finished front: a banner, no front or choice, no pareto.csv.
  const std::string summary = slurp(f.dir + "/parts/summary.md");
  EXPECT_EQ(summary.find("# Sweep `toy`\n\n**INTERRUPTED — not a finished front.**"), 0u) << summary;
  EXPECT_EQ(summary.find("## Pareto front ("), std::string::npos) << summary;
  EXPECT_EQ(summary.find("Why: "), std::string::npos) << summary;
  EXPECT_FALSE(fs::exists(f.dir + "/parts/pareto.csv"));
  EXPECT_THROW(f.run("parts"), InputError);  // no --resume: refuses to overwrite
  ExploreOptions resume;
  resume.resume = true;
  const auto r2 = f.run("parts", resume);
  ASSERT_EQ(r2.outcome, ExploreOutcome::kComplete);
  EXPECT_EQ(r2.new_evaluations + r1.new_evaluations, 128u);  // nothing evaluated twice
  expect_same_files(f.dir + "/whole", f.dir + "/parts");

  // Resuming a folder with another sweep is refused, naming where the sweeps first differ.
  std::string other = slurp(f.dir + "/toy_sweep.json");
  const std::string limit = "\"max_epoch_seconds\": 14";
  ASSERT_NE(other.find(limit), std::string::npos);
  other.replace(other.find(limit), limit.size(), "\"max_epoch_seconds\": 13");
  write_file_atomic(f.dir + "/other_sweep.json", other);
  const SweepSpec other_sweep = load_sweep_spec(f.dir + "/other_sweep.json");
  SweepEvaluator other_eval(other_sweep, Evaluators{&f.analytic, &f.systemc}, std::nullopt);
  resume.out_dir = f.dir + "/whole";
  try {
    run_explore(other_eval, "other_sweep.json", resume);
    ADD_FAILURE() << "resumed with another sweep";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("belongs to another sweep than"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(first difference: /constraints/max_epoch_seconds changed; 1 difference in all)"),
              std::string::npos)
        << e.what();
  }
}

TEST(Explore, RowsWrittenAsAGridRunsAreWhatTheLogPassWrites) {
  // An analytic grid run has no SystemC stage: its rows are written as its batches finish
  // (dse/run/result_stream.h); an interrupted and resumed one writes them from its log at the end.
  Fixture f("stream", R"({"strategy": "grid"})", "analytic");
  f.run("whole");
  ExploreOptions o;
  o.control.interrupt_after = 40;
  o.control.threads = 2;
  ASSERT_EQ(f.run("parts", o).outcome, ExploreOutcome::kInterrupted);
  ExploreOptions resume;
  resume.resume = true;
  ASSERT_EQ(f.run("parts", resume).outcome, ExploreOutcome::kComplete);
  expect_same_files(f.dir + "/whole", f.dir + "/parts");
  const std::string csv = slurp(f.dir + "/whole/results.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 129);
}

TEST(Explore, AResultStreamHoldsTheRunsRowsOnlyWhileTheyComeInAscendingId) {
  Fixture f("stream_unit", R"({"strategy": "grid"})", "analytic");
  const std::string dir = f.dir + "/out";
  fs::create_directories(dir);
  RunState state;
  state.start_log(dir);
  ResultStream rows(dir, *f.eval);
  BatchRunner runner(*f.eval, state, RunControl{}, 128, &rows);
  std::vector<PointId> ids = grid_points(f.sweep.space);  // the reference first
  std::sort(ids.begin(), ids.end());
  runner.run(ids, Fidelity::kAnalytic);
  ASSERT_EQ(state.points.size(), 128u);
  EXPECT_TRUE(rows.covers(state));
  EXPECT_EQ(rows.clocks().size(), 0u);  // the toy arch has no clock and the toy evaluator no configs
  // Once a point carries a SystemC evaluation its row (the analytic one) is stale: commit
  // replaces it with the row rendered again, the others copied as they were.
  Evaluation sc = state.record(5).analytic;
  sc.fidelity = Fidelity::kSystemC;
  state.add(5, sc, PointSummary::of(*f.eval, sc));
  state.flush();
  EXPECT_TRUE(rows.covers(state));
  std::vector<PointId> rendered;
  FinalResult none;
  rows.commit(state, [&](PointId id) {
    rendered.push_back(id);
    return render_row(*f.eval, result_row(*f.eval, state, none, id));
  });
  EXPECT_EQ(rendered, std::vector<PointId>{5});
  const std::string csv = slurp(dir + "/results.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 129);
  EXPECT_EQ(csv.find(",on_front,"), std::string::npos);
  // The same files as written from the log, every row rendered.
  const std::string from_log = f.dir + "/out_log";
  fs::create_directories(from_log);
  {
    ResultStream all(from_log, *f.eval);
    for_each_row(*f.eval, state, none, [&](const ResultRow& r) {
      const RowText t = render_row(*f.eval, r);
      all.append(r.id, &t);
    });
    all.commit();
  }
  EXPECT_EQ(csv, slurp(from_log + "/results.csv"));
  EXPECT_EQ(slurp(dir + "/results.jsonl"), slurp(from_log + "/results.jsonl"));
  EXPECT_NE(csv.find(",systemc,"), std::string::npos);

  // A point id at or below the last one voids the stream and removes its temporaries.
  ResultStream later(dir, *f.eval);
  const RowText text{"x\n", "{}\n", std::nullopt};
  later.append(7, &text);
  later.append(7, &text);
  EXPECT_FALSE(later.accepting());
  EXPECT_THROW(later.commit(), std::logic_error);
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
  EXPECT_EQ(slurp(dir + "/results.csv"), csv);  // the committed files stay
  ResultStream unrendered(dir, *f.eval);
  unrendered.append(1, nullptr);  // a point whose row could not be rendered
  EXPECT_FALSE(unrendered.accepting());

  // Rows read back by commit are whole CSV records: a line feed inside a quoted cell (quotes
  // doubled within it) belongs to its record.
  const std::string multi = f.dir + "/out_multiline";
  fs::create_directories(multi);
  RunState two;
  two.start_log(multi);
  const Evaluation a = state.record(0).analytic;
  two.add(0, a, PointSummary::of(*f.eval, a));
  two.add(1, a, PointSummary::of(*f.eval, a));
  two.flush();
  ResultStream streamed(multi, *f.eval);
  const RowText row0{"0,\"say \"\"a\nb\"\"\",x\n", "{\"id\":0}\n", std::nullopt};
  const RowText row1{"1,y\n", "{\"id\":1}\n", std::nullopt};
  streamed.append(0, &row0);
  streamed.append(1, &row1);
  two.add(1, sc, PointSummary::of(*f.eval, sc));
  two.flush();
  streamed.commit(two, [&](PointId id) { return RowText{std::to_string(id) + ",again\n", "{}\n", std::nullopt}; });
  EXPECT_EQ(slurp(multi + "/results.csv"), csv_header(f.sweep) + row0.csv + "1,again\n");
}

TEST(Explore, AResultsJsonlLineIsJsonWithEveryValueExact) {
  Fixture f("jsonl_row", R"({"strategy": "grid"})", "analytic");
  PointRecord rec;
  rec.analytic.fidelity = Fidelity::kAnalytic;
  rec.analytic.metrics[Metric::kEpochSeconds] = 1.0 / 3.0;
  rec.analytic.metrics[Metric::kOnchipBytes] = 5.0;
  rec.analytic.metrics[Metric::kDsp] = std::numeric_limits<double>::infinity();
  rec.analytic.metrics[Metric::kCompression] = 1e-300;
  rec.analytic.accuracy_source = "table \"v2\"";
  rec.has_systemc = true;
  rec.systemc = rec.analytic;
  rec.systemc.fidelity = Fidelity::kSystemC;
  rec.systemc.metrics[Metric::kEpochSeconds] = 123456789.125;
  ResultRow r = make_row(*f.eval, 6, resolve_point(f.sweep, 6), rec);
  r.verdict.feasible = false;
  r.verdict.reason = "epoch \"15\" s > 14 s\nand \\ \x01 é";
  const std::string line = jsonl_row(*f.eval, r);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(line);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end())) << line;
  EXPECT_EQ(j["reason"].get<std::string>(), r.verdict.reason);
  EXPECT_EQ(j["reference"].get<std::string>(), "toy reference");
  EXPECT_EQ(j["accuracy_source"].get<std::string>(), "table \"v2\"");
  EXPECT_EQ(j["fidelity"].get<std::string>(), "systemc");
  EXPECT_EQ(j["metrics"]["epoch_seconds"].get<double>(), 123456789.125);
  EXPECT_EQ(j["analytic_metrics"]["epoch_seconds"].get<double>(), 1.0 / 3.0);
  EXPECT_EQ(j["metrics"]["onchip_bytes"].get<double>(), 5.0);
  EXPECT_EQ(j["metrics"]["compression"].get<double>(), 1e-300);
  EXPECT_TRUE(j["metrics"]["dsp"].is_null());  // not finite
  EXPECT_TRUE(j["metrics"]["lut"].is_null());  // unavailable
  EXPECT_EQ(j["metrics"].size(), static_cast<std::size_t>(kMetricCount));
  EXPECT_EQ(j["values"].dump(), R"({"arch:/x":0,"arch:/y":3,"arch:/z":0})");
  EXPECT_EQ(j["id"].get<PointId>(), 6u);
  // point_json is the same object.
  EXPECT_EQ(Json::parse(line), point_json(*f.eval, r, false));
  // A CSV cell with a comma, quote, line feed or carriage return is quoted (quotes doubled).
  EXPECT_EQ(csv_cell("plain"), "plain");
  EXPECT_EQ(csv_cell("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_cell("say \"x\""), "\"say \"\"x\"\"\"");
  EXPECT_EQ(csv_cell("cr\rret"), "\"cr\rret\"");
  EXPECT_EQ(csv_cell("lf\nret"), "\"lf\nret\"");
}

TEST(Explore, PointFilesHoldEveryPointAndResultsJsonTheFront) {
  Fixture f("files");
  const auto r = f.run("out");
  ASSERT_EQ(r.outcome, ExploreOutcome::kComplete);
  const std::vector<Json> points = load_json_lines(f.dir + "/out/results.jsonl");
  ASSERT_EQ(points.size(), r.evaluated);
  std::vector<Json> on_front;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i > 0) EXPECT_LT(points[i - 1]["id"].get<PointId>(), points[i]["id"].get<PointId>());
    EXPECT_FALSE(points[i].contains("configs")) << points[i].dump();  // the front's, in results.json
    EXPECT_FALSE(points[i].contains("on_front")) << points[i].dump();  // written before the front is known
    EXPECT_TRUE(points[i].contains("metrics")) << points[i].dump();
    if (r.final.on_front(points[i]["id"].get<PointId>())) on_front.push_back(points[i]);
    if (!points[i]["feasible"].get<bool>()) EXPECT_TRUE(points[i].contains("reason"));
  }
  ASSERT_FALSE(on_front.empty());
  const Json results = load_json_file(f.dir + "/out/results.json");
  EXPECT_FALSE(results.contains("points"));
  EXPECT_EQ(results["points_file"], "results.jsonl");
  EXPECT_EQ(results["evaluated"].get<std::uint64_t>(), r.evaluated);
  // The front's points in full: their results.jsonl lines with the resolved configs.
  ASSERT_EQ(results["front"].size(), on_front.size());
  for (std::size_t i = 0; i < on_front.size(); ++i) {
    Json p = results["front"][i];
    EXPECT_TRUE(p.at("configs").contains("model"));
    EXPECT_TRUE(p.at("configs").contains("arch"));
    p.erase("configs");
    EXPECT_EQ(p, on_front[i]);
  }
  ASSERT_TRUE(r.final.chosen);
  EXPECT_EQ(results["chosen"].get<PointId>(), *r.final.chosen);
  EXPECT_TRUE(r.final.on_front(*r.final.chosen));
  const std::string csv = slurp(f.dir + "/out/results.csv");
  EXPECT_EQ(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')), r.evaluated + 1);
  // The evaluation log of a finished run: one line per point, ascending id.
  const std::vector<Json> log = load_json_lines(f.dir + "/out/evaluations.jsonl");
  ASSERT_EQ(log.size(), r.evaluated);
  for (std::size_t i = 0; i < log.size(); ++i) EXPECT_EQ(log[i]["id"], points[i]["id"]);
}

TEST(Explore, ResumeDropsALogLineCutShortByAKill) {
  Fixture f("cut_line");
  f.run("whole");
  ExploreOptions o;
  o.control.interrupt_after = 30;
  o.control.threads = 1;
  ASSERT_EQ(f.run("parts", o).outcome, ExploreOutcome::kInterrupted);
  // What a run killed while appending a batch leaves: the start of a line, no newline.
  const std::string log = f.dir + "/parts/evaluations.jsonl";
  { std::ofstream(log, std::ios::app) << "{\"analytic\":{\"fidelity\":\"analy"; }
  ExploreOptions resume;
  resume.resume = true;
  ASSERT_EQ(f.run("parts", resume).outcome, ExploreOutcome::kComplete);
  expect_same_files(f.dir + "/whole", f.dir + "/parts");
}

TEST(Explore, ResumeConvertsAStateWithItsPointsInline) {
  // state.json of an older ttsim: format 1, the evaluations inline, no evaluations.jsonl.
  Fixture f("legacy");
  f.run("whole");
  fs::create_directories(f.dir + "/old");
  Json state = load_json_file(f.dir + "/whole/state.json");
  state["format"] = "ttsim-explore-state-1";
  state.erase("evaluations");
  state.erase("axes");  // format 1 records none
  state["points"] = Json(load_json_lines(f.dir + "/whole/evaluations.jsonl"));
  write_file_atomic(f.dir + "/old/state.json", state.dump(1) + "\n");
  ExploreOptions resume;
  resume.resume = true;
  const auto r = f.run("old", resume);
  ASSERT_EQ(r.outcome, ExploreOutcome::kComplete);
  EXPECT_EQ(r.new_evaluations, 0u);
  expect_same_files(f.dir + "/whole", f.dir + "/old");
}

TEST(Explore, ResumeRefusesAChangedInputFile) {
  // A sweep's base model edited between an interrupted run and its --resume would mix
  // results of two models: state.json records each input's content hash and the resume
  // (or merge) refuses, naming the file.
  const std::string dir = tmp_dir("inputs");
  const std::string model = dir + "/model.json";
  write_file_atomic(model, "{\"name\": \"a\"}\n");
  SweepSpec sweep;
  sweep.file = dir + "/sweep.json";
  sweep.model_file = model;
  const Json before = input_fingerprint(sweep);
  EXPECT_NO_THROW(check_inputs_unchanged(before, input_fingerprint(sweep), "state.json"));
  EXPECT_NO_THROW(check_inputs_unchanged(Json(), input_fingerprint(sweep), "state.json"));  // not recorded
  write_file_atomic(model, "{\"name\": \"b\"}\n");
  try {
    check_inputs_unchanged(before, input_fingerprint(sweep), "state.json");
    ADD_FAILURE() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("state.json: /inputs/model: " + model + " changed"), std::string::npos)
        << e.what();
  }
}

TEST(Explore, AnEditedStateJsonIsAConfigErrorAtItsPointer) {
  Fixture f("state_types");
  ASSERT_EQ(f.run("out").outcome, ExploreOutcome::kComplete);
  const std::string path = f.dir + "/out/state.json";
  const Json good = load_json_file(path);
  auto pointer_of = [&](const std::string& ptr, const Json& value) {
    Json doc = good;
    doc[Json::json_pointer(ptr)] = value;
    try {
      state_from_json(doc, path);
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.file(), path);
      return e.pointer();
    }
    return std::string("accepted");
  };
  EXPECT_EQ(pointer_of("/inputs", 7), "/inputs");
  EXPECT_EQ(pointer_of("/inputs/model", "x"), "/inputs/model");
  EXPECT_EQ(pointer_of("/inputs/model/content_hash", 1), "/inputs/model/content_hash");
  EXPECT_EQ(pointer_of("/calibration", Json::array({1})), "/calibration");
  EXPECT_EQ(pointer_of("/shard", "x"), "/shard");
  EXPECT_EQ(pointer_of("/shard", "3/2"), "/shard");
  EXPECT_EQ(pointer_of("/shard", "1/2"), "accepted");
}

TEST(Explore, ShardsMergeByteForByteToTheUnshardedRun) {
  Fixture f("shards", R"({"strategy": "random", "count": 70, "seed": 5})");
  f.run("whole");
  const std::vector<std::string> dirs = f.run_shards(3);
  ExploreOptions m;
  m.out_dir = f.dir + "/merged";
  EXPECT_THROW(run_merge(*f.eval, {dirs[0], dirs[1]}, m), InputError);  // shard 3/3 missing
  // Ctrl-C while the logs are merged: nothing is kept, and the same merge runs again.
  std::atomic<bool> cancel{true};
  m.control.cancel = &cancel;
  EXPECT_EQ(run_merge(*f.eval, dirs, m).outcome, ExploreOutcome::kInterrupted);
  EXPECT_FALSE(fs::exists(m.out_dir + "/state.json"));
  EXPECT_FALSE(fs::exists(m.out_dir + "/evaluations.jsonl"));
  cancel = false;
  const auto r = run_merge(*f.eval, dirs, m);
  EXPECT_EQ(r.outcome, ExploreOutcome::kComplete);
  expect_same_files(f.dir + "/whole", f.dir + "/merged");
}

TEST(Explore, ShardsOfAPerLayerRankSweepMergeByteForByteToTheUnshardedRun) {
  // A per-layer rank axis is numbered before the pointer axes (canonical_axis_order), the
  // order the shards and the merge share with one run.
  Fixture f("layer_shards", R"({"strategy": "grid"})", "systemc_pareto", R"("tt_rank.enc0.ffn_in": [4, 8, 12])");
  ASSERT_EQ(f.sweep.space.axes().front().name, "tt_rank.enc0.ffn_in");
  f.run("whole");
  const std::vector<std::string> dirs = f.run_shards(3);
  ExploreOptions m;
  m.out_dir = f.dir + "/merged";
  EXPECT_EQ(run_merge(*f.eval, dirs, m).outcome, ExploreOutcome::kComplete);
  expect_same_files(f.dir + "/whole", f.dir + "/merged");
}

TEST(Explore, ShardsOfARandomSearchOverAHugeSpaceMerge) {
  // 1.28e12 designs: the merge sizes its table by the points the search plans, not the space.
  Fixture f("huge_shards", R"({"strategy": "random", "count": 30, "seed": 3})", "analytic",
            R"("arch:/v": {"from": 0, "to": 99999}, "arch:/w": {"from": 0, "to": 99999})");
  ASSERT_GT(f.sweep.space.size(), 1000000000000u);
  f.run("whole");
  const std::vector<std::string> dirs = f.run_shards(2);
  ExploreOptions m;
  m.out_dir = f.dir + "/merged";
  EXPECT_EQ(run_merge(*f.eval, dirs, m).outcome, ExploreOutcome::kComplete);
  expect_same_files(f.dir + "/whole", f.dir + "/merged");
}

TEST(Explore, MergeRejectsAPointIdOutsideTheSpaceNamingFileAndPointer) {
  Fixture f("merge_bad_id", R"({"strategy": "grid"})", "analytic");
  const std::vector<std::string> dirs = f.run_shards(2);
  const std::string path = dirs[1] + "/evaluations.jsonl";
  std::vector<Json> lines = load_json_lines(path);
  lines[2]["id"] = f.sweep.space.size() + 7;
  std::string text;
  for (const Json& l : lines) text += l.dump() + "\n";
  write_file_atomic(path, text);
  ExploreOptions m;
  m.out_dir = f.dir + "/merged";
  try {
    run_merge(*f.eval, dirs, m);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path + ":3");
    EXPECT_EQ(e.pointer(), "/id");
    EXPECT_EQ(e.found(), std::to_string(f.sweep.space.size() + 7));
  }
  EXPECT_FALSE(fs::exists(m.out_dir));
  // A bad value, an unknown key, empty metrics, a point of the other shard's slice: each a
  // ConfigError at its line before anything of the merge is written.
  auto refused_at = [&](const std::function<void(Json&)>& edit) {
    std::vector<Json> copy = load_json_lines(path);
    copy[2] = lines[2];
    copy[2]["id"] = load_json_lines(path)[1]["id"].get<PointId>() + 1;
    edit(copy[2]);
    std::string t;
    for (const Json& l : copy) t += l.dump() + "\n";
    write_file_atomic(path, t);
    fs::remove_all(m.out_dir);
    try {
      run_merge(*f.eval, dirs, m);
    } catch (const ConfigError& e) {
      EXPECT_FALSE(fs::exists(m.out_dir)) << e.what();
      return std::string(e.file()) + " " + e.pointer();
    }
    return std::string("accepted");
  };
  write_file_atomic(path, text);
  lines = load_json_lines(path);
  EXPECT_EQ(refused_at([](Json& l) { l["analytic"]["metrics"]["dsp"] = "many"; }), path + ":3 /analytic/metrics/dsp");
  EXPECT_EQ(refused_at([](Json& l) { l["extra"] = 1; }), path + ":3 /extra");
  EXPECT_EQ(refused_at([](Json& l) { l["analytic"]["metrics"] = Json::object(); }), path + ":3 /analytic/metrics");
  const PointId other = load_json_lines(dirs[0] + "/evaluations.jsonl")[0]["id"].get<PointId>();
  EXPECT_EQ(refused_at([&](Json& l) { l["id"] = other; }), path + ":3 /id");
}

TEST(Explore, ResultsDoNotDependOnThreadCount) {
  Fixture f("threads", R"({"strategy": "nsga2", "population": 12, "generations": 6, "seed": 9})");
  ExploreOptions one, two;
  one.control.threads = 1;
  two.control.threads = 2;
  f.run("t1", one);
  f.run("t2", two);
  expect_same_files(f.dir + "/t1", f.dir + "/t2");
  ExploreOptions shard;
  shard.shard_count = 2;
  EXPECT_THROW(f.run("nsga_shard", shard), InputError);
}

TEST(Explore, ThreadCountOutsideOneTo256IsAnInputError) {
  EXPECT_EQ(checked_threads(0), 0);
  EXPECT_EQ(checked_threads(1), 1);
  EXPECT_EQ(checked_threads(kMaxThreads), kMaxThreads);
  try {
    checked_threads(100000);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--threads"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("100000"), std::string::npos) << e.what();
  }
  EXPECT_THROW(checked_threads(-1), InputError);
  Fixture f("threads_bad", R"({"strategy": "grid"})", "analytic");
  ExploreOptions o;
  o.control.threads = 100000;  // oneTBB is never handed an unbounded arena
  EXPECT_THROW(f.run("out", o), InputError);
}

TEST(Explore, OutMustBeNewEmptyOrARunFolder) {
  Fixture f("out_dir", R"({"strategy": "grid"})", "analytic");
  fs::create_directories(f.dir + "/user");
  write_file_atomic(f.dir + "/user/thesis.tex", "mine");
  try {
    f.run("user");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not an explore run folder"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(f.dir + "/user/thesis.tex"), "mine");
  EXPECT_EQ(fs::directory_iterator(f.dir + "/user")->path().filename(), "thesis.tex");
  ExploreOptions root;
  root.out_dir = "/";
  EXPECT_THROW(run_explore(*f.eval, "toy_sweep.json", root), InputError);
  // Files named like temporaries but not of a file a run writes are the user's: refused, kept.
  for (const char* name : {"notes.tmp.2024", "photos.emit-1", "mynotes.json.tmp.2024", "photos.old-7"}) {
    const std::string dir = f.dir + "/like_" + std::string(name);
    fs::create_directories(dir);
    write_file_atomic(dir + "/" + name, "mine");
    EXPECT_THROW(f.run("like_" + std::string(name)), InputError) << name;
    EXPECT_EQ(slurp(dir + "/" + name), "mine") << name;
  }
  // A killed run's temporaries are not: removed when the folder is next used.
  fs::create_directories(f.dir + "/leftovers");
  write_file_atomic(f.dir + "/leftovers/results.csv.tmp.12345", "half");
  fs::create_directories(f.dir + "/leftovers/hls_build.emit-12345");
  fs::create_directories(f.dir + "/leftovers/hls_build.old-12345");
  EXPECT_EQ(f.run("leftovers").outcome, ExploreOutcome::kComplete);
  EXPECT_FALSE(fs::exists(f.dir + "/leftovers/results.csv.tmp.12345"));
  EXPECT_FALSE(fs::exists(f.dir + "/leftovers/hls_build.emit-12345"));
  EXPECT_FALSE(fs::exists(f.dir + "/leftovers/hls_build.old-12345"));
  fs::create_directories(f.dir + "/empty");
  EXPECT_EQ(f.run("empty").outcome, ExploreOutcome::kComplete);  // an empty folder is fine
  ExploreOptions again;
  again.resume = true;
  EXPECT_EQ(f.run("empty", again).outcome, ExploreOutcome::kComplete);  // a run folder resumes
}

TEST(Explore, AnalyticFidelityNeverCallsSystemC) {
  Fixture f("analytic", R"({"strategy": "grid"})", "analytic");
  const auto r = f.run("out");
  EXPECT_EQ(f.systemc.calls.load(), 0);
  EXPECT_EQ(r.final.systemc_points, 0u);
  EXPECT_EQ(r.final.front.size(), 14u);  // x = 0..13 with y = z = 0
}

// Progress to a file or pipe is whole lines, no carriage returns: a run shorter than the
// 10-second interval prints its final figures once per stage.
TEST(Explore, ProgressIsWholeLinesWhenNotATerminal) {
  Fixture f("progress");
  std::ostringstream log, tty;
  ExploreOptions o;
  o.control.progress = &log;
  o.control.progress_terminal = false;
  ASSERT_EQ(f.run("file", o).outcome, ExploreOutcome::kComplete);
  const std::string text = log.str();
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_NE(text.find("feasible, best analytic epoch_seconds"), std::string::npos) << text;
  EXPECT_NE(text.find("ETA 0:00\n"), std::string::npos) << text;
  // The SystemC stage says so, after the analytic stage's last figures.
  const auto stage = text.find("SystemC stage, round 1: ");
  ASSERT_NE(stage, std::string::npos) << text;
  EXPECT_LT(text.find("ETA 0:00\n"), stage) << text;
  // On a terminal the points line is redrawn in place (a run this short may draw none); the
  // stage lines are whole lines.
  ExploreOptions t;
  t.control.progress = &tty;
  t.control.progress_terminal = true;
  ASSERT_EQ(f.run("tty", t).outcome, ExploreOutcome::kComplete);
  std::istringstream lines(tty.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" points, ") != std::string::npos) EXPECT_EQ(line.front(), '\r') << line;
  }
  EXPECT_NE(tty.str().find("SystemC stage, round 1: "), std::string::npos) << tty.str();
}

TEST(Explore, ATieOnTheFrontIsStatedWithTheRuleThatBrokeIt) {
  // "arch:/w" changes no metric of the toy: every front design has a twin equal in every objective.
  Fixture f("tie", R"({"strategy": "grid"})", "analytic", R"("arch:/w": [0, 1])");
  const auto r = f.run("out");
  ASSERT_TRUE(r.final.chosen);
  std::vector<int> chosen_idx(f.sweep.space.axes().size(), 0), twin_idx(f.sweep.space.axes().size(), 0);
  for (std::size_t a = 0; a < twin_idx.size(); ++a) twin_idx[a] = f.sweep.space.axes()[a].name == "arch:/w" ? 1 : 0;
  const PointId chosen = f.sweep.space.encode(chosen_idx), twin = f.sweep.space.encode(twin_idx);
  EXPECT_EQ(*r.final.chosen, chosen);
  EXPECT_TRUE(r.final.on_front(twin));
  const std::string tie = "tied with design " + std::to_string(twin) +
                          " on every objective (epoch_seconds, onchip_bytes): the tie is broken by the lowest point id "
                          "(chosen " + std::to_string(chosen) + ")";
  EXPECT_NE(r.final.why.find(tie), std::string::npos) << r.final.why;
  EXPECT_NE(slurp(f.dir + "/out/chosen.json").find(tie), std::string::npos);
  EXPECT_NE(slurp(f.dir + "/out/summary.md").find(tie), std::string::npos);
  // Without the twin axis, no tie is claimed.
  Fixture g("no_tie", R"({"strategy": "grid"})", "analytic");
  EXPECT_EQ(g.run("out").final.why.find("tied"), std::string::npos);
}

TEST(SweepSpec, AnEmptyDesignSpaceIsRefusedAtAxes) {
  const std::string dir = tmp_dir("empty_space");
  write_file_atomic(dir + "/a.json", R"({"x": 0})");
  const std::string head = R"({"name": "t", "base": {"model": "configs/models/atis_2enc.json", "arch": ")" + dir +
                           R"(/a.json", "device": "configs/devices/u50.json"}, "axes": {}, "objectives": ["dsp"])";
  write_file_atomic(dir + "/s.json", head + "}");
  try {
    load_sweep_spec(dir + "/s.json");
    ADD_FAILURE() << "an empty design space was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), dir + "/s.json");
    EXPECT_EQ(e.pointer(), "/axes");
    EXPECT_NE(std::string(e.what()).find("at least one axis with values"), std::string::npos) << e.what();
  }
  // The base design alone, asked for as a reference, is a design space of one.
  write_file_atomic(dir + "/r.json", head + R"(, "reference": [{"label": "the base"}]})");
  EXPECT_EQ(load_sweep_spec(dir + "/r.json").space.size(), 1u);
}

// A grid search holds its planned ids in memory: a grid beyond kMaxGridPoints is refused at
// /axes unless /budget/points bounds it (then only the budget's ids are planned).
TEST(SweepSpec, AGridTooLargeToPlanIsRefusedAtAxes) {
  const std::string dir = tmp_dir("huge_grid");
  write_file_atomic(dir + "/a.json", R"({"x": 0, "y": 0})");
  const std::string head = R"({"name": "t", "base": {"model": "configs/models/atis_2enc.json", "arch": ")" + dir +
                           R"(/a.json", "device": "configs/devices/u50.json"},
      "axes": {"arch:/x": {"from": 0, "to": 99999}, "arch:/y": {"from": 0, "to": 99999}}, "objectives": ["dsp"])";
  write_file_atomic(dir + "/s.json", head + "}");
  try {
    load_sweep_spec(dir + "/s.json");
    ADD_FAILURE() << "a grid of 1e10 points was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/axes");
    EXPECT_NE(std::string(e.what()).find("10000000000 points"), std::string::npos) << e.what();
  }
  write_file_atomic(dir + "/b.json", head + R"(, "budget": {"points": 100}})");
  const SweepSpec budgeted = load_sweep_spec(dir + "/b.json");
  EXPECT_EQ(plan_points(budgeted.space, budgeted.search, budgeted.budget.points, 0, 1).size(), 100u);
}

TEST(SweepSpec, ErrorsNameFileAndPointer) {
  const std::string dir = tmp_dir("spec");
  write_file_atomic(dir + "/a.json", R"({"x": 0})");
  auto load = [&](const std::string& body) {
    write_file_atomic(dir + "/s.json", R"({"name": "t", "base": {"model": "configs/models/atis_2enc.json", "arch": ")" +
                                           dir + R"(/a.json", "device": "configs/devices/u50.json"}, )" + body + "}");
    return load_sweep_spec(dir + "/s.json");
  };
  auto pointer_of = [&](const std::string& body) {
    try {
      load(body);
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.file(), dir + "/s.json");
      return e.pointer();
    }
    return std::string("no error");
  };
  EXPECT_EQ(pointer_of(R"("axes": {"bogus": [1]}, "objectives": ["epoch_seconds"])"), "/axes/bogus");
  EXPECT_EQ(pointer_of(R"("axes": {"tt_rank": [4, 0]}, "objectives": ["epoch_seconds"])"), "/axes/tt_rank/1");
  EXPECT_EQ(pointer_of(R"("axes": {"flow": ["btt", "xx"]}, "objectives": ["epoch_seconds"])"), "/axes/flow/1");
  EXPECT_EQ(pointer_of(R"("axes": {"tt_rank": [4]}, "objectives": ["speed"])"), "/objectives/0");
  EXPECT_EQ(pointer_of(R"("axes": {"tt_rank": [4]}, "objectives": ["dsp"], "search": {"strategy": "random"})"),
            "/search");
  EXPECT_EQ(pointer_of(R"("axes": {"tt_rank": [4]}, "objectives": ["dsp"], "reference": [{"label": "r", "values": {"tt_rank": 8}}])"),
            "/reference/0/values/tt_rank");
  EXPECT_EQ(pointer_of(R"("axes": {"lanes": [4]}, "objectives": ["dsp"])"), "/axes/lanes");
  EXPECT_EQ(pointer_of(R"("axes": {"model:/~2": [4]}, "objectives": ["dsp"])"), "/axes/model:~1~02");
  EXPECT_EQ(pointer_of(R"("axes": {"arch:/x~": [4]}, "objectives": ["dsp"])"), "/axes/arch:~1x~0");  // base arch lacks /contraction
  // Every value of every axis is applied to the base files and parsed up front: a value the
  // arch loader refuses is exit 2 at its index, naming the sweep file and what was expected.
  write_file_atomic(dir + "/a.json", slurp("configs/arch/u50_paper.json"));
  EXPECT_EQ(pointer_of(R"("axes": {"arch:/contraction/lanes": [64, -4, 0]}, "objectives": ["dsp"])"),
            "/axes/arch:~1contraction~1lanes/1");
  EXPECT_EQ(pointer_of(R"("axes": {"lanes": [32, 64, 0]}, "objectives": ["dsp"])"), "/axes/lanes/2");
  // A range: its first value is /from, a later one (from + i · step) is bounded by /to.
  EXPECT_EQ(pointer_of(R"("axes": {"lanes": {"from": 0, "to": 8}}, "objectives": ["dsp"])"), "/axes/lanes/from");
  EXPECT_EQ(pointer_of(R"("axes": {"lanes": {"from": 16, "to": 4100, "step": 4084}}, "objectives": ["dsp"])"),
            "/axes/lanes/to");
  // A refusal at a member the axis does not set depends on the other axes too: the sweep
  // loads and each such point says why (a dual-port base arch, a contraction as narrow as its
  // nonlinear units).
  write_file_atomic(dir + "/a.json", slurp("configs/arch/u50_dual_port.json"));
  EXPECT_NO_THROW(load(R"("axes": {"lanes": [16, 128], "lanes_per_bank": [1, 2]}, "objectives": ["dsp"])"));
  EXPECT_EQ(pointer_of(R"("axes": {"lanes": [16, 0]}, "objectives": ["dsp"])"), "/axes/lanes/1");
  write_file_atomic(dir + "/a.json", slurp("configs/arch/u50_paper.json"));
  // Two axes setting one member (or one inside the other's) are refused at the later one.
  EXPECT_EQ(pointer_of(R"("axes": {"lanes": [16, 32], "arch:/contraction/lanes": [32, 64]}, "objectives": ["dsp"])"),
            "/axes/arch:~1contraction~1lanes");
  EXPECT_EQ(pointer_of(R"("axes": {"policy": ["sequential"], "arch:/scheduling/policy": ["sequential"]}, "objectives": ["dsp"])"),
            "/axes/arch:~1scheduling~1policy");
  try {
    load(R"("axes": {"arch:/contraction/lanes": [-4, 0]}, "objectives": ["dsp"])");
    ADD_FAILURE() << "lanes -4 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/s.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a value the base model"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("-4"), std::string::npos) << e.what();
  }
  write_file_atomic(dir + "/a.json", R"({"x": 0})");
  const auto s = load(R"("axes": {"tt_rank": {"from": 4, "to": 12, "step": 4}, "encoders": [2, 4]}, "objectives": ["dsp"])");
  ASSERT_EQ(s.space.axes().size(), 2u);
  EXPECT_EQ(s.space.axes()[0].name, "encoders");  // canonical axis order
  EXPECT_EQ(s.space.axes()[1].values.size(), 3u);
}

TEST(SweepSpec, ARankAxisAndAPointerIntoTheRankListItRemovesAreRefused) {
  // tt_rank.enc0.q sets /overrides/enc0.q/rank and removes its "ranks": a pointer axis into
  // that list is a member inside another axis's.
  const std::string dir = tmp_dir("spec_ranks");
  write_file_atomic(dir + "/s.json", R"({"name": "t", "base": {"model": "configs/models/bert_like_ffn3072.json",
      "arch": "configs/arch/u50_paper.json", "device": "configs/devices/u50.json"},
      "axes": {"tt_rank.enc0.q": [4, 8], "model:/overrides/enc0.q/ranks/2": [12, 20]}, "objectives": ["dsp"]})");
  try {
    load_sweep_spec(dir + "/s.json");
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    // The later axis in canonical order (pointer axes after the named and per-layer ones).
    EXPECT_EQ(e.pointer(), "/axes/model:~1overrides~1enc0.q~1ranks~12") << e.what();
    EXPECT_NE(std::string(e.what()).find("also set by axis \"tt_rank.enc0.q\""), std::string::npos) << e.what();
  }
}

TEST(SweepSpec, ABaseModelOfTheWrongShapeIsAConfigErrorNotACrash) {
  const std::string dir = tmp_dir("bad_base");
  Json model = load_json_file("configs/models/atis_2enc.json");
  auto load_with = [&](const Json& m, const std::string& axes) {
    write_file_atomic(dir + "/m.json", m.dump());
    write_file_atomic(dir + "/s.json", R"({"name": "t", "base": {"model": ")" + dir + R"(/m.json",
        "arch": "configs/arch/u50_paper.json", "device": "configs/devices/u50.json"},
        "objectives": ["epoch_seconds"], "axes": )" + axes + "}");
    return load_sweep_spec(dir + "/s.json");
  };
  // (file, pointer, message) of the ConfigError loading refuses `m` with.
  auto error_of = [&](const Json& m) {
    try {
      load_with(m, R"({"tt_rank.enc0.q": [4, 8]})");
    } catch (const ConfigError& e) {
      return std::vector<std::string>{e.file(), e.pointer(), e.what()};
    }
    return std::vector<std::string>{"accepted", "", ""};
  };
  // An encoder count of another type: the model file's /encoders.
  Json m = model;
  m["encoders"] = "2";
  auto e = error_of(m);
  EXPECT_EQ(e[0], dir + "/m.json");
  EXPECT_EQ(e[1], "/encoders");
  // Overrides that are not an object: the axis that cannot write them.
  m = model;
  m["overrides"] = Json::array();
  e = error_of(m);
  EXPECT_EQ(e[0], dir + "/s.json");
  EXPECT_EQ(e[1], "/axes/tt_rank.enc0.q");
  EXPECT_NE(e[2].find("another type"), std::string::npos) << e[2];
}

/// A sweep of the 2-encoder preset on u50_paper with `axes` (a JSON object), written to
/// <dir>/s.json.
void write_axes_sweep(const std::string& dir, const std::string& axes) {
  write_file_atomic(dir + "/s.json",
                    R"({"name": "t", "base": {"model": "configs/models/atis_2enc.json", "arch": "configs/arch/u50_paper.json",
               "device": "configs/devices/u50.json"}, "objectives": ["epoch_seconds"], "axes": )" + axes + "}");
}

/// "<pointer>: <message>" of the ConfigError loading write_axes_sweep(dir, axes) raises, or "no error".
std::string axes_sweep_error(const std::string& dir, const std::string& axes) {
  write_axes_sweep(dir, axes);
  try {
    load_sweep_spec(dir + "/s.json");
  } catch (const ConfigError& e) {
    return e.pointer() + ": " + e.what();
  }
  return "no error";
}

TEST(SweepSpec, PerLayerRankAxesSetTheLayersOfTheirEncoder) {
  const std::string dir = tmp_dir("per_layer");
  auto pointer_of = [&](const std::string& axes) { return axes_sweep_error(dir, axes); };
  // An encoder no point has, a layer set by two axes, an unknown layer.
  EXPECT_EQ(pointer_of(R"({"encoders": [2, 4], "tt_rank.enc4.q": [4]})").rfind("/axes/tt_rank.enc4.q: ", 0), 0u);
  EXPECT_NE(pointer_of(R"({"tt_rank.enc0.attention": [4], "tt_rank.enc0.k": [8]})").find("enc0.k is also set by"),
            std::string::npos);
  EXPECT_EQ(pointer_of(R"({"tt_rank.enc0.x": [4]})").rfind("/axes/tt_rank.enc0.x: ", 0), 0u);
  EXPECT_EQ(pointer_of(R"({"tt_rank.enc0.q": [0]})").rfind("/axes/tt_rank.enc0.q/0: ", 0), 0u);

  write_axes_sweep(dir, R"({"encoders": [2, 4], "tt_rank.enc3.attention": [4, 8], "tt_rank.enc0.ffn_in": [20]})");
  const SweepSpec s = load_sweep_spec(dir + "/s.json");
  ASSERT_EQ(s.space.axes().size(), 3u);
  std::size_t enc3 = 0;
  for (std::size_t a = 0; a < s.space.axes().size(); ++a) {
    if (s.space.axes()[a].name == "tt_rank.enc3.attention") enc3 = a;
  }
  int built = 0;
  for (PointId id = 0; id < s.space.grid_size(); ++id) {
    if (s.space.value(id, 0)->get<int>() == 2) {
      // The 2-encoder points have no encoder 3: their model is refused when evaluated (the
      // point is not evaluated, with this reason), naming the layer.
      const PointConfig p = resolve_point(s, id);
      try {
        parse_model_spec(p.model(), "point");
        ADD_FAILURE() << "point " << id << "'s model accepted";
      } catch (const ConfigError& e) {
        EXPECT_EQ(e.pointer(), "/overrides/enc3.k") << e.what();
      }
      continue;
    }
    ++built;
    const PointConfig p = resolve_point(s, id);
    const int encoders = p.model().at("encoders").get<int>();
    const ModelSpec m = parse_model_spec(p.model(), "point");
    ASSERT_EQ(m.encoders, encoders);
    for (const auto& l : m.linears) {
      if (l.encoder < 0) continue;
      const std::int64_t want = l.name == "enc0.ffn_in" ? 20
                                : l.encoder == 3 && l.kind == "attention"
                                    ? s.space.value(id, enc3)->get<std::int64_t>()
                                    : 12;
      EXPECT_EQ(l.tt.ranks[1], want) << l.name << " of point " << id;
    }
  }
  EXPECT_EQ(built, 2);
}

TEST(SweepSpec, NonlinearLaneAxesSetTheUnitsLanesAndNameThePoint) {
  const std::string dir = tmp_dir("nonlinear_lanes");
  auto error_of = [&](const std::string& axes) { return axes_sweep_error(dir, axes); };
  // A unit set twice (the all-units axis and one class's), a lane count of 0, an unknown class.
  EXPECT_NE(error_of(R"({"nonlinear_lanes": [8], "lanes.gelu": [16]})").find("also set by axis \"nonlinear_lanes\""),
            std::string::npos)
      << error_of(R"({"nonlinear_lanes": [8], "lanes.gelu": [16]})");
  EXPECT_EQ(error_of(R"({"nonlinear_lanes": [0]})").rfind("/axes/nonlinear_lanes/0: ", 0), 0u)
      << error_of(R"({"nonlinear_lanes": [0]})");
  EXPECT_EQ(error_of(R"({"lanes.tanh": [8]})").rfind("/axes/lanes.tanh", 0), 0u) << error_of(R"({"lanes.tanh": [8]})");

  write_axes_sweep(dir, R"({"nonlinear_lanes": [16], "lanes": [32]})");
  const SweepSpec s = load_sweep_spec(dir + "/s.json");
  const PointConfig p = resolve_point(s, 0);
  for (const char* unit : {"softmax", "layernorm", "gelu", "elementwise", "loss", "update"}) {
    EXPECT_EQ(p.arch().at("nonlinear").at(unit).at("lanes"), 16) << unit;
  }
  EXPECT_EQ(p.arch().at("contraction").at("lanes"), 32);
  EXPECT_EQ(point_name(s, 0), "atis_2enc-32lanes-16nonlinear_lanes");

  write_axes_sweep(dir, R"({"lanes.layernorm": [32]})");
  const SweepSpec one = load_sweep_spec(dir + "/s.json");
  const PointConfig q = resolve_point(one, 0);
  EXPECT_EQ(q.arch().at("nonlinear").at("layernorm").at("lanes"), 32);
  EXPECT_EQ(q.arch().at("nonlinear").at("softmax").at("lanes"), 8);  // the base arch's
  EXPECT_EQ(point_name(one, 0), "atis_2enc-32layernorm_lanes");
}

}  // namespace
}  // namespace ttsim::dse

namespace ttsim::dse {
namespace {

TEST(SweepSpec, ResolvedPointsAreEachSweepsOwnInAnyOrder) {
  // resolve_point keeps each thread's recent documents by sweep and axis indices: two sweeps
  // with the same axes on different bases, resolved interleaved and out of order, give each
  // point the documents its own sweep's edits make.
  const std::string dir = tmp_dir("resolve_memo");
  const std::string axes = R"({"encoders": [2, 4], "tt_rank.enc0.ffn_in": [4, 8], "lanes": [16, 64], "flow": ["tt", "btt"]})";
  write_axes_sweep(dir, axes);
  const SweepSpec a = load_sweep_spec(dir + "/s.json");
  write_file_atomic(dir + "/s.json",
                    R"({"name": "t", "base": {"model": "configs/models/atis_2enc.json", "arch": "configs/arch/u50_unit_lanes.json",
               "device": "configs/devices/u50.json"}, "objectives": ["epoch_seconds"], "axes": )" + axes + "}");
  const SweepSpec b = load_sweep_spec(dir + "/s.json");
  ASSERT_NE(a.identity, b.identity);
  ASSERT_NE(a.arch_doc, b.arch_doc);
  auto fresh = [](const SweepSpec& s, PointId id) {  // resolve_point's definition, applied here
    Json model = s.model_doc, arch = s.arch_doc;
    const auto idx = s.space.decode(id);
    for (std::size_t i = 0; i < idx.size(); ++i) s.editors[i].apply(s.space.axes()[i].values[idx[i]], model, arch);
    return std::make_pair(model, arch);
  };
  const PointId n = a.space.grid_size();
  ASSERT_EQ(n, 16u);
  for (PointId k = 0; k < 3 * n; ++k) {
    const PointId id = (k * 7) % n;  // every point, three times, out of order
    for (const SweepSpec* s : {&a, &b, &a}) {
      const PointConfig p = resolve_point(*s, id);
      const auto [model, arch] = fresh(*s, id);
      EXPECT_EQ(p.model(), model) << "point " << id;
      EXPECT_EQ(p.arch(), arch) << "point " << id;
    }
  }
}

}  // namespace
}  // namespace ttsim::dse
