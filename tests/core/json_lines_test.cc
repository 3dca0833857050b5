// JSON Lines reading (sequential, random access, a last line cut short) and the streamed
// atomic writer.
#include "tests/testing/slurp.h"
#include "core/json_lines.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/atomic_file.h"

namespace ttsim {
namespace {

namespace fs = std::filesystem;

std::string tmp(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  return (fs::path(t ? t : "/tmp") / name).string();
}

using ttsim::testing::slurp;

TEST(JsonLines, ReadsLinesInOrderAndAtTheirOffsets) {
  const std::string path = tmp("lines.jsonl");
  std::ofstream(path) << "{\"id\":1}\n[2,3]\n\"x\"\n";
  JsonLinesReader r(path);
  Json v;
  std::vector<std::int64_t> offsets;
  std::vector<Json> got;
  while (r.next(v)) {
    got.push_back(v);
    offsets.push_back(r.offset());
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1], Json::parse("[2,3]"));
  EXPECT_EQ(offsets, (std::vector<std::int64_t>{0, 9, 15}));
  EXPECT_EQ(r.line(), 3u);
  EXPECT_FALSE(r.cut_short());
  EXPECT_EQ(r.complete_bytes(), 19);
  EXPECT_EQ(r.at(9), Json::parse("[2,3]"));
  EXPECT_EQ(r.at(0)["id"], 1);
  // The same lines unparsed, without their newline.
  EXPECT_EQ(r.text_at(9), "[2,3]");
  EXPECT_EQ(r.text_at(15), "\"x\"");
  EXPECT_THROW(r.text_at(19), ConfigError);
  EXPECT_EQ(load_json_lines(path).size(), 3u);
}

TEST(JsonLines, ALastLineWithoutNewlineIsNotReturned) {
  const std::string path = tmp("cut.jsonl");
  std::ofstream(path) << "{\"id\":1}\n{\"id\":2,\"ana";
  JsonLinesReader r(path);
  Json v;
  ASSERT_TRUE(r.next(v));
  EXPECT_FALSE(r.next(v));
  EXPECT_TRUE(r.cut_short());
  EXPECT_EQ(r.complete_bytes(), 9);
  try {
    load_json_lines(path);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path + ":2");
  }
}

TEST(JsonLines, ABadLineNamesFileAndLine) {
  const std::string path = tmp("bad.jsonl");
  std::ofstream(path) << "{\"id\":1}\n{oops}\n";
  try {
    load_json_lines(path);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path + ":2");
    EXPECT_EQ(e.pointer(), "");
  }
  std::ofstream(path) << "{\"id\":1}\n\n";
  EXPECT_THROW(load_json_lines(path), ConfigError);
  // A number beyond a 64-bit float is bad input at its line, not an uncaught library error.
  std::ofstream(path) << "{\"id\":1}\n{\"id\":2,\"step_cycles\":1e999}\n";
  try {
    load_json_lines(path);
    ADD_FAILURE() << "no error for 1e999";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path + ":2");
    EXPECT_NE(std::string(e.what()).find("64-bit floating point"), std::string::npos) << e.what();
  }
  EXPECT_THROW(JsonLinesReader(tmp("missing.jsonl")), InputError);
}

TEST(AtomicFileWriter, WritesOnCommitAndLeavesNothingOtherwise) {
  const std::string path = tmp("streamed.txt");
  fs::remove(path);
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  {
    AtomicFileWriter out(path);
    out.write("a,b\n");
    EXPECT_TRUE(fs::exists(temp));
    EXPECT_FALSE(fs::exists(path));
  }  // not committed: no file, no temporary
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(temp));
  write_file_atomic(path, "old");
  {
    AtomicFileWriter out(path);
    out.write("a,b\n");
    out.write("1,2\n");
    EXPECT_EQ(slurp(path), "old");  // untouched until the rename
    out.commit();
  }
  EXPECT_EQ(slurp(path), "a,b\n1,2\n");
  EXPECT_FALSE(fs::exists(temp));
  fs::create_directories(tmp("a_folder"));
  EXPECT_THROW(AtomicFileWriter(tmp("a_folder")), InputError);
}

}  // namespace
}  // namespace ttsim
