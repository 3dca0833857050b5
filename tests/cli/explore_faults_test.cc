// `ttsim explore`, `--resume` and `merge` under faults: two writers on one --out, a stale
// lock, Ctrl-C in every stage, SIGKILL at seeded random points, a mistyped axis pointer,
// an unfinished shard. Runs the real binary on the small shipped sweep
// (configs/sweeps/smoke.json) with one worker thread, so the fault points
// (TTSIM_FAULT_AT, core/fault_point.h) fall at reproducible places of a run.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/json_lines.h"
#include "core/json_view.h"
#include "tests/cli/folder_files.h"

namespace fs = std::filesystem;

namespace {

using ttsim::testing::expect_same_tree;
using ttsim::testing::read_text;
using ttsim::testing::tree;

struct Exit {
  int code = -1;    // exit status, -1 when killed by a signal
  int signal = 0;   // the signal that ended it
  std::string out, err;
};

class ExploreFaults : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* srcdir = std::getenv("TEST_SRCDIR");
    root_ = fs::absolute(fs::path(srcdir ? srcdir : ".") / "ttsim");
    tmp_ = fs::absolute(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") / "faults";
    fs::remove_all(tmp_);
    fs::create_directories(tmp_);
    reference_ = run({"explore", kSweep, "--out", work().string(), "--threads", "1"});
    fs::rename(work(), tmp_ / "reference");
  }

  // The --out folder of the runs compared with the reference: file contents name the
  // folder (hls_build/README.md, summary.md), so every such run writes into this one.
  static fs::path work() {
    fs::create_directories(tmp_);
    return tmp_ / "run";
  }
  static fs::path fresh_work() {
    fs::remove_all(work());
    return work();
  }

  static constexpr const char* kSweep = "configs/sweeps/smoke.json";

  // Starts ttsim with `args` in the checkout, TTSIM_FAULT_AT set to `fault` when given.
  static pid_t spawn(const std::vector<std::string>& args, const std::string& fault, const std::string& tag) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (::chdir(root_.c_str()) != 0) ::_exit(127);
      const std::string out = (tmp_ / (tag + ".stdout")).string(), err = (tmp_ / (tag + ".stderr")).string();
      if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(127);
      if (fault.empty()) ::unsetenv("TTSIM_FAULT_AT");
      else ::setenv("TTSIM_FAULT_AT", fault.c_str(), 1);
      std::vector<std::string> argv_s = {(root_ / "cli/ttsim").string()};
      argv_s.insert(argv_s.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : argv_s) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    return pid;
  }

  static Exit wait_for(pid_t pid, const std::string& tag) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    Exit e;
    if (WIFEXITED(status)) e.code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
    e.out = read_text(tmp_ / (tag + ".stdout"));
    e.err = read_text(tmp_ / (tag + ".stderr"));
    return e;
  }

  static Exit run(const std::vector<std::string>& args, const std::string& fault = "") {
    static int n = 0;
    const std::string tag = "run" + std::to_string(++n);
    return wait_for(spawn(args, fault, tag), tag);
  }

  static Exit explore(const fs::path& out, const std::string& fault = "", bool resume = false,
                      const std::string& sweep = kSweep) {
    std::vector<std::string> a = {"explore", sweep, "--out", out.string(), "--threads", "1"};
    if (resume) a.push_back("--resume");
    return run(a, fault);
  }

  static ttsim::Json json(const fs::path& p) { return ttsim::Json::parse(read_text(p)); }

  // Points evaluated by the reference run (analytic) and those with SystemC figures.
  static std::pair<int, int> reference_counts() {
    const auto points = ttsim::load_json_lines((tmp_ / "reference/results.jsonl").string());
    int systemc = 0;
    for (const auto& p : points) systemc += p.contains("analytic_metrics");
    return {static_cast<int>(points.size()), systemc};
  }

  static fs::path root_, tmp_;
  static Exit reference_;
};

fs::path ExploreFaults::root_, ExploreFaults::tmp_;
Exit ExploreFaults::reference_;

