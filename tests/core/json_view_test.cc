#include "core/json_view.h"

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/json_parse.h"

namespace ttsim {
namespace {

ConfigError catch_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no ConfigError thrown";
  return ConfigError("", "", "", "");
}

TEST(JsonView, UnknownKeyNamesPointerAndAllowedKeys) {
  Json j = Json::parse(R"({"a": {"b": 1, "zz": 2}})");
  JsonView v(j, "f.json");
  auto e = catch_error([&] { v.at("a").allow_keys({"b"}); });
  EXPECT_EQ(e.file(), "f.json");
  EXPECT_EQ(e.pointer(), "/a/zz");
  EXPECT_NE(e.expected().find("b"), std::string::npos);
  EXPECT_EQ(e.found(), "unknown key \"zz\"");
}

TEST(JsonView, WrongTypeAndRange) {
  Json j = Json::parse(R"({"n": "x", "m": 5, "f": 2.5, "l": []})");
  JsonView v(j, "f.json");
  EXPECT_EQ(catch_error([&] { v.at("n").as_int(0, 10); }).found(), "string \"x\"");
  EXPECT_EQ(catch_error([&] { v.at("m").as_int(6, 10); }).found(), "number 5");
  EXPECT_EQ(catch_error([&] { v.at("f").as_int(0, 10); }).found(), "number 2.5");
  EXPECT_EQ(catch_error([&] { v.at("l").as_int_list(0, 10); }).found(), "an empty array");
  EXPECT_EQ(catch_error([&] { v.at("missing"); }).found(), "no such key");
  EXPECT_EQ(v.at("m").as_int(0, 10), 5);
}

TEST(JsonView, PointerEscapesSlashAndTilde) {
  Json j = Json::parse(R"({"a/b~c": 1})");
  JsonView v(j, "f.json");
  EXPECT_EQ(v.at("a/b~c").pointer(), "/a~1b~0c");
}

TEST(LoadJsonFile, SyntaxErrorGivesLineAndColumn) {
  const std::string path = ::testing::TempDir() + "/bad.json";
  std::ofstream(path) << "{\n  \"a\": 1,\n  \"b\": ]\n}\n";
  auto e = catch_error([&] { load_json_file(path); });
  EXPECT_NE(e.found().find("line 3"), std::string::npos) << e.what();
}

TEST(LoadJsonFile, MissingFileIsInputError) {
  EXPECT_THROW(load_json_file("/nonexistent/x.json"), InputError);
}

TEST(LoadJsonFile, NumberOverflowIsConfigError) {
  const std::string path = ::testing::TempDir() + "/overflow.json";
  std::ofstream(path) << "{\"clock_mhz\": 1e400}\n";
  auto e = catch_error([&] { load_json_file(path); });
  EXPECT_EQ(e.file(), path);
  EXPECT_NE(e.found().find("1e400"), std::string::npos) << e.what();
  EXPECT_EQ(e.pointer(), "/clock_mhz");
  EXPECT_NE(e.found().find("line 1, column 15"), std::string::npos) << e.what();
  std::ofstream(path) << "{\"s\": \"9e999\",\n \"a\": [1,\n  -2e400]}\n";
  auto f = catch_error([&] { load_json_file(path); });
  EXPECT_EQ(f.pointer(), "/a/1");
  EXPECT_NE(f.found().find("line 3, column 3"), std::string::npos) << f.what();
}

TEST(LoadJsonFile, NestingBeyondTheLimitIsConfigErrorWithItsPlace) {
  const std::string path = ::testing::TempDir() + "/deep.json";
  // 256 levels parse; a hostile file of 200,000 levels stops at level 257.
  std::ofstream(path) << "{\"a\": " << std::string(kMaxJsonDepth - 1, '[') << std::string(kMaxJsonDepth - 1, ']') << "}";
  EXPECT_NO_THROW(load_json_file(path));
  std::ofstream(path) << "{\"s\": \"[[[[\",\n \"a\": " << std::string(200000, '[') << std::string(200000, ']') << "}";
  auto e = catch_error([&] { load_json_file(path); });
  EXPECT_EQ(e.file(), path);
  EXPECT_NE(std::string(e.what()).find("at most 256 levels"), std::string::npos) << e.what();
  // The object is level 1; the 256th '[' opens level 257, at column 7 + 255 of line 2.
  EXPECT_NE(e.found().find("line 2, column 262"), std::string::npos) << e.what();
}

TEST(LoadJsonFile, DirectoryAndDeviceAreRefused) {
  try {
    load_json_file(::testing::TempDir());
    ADD_FAILURE() << "directory accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("found a directory"), std::string::npos);
  }
  EXPECT_THROW(load_json_file("/dev/zero"), InputError);
}

TEST(AtomicFile, WritesAndReplaces) {
  const std::string path = ::testing::TempDir() + "/out.txt";
  write_file_atomic(path, "one");
  write_file_atomic(path, "two");
  std::ifstream in(path);
  std::string s;
  in >> s;
  EXPECT_EQ(s, "two");
  EXPECT_THROW(write_file_atomic("/proc/nonexistent/out.txt", "x"), InputError);
  // Missing parent folders are created.
  const std::string nested = ::testing::TempDir() + "/a/b/out.txt";
  write_file_atomic(nested, "three");
  std::ifstream in2(nested);
  std::string t;
  in2 >> t;
  EXPECT_EQ(t, "three");
}

TEST(LoadJsonFile, DuplicateKeyIsConfigErrorAtItsPointer) {
  const std::string path = ::testing::TempDir() + "/dup.json";
  std::ofstream(path) << "{\"a\": [{\"x\": 1}, {\"y\": 1, \"b/c\": 2, \"b/c\": 3}], \"z\": 0}\n";
  auto e = catch_error([&] { load_json_file(path); });
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.pointer(), "/a/1/b~1c");
  EXPECT_NE(std::string(e.what()).find("a second time"), std::string::npos) << e.what();
}

TEST(LoadJsonFile, DuplicateTopLevelKeyAndSameKeyInSiblingObjectsAllowed) {
  const std::string ok = ::testing::TempDir() + "/siblings.json";
  std::ofstream(ok) << "{\"a\": {\"k\": 1}, \"b\": {\"k\": 2}, \"c\": [[1, {\"k\": 3}]]}";
  const Json j = load_json_file(ok);
  EXPECT_EQ(j["c"][0][1]["k"], 3);
  const std::string path = ::testing::TempDir() + "/dup_top.json";
  std::ofstream(path) << "{\"lanes\": 16,\n \"lanes\": 64}";
  EXPECT_EQ(catch_error([&] { load_json_file(path); }).pointer(), "/lanes");
}


}  // namespace
}  // namespace ttsim
