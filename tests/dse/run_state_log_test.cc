// The evaluation log's compaction (RunState::compact): a log written in ascending id, one
// analytic line per point (a grid run), is left as it is, and it is byte for byte what
// compacting the same evaluations added in another order writes. The evaluation's JSON writer
// (append_evaluation_json, dse/evaluate/evaluation_json.h) writes what a JSON dump of the
// evaluation does, and evaluation_from_json reads it back exactly.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/testing/slurp.h"
#include "core/atomic_file.h"
#include "dse/run/run_state.h"
#include "dse/space/sweep_spec.h"
#include "tests/dse/toy_evaluator.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

using ttsim::testing::slurp;

Evaluation evaluation_of(PointId id) {
  Evaluation e;
  e.fidelity = Fidelity::kAnalytic;
  e.metrics[Metric::kStepCycles] = 1000.0 + static_cast<double>(id) / 3.0;  // not a short decimal
  e.metrics[Metric::kEpochSeconds] = 1e-7 * static_cast<double>(id + 1);
  if (id % 2) e.error = "point " + std::to_string(id) + " \"refused\"";
  return e;
}

/// The compacted log of the points `ids` added in that order (analytic, then a SystemC
/// line for the ids in `systemc`).
std::string compacted(const std::string& dir, const std::vector<PointId>& ids,
                      const std::vector<PointId>& systemc = {}) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  RunState s;
  s.start_log(dir);
  for (PointId id : ids) s.add(id, evaluation_of(id), PointSummary{});
  for (PointId id : systemc) {
    Evaluation e = evaluation_of(id);
    e.fidelity = Fidelity::kSystemC;
    s.add(id, e, PointSummary{});
  }
  s.flush();
  const std::string before = slurp(s.log_path());
  s.compact();
  const std::string after = slurp(s.log_path());
  if (systemc.empty() && std::is_sorted(ids.begin(), ids.end())) EXPECT_EQ(after, before);
  // Every record reads back after compaction.
  for (PointId id : ids) EXPECT_EQ(s.record(id).analytic.metrics[Metric::kStepCycles], evaluation_of(id).metrics[Metric::kStepCycles]);
  return after;
}

TEST(RunStateLog, AnInOrderLogIsWhatCompactionWrites) {
  const char* t = std::getenv("TEST_TMPDIR");
  const fs::path root = fs::path(t ? t : "/tmp") / "run_state_log";
  const std::string in_order = compacted((root / "a").string(), {1, 2, 5, 9, 40});
  const std::string shuffled = compacted((root / "b").string(), {9, 2, 40, 1, 5});
  EXPECT_EQ(in_order, shuffled);
  EXPECT_EQ(std::count(in_order.begin(), in_order.end(), '\n'), 5);
  // A SystemC line for a point already logged: compacted into that point's line.
  const std::string with_systemc = compacted((root / "c").string(), {1, 2, 5, 9, 40}, {5});
  EXPECT_EQ(std::count(with_systemc.begin(), with_systemc.end(), '\n'), 5);
  EXPECT_NE(with_systemc.find("\"systemc\""), std::string::npos);
}

// A log this state did not write (loaded: a resumed run's, or one edited by hand) is
// compacted by parsing and dumping each line, so the compacted text is canonical whoever
// wrote it; the lines the state then adds are its own text, copied as they are.
TEST(RunStateLog, CompactionRewritesLoadedLinesAndCopiesItsOwn) {
  const char* t = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(t ? t : "/tmp") / "run_state_log_loaded";
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_file_atomic((dir / "toy_arch.json").string(), R"({"x": 0, "y": 0})");
  write_file_atomic((dir / "sweep.json").string(), R"({
    "name": "toy_log",
    "base": {"model": "configs/models/atis_2enc.json", "arch": ")" + (dir / "toy_arch.json").string() + R"(",
             "device": "configs/devices/u50.json"},
    "axes": {"arch:/x": {"from": 0, "to": 9}},
    "objectives": ["epoch_seconds", "onchip_bytes"],
    "search": {"strategy": "grid"},
    "fidelity": "analytic"
  })");
  const SweepSpec sweep = load_sweep_spec((dir / "sweep.json").string());
  testing::ToyEvaluator toy{9};
  SweepEvaluator eval(sweep, Evaluators{&toy, nullptr}, std::nullopt);
  // Two points as another writer spaced them (and keys in another order).
  std::string first, second;
  append_evaluation_json(first, evaluation_of(0));
  append_evaluation_json(second, evaluation_of(1));
  const std::string loaded = "{ \"id\": 0,  \"analytic\": " + first + " }\n" +
                             "{\"id\":1, \"analytic\":" + second + "}\n";
  write_file_atomic((dir / kEvaluationLog).string(), loaded);
  RunState s;
  s.load_log(dir.string(), eval, true);
  s.add(2, evaluation_of(2), PointSummary{});
  s.flush();
  s.compact();
  const std::string after = slurp(s.log_path());
  std::istringstream in(after);
  std::string line;
  int n = 0;
  for (; std::getline(in, line); ++n) {
    EXPECT_EQ(line, Json::parse(line).dump()) << "line " << n << " is not the canonical dump";
    EXPECT_EQ(Json::parse(line).at("id"), n);
  }
  EXPECT_EQ(n, 3);
  EXPECT_EQ(compacted((dir / "fresh").string(), {0, 1, 2}), after);
}

