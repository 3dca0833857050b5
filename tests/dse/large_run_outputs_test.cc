// A run larger than kShownPointsMax: results.csv and results.jsonl hold every point,
// report.html's table of every point and each front plot's CSV an evenly spaced sample
// (the front, references and chosen design always), and they say so.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/testing/slurp.h"
#include "core/atomic_file.h"
#include "core/json_lines.h"
#include "dse/run/explore.h"
#include "dse/report/plots.h"
#include "dse/report/report_html.h"
#include "dse/run/result_rows.h"
#include "dse/run/run_state.h"
#include "tests/dse/toy_evaluator.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

using ttsim::testing::slurp;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST(InSample, EveryPointUpToTheCapThenAnEvenStride) {
  for (std::size_t i = 0; i < 10; ++i) EXPECT_TRUE(in_sample(i, 10, 10));
  std::size_t taken = 0;
  for (std::size_t i = 0; i < 10001; ++i) taken += in_sample(i, 10001, 5000);
  EXPECT_LE(taken, 5000u);
  EXPECT_GE(taken, 3334u);  // stride 3: every third
  EXPECT_TRUE(in_sample(0, 10001, 5000));
  EXPECT_FALSE(in_sample(1, 10001, 5000));
  EXPECT_TRUE(in_sample(3, 10001, 5000));
}

TEST(LargeRun, TablesAndPlotsSampleTheResultFilesHoldEverything) {
  const char* t = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(t ? t : "/tmp") / "large_run";
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file_atomic((dir / "toy_arch.json").string(), R"({"x": 0, "y": 0})");
  write_file_atomic((dir / "sweep.json").string(), R"({
    "name": "toy_large",
    "base": {"model": "configs/models/atis_2enc.json", "arch": ")" + (dir / "toy_arch.json").string() + R"(",
             "device": "configs/devices/u50.json"},
    "axes": {"arch:/x": {"from": 0, "to": 99}, "arch:/y": {"from": 0, "to": 63}},
    "constraints": {"resource_headroom_pct": 10},
    "objectives": ["epoch_seconds", "onchip_bytes"],
    "search": {"strategy": "grid"},
    "fidelity": "analytic"
  })");
  const SweepSpec sweep = load_sweep_spec((dir / "sweep.json").string());
  testing::ToyEvaluator toy{99};
  SweepEvaluator eval(sweep, Evaluators{&toy, nullptr}, std::nullopt);
  ExploreOptions o;
  o.out_dir = (dir / "out").string();
  const ExploreReport r = run_explore(eval, "sweep.json", o);
  ASSERT_EQ(r.evaluated, 6400u);  // a sample stride of ceil(6400 / kShownPointsMax) = 4
  ASSERT_GT(r.evaluated, kShownPointsMax);
  EXPECT_EQ(load_json_lines(o.out_dir + "/results.jsonl").size(), 6400u);
  EXPECT_EQ(count_of(slurp(o.out_dir + "/results.csv"), "\n"), 6401u);

  RunState state = *load_state(o.out_dir);
  state.load_log(o.out_dir, eval, false);
  std::vector<std::string> notes;
  const std::vector<PlotFile> plots = write_plots(o.out_dir, eval, state, r.final, notes);
  write_report_html(o.out_dir, eval, state, r.final, plots, notes);
  const std::string html = slurp(o.out_dir + "/report.html");
  EXPECT_NE(html.find("An evenly spaced sample (one row in 4, by id)"), std::string::npos);
  // The chosen design says which step its step_cycles is: with no resolved configs (the toy
  // evaluator's), the general rule in summary.md's words.
  EXPECT_NE(html.find("<dt>its step_cycles</dt>"), std::string::npos);
  EXPECT_NE(html.find("where it is the mean step over the epoch"), std::string::npos);
  const std::string all = html.substr(html.find("<section id=\"all\">"));
  const std::size_t rows = count_of(all.substr(0, all.find("</section>")), "<tr");
  EXPECT_LE(rows, kShownPointsMax + 1);  // + the header row
  EXPECT_GE(rows, 1000u);

  // The front plot's CSV: every front point, and at most kShownPointsMax rows in all.
  const std::string csv = slurp(o.out_dir + "/front_epoch_seconds_vs_onchip_mib.csv");
  const std::size_t lines = count_of(csv, "\n") - 1;
  EXPECT_LE(lines, kShownPointsMax);
  std::size_t front_rows = 0;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    for (std::string c; std::getline(ls, c, ',');) cells.push_back(c);
    front_rows += cells.at(4) == "1";
  }
  EXPECT_EQ(front_rows, r.final.front.size());
  EXPECT_EQ(r.final.front.size(), 54u);  // y = 0, x up to the DSP headroom
}

}  // namespace
}  // namespace ttsim::dse