TEST_F(ExploreFaults, ReferenceRunCompletes) {
  ASSERT_EQ(reference_.code, 0) << reference_.err;
  EXPECT_FALSE(fs::exists(tmp_ / "reference/.ttsim.lock"));
  const auto [n, systemc] = reference_counts();
  EXPECT_GT(n, 8);
  EXPECT_GT(systemc, 0);
}

// A run that holds the folder (stopped mid-run, lock held) makes a second writer exit 2
// naming it; the first then completes.
TEST_F(ExploreFaults, SecondWriterRefusedNamingTheHolder) {
  const fs::path out = fresh_work();
  const pid_t first = spawn({"explore", kSweep, "--out", out.string(), "--threads", "1"}, "3:STOP", "holder");
  int status = 0;
  ASSERT_EQ(::waitpid(first, &status, WUNTRACED), first);
  ASSERT_TRUE(WIFSTOPPED(status)) << "the first run ended before its third fault point";
  const Exit second = explore(out);
  const Exit resume = explore(out, "", true);
  ::kill(first, SIGCONT);
  const Exit held = wait_for(first, "holder");
  EXPECT_EQ(second.code, 2) << second.out << second.err;
  EXPECT_NE(second.err.find("in use by another ttsim run (pid " + std::to_string(first)), std::string::npos)
      << second.err;
  EXPECT_EQ(resume.code, 2) << resume.err;
  EXPECT_NE(resume.err.find("pid " + std::to_string(first)), std::string::npos) << resume.err;
  ASSERT_EQ(held.code, 0) << held.err;
  expect_same_tree(tmp_ / "reference", out, "the holder's run");
}

// Two runs started together on one folder: exactly one runs, the other exits 2.
TEST_F(ExploreFaults, TwoConcurrentWritersOneRuns) {
  const fs::path out = fresh_work();
  const std::vector<std::string> args = {"explore", kSweep, "--out", out.string(), "--threads", "1"};
  const pid_t a = spawn(args, "", "concurrent_a");
  const pid_t b = spawn(args, "", "concurrent_b");
  const Exit ea = wait_for(a, "concurrent_a"), eb = wait_for(b, "concurrent_b");
  EXPECT_EQ((ea.code == 0) + (eb.code == 0), 1) << ea.err << "\n" << eb.err;
  EXPECT_EQ((ea.code == 2) + (eb.code == 2), 1) << ea.err << "\n" << eb.err;
  const Exit& loser = ea.code == 2 ? ea : eb;
  const pid_t winner = ea.code == 2 ? b : a;
  // Refused while the winner runs (naming it) or, if it started after the end, as a
  // folder that already holds a run.
  EXPECT_TRUE(loser.err.find("pid " + std::to_string(winner)) != std::string::npos ||
              loser.err.find("already holds a run") != std::string::npos)
      << loser.err;
  expect_same_tree(tmp_ / "reference", out, "the winner's run");
}

// A lock file left by a process that no longer exists is taken over.
TEST_F(ExploreFaults, StaleLockIsTakenOver) {
  const fs::path out = fresh_work();
  fs::create_directories(out);
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  std::ofstream(out / ".ttsim.lock") << dead << "@" << host << " 2020-01-01T00:00:00Z explore\n";
  const Exit e = explore(out);
  ASSERT_EQ(e.code, 0) << e.err;
  EXPECT_NE(e.err.find("took over a stale lock left by pid " + std::to_string(dead)), std::string::npos) << e.err;
  expect_same_tree(tmp_ / "reference", out, "run after a stale lock");
}