// The evaluation as a JSON document: metrics as {name: number|null} (NaN as null), tt_rank and
// accuracy_source only when set.
Json evaluation_document(const Evaluation& e) {
  Json m = Json::object();
  for (int i = 0; i < kMetricCount; ++i) {
    const double x = e.metrics.v[i];
    m[metric_info(static_cast<Metric>(i)).name] = std::isnan(x) ? Json(nullptr) : Json(x);
  }
  Json j{{"fidelity", to_string(e.fidelity)}, {"metrics", m}};
  if (!e.error.empty()) j["error"] = e.error;
  if (e.tt_rank) j["tt_rank"] = e.tt_rank;
  if (!e.accuracy_source.empty()) j["accuracy_source"] = e.accuracy_source;
  return j;
}

TEST(RunStateLog, TheDirectWriterWritesWhatTheJsonDumpDoes) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0, 1);
  const double specials[] = {0.0, -0.0, 1.0, 721.0, 1e15, 1e16, 1e17, 1e-5, 1e-4, 123456789012345678.0,
                             5e-324, 1.7976931348623157e308, std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(), -2.5, 0.1};
  const char* texts[] = {"", "analytic", "systemc", "cannot build: \"x\" \\ y", "tab\there", "caf\xc3\xa9 \xe2\x86\x92",
                         "ctl \x01\x1f end"};
  int compared = 0;
  for (int n = 0; n < 2000; ++n) {
    Evaluation e;
    e.fidelity = n % 3 ? Fidelity::kAnalytic : Fidelity::kSystemC;
    for (int i = 0; i < kMetricCount; ++i) {
      const int pick = static_cast<int>(rng() % 4);
      if (pick == 0) continue;  // NaN: unavailable
      e.metrics.v[i] = pick == 1 ? specials[rng() % std::size(specials)]
                                 : std::ldexp(unit(rng) - 0.5, static_cast<int>(rng() % 200) - 100);
    }
    if (n % 5 == 1) e.error = texts[rng() % std::size(texts)];
    if (n % 7 == 2) e.accuracy_source = n % 2 ? "table" : "interpolated";
    if (n % 4 == 3) e.tt_rank = 1 + static_cast<int>(rng() % 64);
    std::string direct;
    append_evaluation_json(direct, e);
    EXPECT_EQ(direct, evaluation_document(e).dump()) << "evaluation " << n;
    ++compared;
    // Read back (a value beyond the log's ±1e300 is refused there) and written again.
    const bool in_range = std::all_of(e.metrics.v.begin(), e.metrics.v.end(),
                                      [](double x) { return !(std::fabs(x) > 1e300) || std::isinf(x); });
    if (!in_range) continue;
    const Json doc = Json::parse(direct);
    const Evaluation back = evaluation_from_json(JsonView(doc, "log"), e.fidelity);
    std::string again;
    append_evaluation_json(again, back);
    EXPECT_EQ(again, direct) << "evaluation " << n;
  }
  EXPECT_EQ(compared, 2000);
}

// An evaluation filed under one fidelity that says it is the other (an edited or foreign log
// line) is refused at its /fidelity, not filed in the slot its text names.
TEST(EvaluationLog, AnEvaluationUnderTheOtherFidelityIsRefused) {
  Evaluation e;
  e.fidelity = Fidelity::kSystemC;
  e.metrics.v[0] = 1.0;
  std::string text;
  append_evaluation_json(text, e);
  const Json doc = Json::parse(text);
  EXPECT_EQ(evaluation_from_json(JsonView(doc, "log"), Fidelity::kSystemC).fidelity, Fidelity::kSystemC);
  try {
    (void)evaluation_from_json(JsonView(doc, "log"), Fidelity::kAnalytic);
    FAIL() << "a SystemC evaluation was read as an analytic one";
  } catch (const ConfigError& err) {
    EXPECT_NE(std::string(err.what()).find("/fidelity"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("systemc"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace ttsim::dse
