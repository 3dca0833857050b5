// Scale-out on one machine with GNU parallel, as the README shows it: four `explore
// --shard i/4` runs of the small shipped sweep (configs/sweeps/smoke.json) started by
// `parallel`, then `ttsim merge`, give the files of one unsharded run byte for byte
// (results.csv, results.jsonl, results.json, pareto.csv, chosen.json and every other file
// of the folder). Skipped, saying why, when GNU parallel (Debian package `parallel`) is not
// installed.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/cli/folder_files.h"

namespace {

namespace fs = std::filesystem;
using ttsim::testing::expect_same_tree;
using ttsim::testing::read_text;

// Runs `cmd` with sh in `dir`, its output into `log`; returns the exit status.
int run_in(const fs::path& dir, const std::string& cmd, const fs::path& log) {
  const std::string line = "cd '" + dir.string() + "' && " + cmd + " > '" + log.string() + "' 2>&1";
  const int rc = std::system(line.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

TEST(ParallelShards, FourShardsThroughGnuParallelMergeToOneRun) {
  if (std::system("parallel --version > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "GNU parallel is not installed (Debian package `parallel`, installed by "
                    "scripts/install_deps.sh --test)";
  }
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const fs::path root = fs::absolute(fs::path(srcdir ? srcdir : ".") / "ttsim");
  const char* tmpdir = std::getenv("TEST_TMPDIR");
  const fs::path tmp = fs::absolute(tmpdir ? tmpdir : "/tmp") / "parallel_shards";
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  const std::string ttsim = (root / "cli/ttsim").string(), sweep = "configs/sweeps/smoke.json";
  // File contents name the out folder (summary.md, hls_build/): both runs write to tmp/run.
  const fs::path run = tmp / "run";

  ASSERT_EQ(run_in(root, ttsim + " explore " + sweep + " --out " + run.string() + " --threads 1", tmp / "whole.log"), 0)
      << read_text(tmp / "whole.log");
  fs::rename(run, tmp / "whole");

  // HOME: parallel keeps its settings under ~/.parallel; the test's HOME may be read-only.
  const std::string shards = (tmp / "shards").string();
  const std::string parallel = "HOME='" + tmp.string() + "' parallel --halt now,fail=1 --jobs 4 " + ttsim +
                               " explore " + sweep + " --shard {}/4 --out " + shards + "/s{} --threads 1 ::: 1 2 3 4";
  ASSERT_EQ(run_in(root, parallel, tmp / "parallel.log"), 0) << read_text(tmp / "parallel.log");
  const std::string log = read_text(tmp / "parallel.log");
  for (int i = 1; i <= 4; ++i) {
    EXPECT_NE(log.find("shard " + std::to_string(i) + "/4: 4 points evaluated"), std::string::npos) << log;
  }
  ASSERT_EQ(run_in(root, ttsim + " merge --out " + run.string() + " " + shards + "/s* --threads 1", tmp / "merge.log"), 0)
      << read_text(tmp / "merge.log");
  EXPECT_NE(read_text(tmp / "merge.log").find("merged 4 shards: 16 points"), std::string::npos)
      << read_text(tmp / "merge.log");
  for (const char* file : {"results.csv", "results.jsonl", "results.json", "pareto.csv", "chosen.json"}) {
    ASSERT_TRUE(fs::exists(run / file)) << file;
    EXPECT_EQ(read_text(tmp / "whole" / file), read_text(run / file)) << file;
  }
  expect_same_tree(tmp / "whole", run, "merge of the four shards");
}

}  // namespace