// Ctrl-C in the analytic stage, at the first SystemC evaluation (reference points) and in
// the first SystemC round of the Pareto front: exit 130, marked interrupted, nothing
// emitted; --resume gives the files of an uninterrupted run.
TEST_F(ExploreFaults, CtrlCInEveryStageResumesToIdenticalFiles) {
  ASSERT_EQ(reference_.code, 0) << reference_.err;
  const auto [n, systemc] = reference_counts();
  const int refs = static_cast<int>(json(tmp_ / "reference/chosen.json")["references"].size());
  // Fault points with one thread: n analytic evaluations, their append to the evaluation
  // log (1), state.json (2: written, renamed), the reference points' SystemC evaluations,
  // log (1), state.json (2), then the first front round (state.json (2) before its first
  // evaluation). A stop is seen before the next evaluation starts.
  const std::vector<std::pair<std::string, int>> stages = {
      {"analytic", n / 2}, {"systemc_references", n + 3}, {"systemc_front", n + 3 + refs + 3}};
  ASSERT_GT(systemc, refs) << "the sweep needs a SystemC round beyond the reference points";
  for (const auto& [stage, at] : stages) {
    const fs::path out = fresh_work();
    const Exit cut = explore(out, std::to_string(at) + ":INT");
    EXPECT_EQ(cut.code, 130) << stage << ": " << cut.out << cut.err;
    EXPECT_NE(cut.err.find("--resume"), std::string::npos) << stage << ": " << cut.err;
    ASSERT_TRUE(fs::exists(out / "results.json")) << stage;
    EXPECT_EQ(json(out / "results.json").value("interrupted", false), true) << stage;
    EXPECT_EQ(json(out / "chosen.json").value("interrupted", false), true) << stage;
    EXPECT_FALSE(json(out / "chosen.json").contains("id")) << stage << ": an interrupted run named a chosen design";
    EXPECT_FALSE(fs::exists(out / "hls_build")) << stage << ": an interrupted run emitted a build";
    EXPECT_EQ(cut.out.find("Pareto front"), std::string::npos) << stage << ": " << cut.out;
    const Exit resumed = explore(out, "", true);
    ASSERT_EQ(resumed.code, 0) << stage << ": " << resumed.err;
    expect_same_tree(tmp_ / "reference", out, "resumed after Ctrl-C in the " + stage + " stage");
  }
}

// Ctrl-C between NSGA-II generations: exit 130, --resume gives the uninterrupted files.
TEST_F(ExploreFaults, CtrlCInNsga2ResumesToIdenticalFiles) {
  auto doc = json(root_ / kSweep);
  doc["search"] = {{"strategy", "nsga2"}, {"population", 4}, {"generations", 3}, {"seed", 7}};
  const fs::path sweep = tmp_ / "nsga2_sweep.json";
  std::ofstream(sweep) << doc.dump(1);
  const Exit whole = explore(fresh_work(), "", false, sweep.string());
  ASSERT_EQ(whole.code, 0) << whole.err;
  fs::remove_all(tmp_ / "nsga2_whole");
  fs::rename(work(), tmp_ / "nsga2_whole");
  const fs::path out = fresh_work();
  const Exit cut = explore(out, "6:INT", false, sweep.string());
  EXPECT_EQ(cut.code, 130) << cut.err;
  const Exit resumed = explore(out, "", true, sweep.string());
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  expect_same_tree(tmp_ / "nsga2_whole", out, "nsga2 resumed after Ctrl-C");
}

// SIGKILL at ten seeded random fault points (evaluations, state.json and output writes,
// the HLS build), each followed by --resume: the files equal the uninterrupted run's.
TEST_F(ExploreFaults, SigkillAtRandomPointsThenResumeIsByteIdentical) {
  ASSERT_EQ(reference_.code, 0) << reference_.err;
  const auto [n, systemc] = reference_counts();
  // Fault points of a whole run: every evaluation, one per append to the evaluation log,
  // two per atomic file write.
  const int total = n + systemc + 2 * static_cast<int>(tree(tmp_ / "reference").size()) + 12;
  std::mt19937 rng(14);
  std::uniform_int_distribution<int> at(1, total);
  int killed = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const int k = at(rng);
    const fs::path out = fresh_work();
    const Exit cut = explore(out, std::to_string(k) + ":KILL");
    if (cut.signal == SIGKILL) ++killed;
    else EXPECT_EQ(cut.code, 0) << "trial " << trial << " (fault point " << k << "): " << cut.err;
    const Exit resumed = explore(out, "", true);
    ASSERT_EQ(resumed.code, 0) << "trial " << trial << " (fault point " << k << "): " << resumed.err;
    expect_same_tree(tmp_ / "reference", out, "trial " + std::to_string(trial) + ", killed at fault point " +
                                                   std::to_string(k));
  }
  EXPECT_GE(killed, 8) << "most fault points must fall inside the run (total " << total << ")";
}

