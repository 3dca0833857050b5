// cli/output_files: clashing outputs and inputs are refused, unwritable folders are found
// before any work without leaving files behind, and several outputs are written all or none.

#include "cli/output_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/errors.h"

namespace {

namespace fs = std::filesystem;
using ttsim::cli::check_output_writable;
using ttsim::cli::refuse_clashing_paths;
using ttsim::cli::write_files_atomic;

fs::path fresh_dir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  fs::path d = fs::path(tmp ? tmp : "/tmp") / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

TEST(OutputFiles, SecondOutputFailingLeavesTheFirstUntouched) {
  const fs::path d = fresh_dir("all_or_none");
  put(d / "step.json", "old");
  put(d / "blocker", "a file where a folder is needed");
  EXPECT_THROW(write_files_atomic({{(d / "step.json").string(), "new"},
                                   {(d / "blocker" / "t.json").string(), "trace"}}),
               ttsim::InputError);
  EXPECT_EQ(read(d / "step.json"), "old");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(d)) entries += e.exists();
  EXPECT_EQ(entries, 2) << "a temporary file was left behind";
}

TEST(OutputFiles, AllOutputsWrittenWithMissingFolders) {
  const fs::path d = fresh_dir("all_written");
  write_files_atomic({{(d / "a" / "x.json").string(), "x"}, {(d / "b" / "y.json").string(), "y"}});
  EXPECT_EQ(read(d / "a" / "x.json"), "x");
  EXPECT_EQ(read(d / "b" / "y.json"), "y");
}

TEST(OutputFiles, ClashesAreRefused) {
  const fs::path d = fresh_dir("clash");
  const std::string a = (d / "a.json").string();
  const std::string a_alias = (d / "." / "sub" / ".." / "a.json").string();
  EXPECT_THROW(refuse_clashing_paths({{"--json", a}, {"--trace", a_alias}}, {}), ttsim::InputError);
  EXPECT_THROW(refuse_clashing_paths({{"--json", a}}, {{"--model", a}}), ttsim::InputError);
  try {
    refuse_clashing_paths({{"--json", a}}, {{"CONFIG", a_alias}});
    ADD_FAILURE() << "output equal to the input accepted";
  } catch (const ttsim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("CONFIG"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(refuse_clashing_paths({{"--json", a}, {"--trace", ""}, {"--x", (d / "b").string()}},
                                        {{"--model", (d / "m.json").string()}, {"--arch", ""}}));
}

TEST(OutputFiles, WritabilityCheckedWithoutSideEffects) {
  const fs::path d = fresh_dir("writable");
  put(d / "blocker", "file");
  EXPECT_THROW(check_output_writable({"--json", (d / "blocker" / "x.json").string()}), ttsim::InputError);
  EXPECT_THROW(check_output_writable({"--json", d.string()}), ttsim::InputError);  // a folder
  EXPECT_NO_THROW(check_output_writable({"--json", (d / "new" / "deeper" / "x.json").string()}));
  EXPECT_FALSE(fs::exists(d / "new")) << "the check created a folder";
  int entries = 0;
  for (const auto& e : fs::directory_iterator(d)) entries += e.exists();
  EXPECT_EQ(entries, 1) << "the probe file was left behind";
  EXPECT_NO_THROW(check_output_writable({"--json", ""}));
}

}  // namespace
