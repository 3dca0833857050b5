// The evaluation log's compaction (RunState::compact): a log written in ascending id, one
// analytic line per point (a grid run), is left as it is, and it is byte for byte what
// compacting the same evaluations added in another order writes.

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/testing/slurp.h"
#include "dse/run_state.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

using ttsim::testing::slurp;

Evaluation evaluation_of(PointId id) {
  Evaluation e;
  e.fidelity = "analytic";
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
  for (PointId id : ids) s.add(id, false, evaluation_of(id), PointFigures{});
  for (PointId id : systemc) {
    Evaluation e = evaluation_of(id);
    e.fidelity = "systemc";
    s.add(id, true, e, PointFigures{});
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

}  // namespace
}  // namespace ttsim::dse