// An axis pointer that names no field of the base arch is exit 2 at the axis key, before
// any evaluation (nothing written).
TEST_F(ExploreFaults, MistypedAxisPointerIsAnInputError) {
  auto doc = json(root_ / kSweep);
  doc["axes"]["arch:/contraction/lanez"] = {1, 2};
  const fs::path sweep = tmp_ / "typo_sweep.json";
  std::ofstream(sweep) << doc.dump(1);
  const fs::path out = tmp_ / "typo";
  const Exit e = explore(out, "", false, sweep.string());
  EXPECT_EQ(e.code, 2) << e.out << e.err;
  EXPECT_NE(e.err.find(sweep.string()), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("/axes/arch:~1contraction~1lanez"), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("names no field"), std::string::npos) << e.err;
  EXPECT_FALSE(fs::exists(out / "results.csv"));
}

// An empty design space ("axes": {} and no reference) is refused before any work: exit 2
// naming the sweep file and /axes, no output folder.
TEST_F(ExploreFaults, AnEmptyDesignSpaceIsRefusedBeforeAnyWork) {
  auto doc = json(root_ / kSweep);
  doc["axes"] = ttsim::Json::object();
  doc.erase("reference");
  const fs::path sweep = tmp_ / "empty_sweep.json";
  std::ofstream(sweep) << doc.dump(1);
  const fs::path out = tmp_ / "empty";
  const Exit e = explore(out, "", false, sweep.string());
  EXPECT_EQ(e.code, 2) << e.out << e.err;
  EXPECT_NE(e.err.find(sweep.string() + ": /axes: expected at least one axis with values"), std::string::npos) << e.err;
  EXPECT_FALSE(fs::exists(out));
}

// A pointer to a field the base file leaves to its default is a valid axis.
TEST_F(ExploreFaults, AxisPointerToADefaultedFieldIsAccepted) {
  auto doc = json(root_ / kSweep);
  doc["axes"] = {{"arch:/memory/port_contention", {true}}};
  doc.erase("reference");
  doc["fidelity"] = "analytic";
  const fs::path sweep = tmp_ / "default_field_sweep.json";
  std::ofstream(sweep) << doc.dump(1);
  const Exit e = explore(tmp_ / "default_field", "", false, sweep.string());
  EXPECT_EQ(e.code, 0) << e.err;
}

// Merging a shard whose run was interrupted is refused, naming the shard and the command
// that finishes it; once resumed, the merge equals the unsharded run.
TEST_F(ExploreFaults, MergeRefusesAnUnfinishedShard) {
  ASSERT_EQ(reference_.code, 0) << reference_.err;
  const fs::path s1 = tmp_ / "shard1", s2 = tmp_ / "shard2";
  const auto shard = [&](const fs::path& out, const char* which, const std::string& fault, bool resume) {
    std::vector<std::string> a = {"explore", kSweep, "--shard", which, "--out", out.string(), "--threads", "1"};
    if (resume) a.push_back("--resume");
    return run(a, fault);
  };
  ASSERT_EQ(shard(s1, "1/2", "", false).code, 0);
  const Exit cut = shard(s2, "2/2", "3:INT", false);
  ASSERT_EQ(cut.code, 130) << cut.err;
  const Exit refused = run({"merge", "--out", (tmp_ / "merged_bad").string(), s1.string(), s2.string(), "--threads", "1"});
  EXPECT_EQ(refused.code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find(s2.string() + "/state.json: shard 2/2 did not finish"), std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("--resume"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(tmp_ / "merged_bad/results.csv"));
  ASSERT_EQ(shard(s2, "2/2", "", true).code, 0);
  const Exit merged = run({"merge", "--out", (tmp_ / "merged").string(), s1.string(), s2.string(), "--threads", "1"});
  ASSERT_EQ(merged.code, 0) << merged.err;
}

}  // namespace
