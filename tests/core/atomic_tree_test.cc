// A tree of files written whole or not at all: the new tree replaces the folder, nothing
// of the swap is left beside it, and a tree that cannot be written leaves the earlier one.
#include "core/atomic_tree.h"

#include <unistd.h>

#include <cerrno>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "tests/testing/slurp.h"

namespace ttsim {
namespace {

namespace fs = std::filesystem;

using ttsim::testing::slurp;

fs::path tmp(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const fs::path p = fs::path(t ? t : "/tmp") / name;
  fs::remove_all(p);
  return p;
}

AtomicTreeOptions options(const std::string& label) {
  AtomicTreeOptions o;
  o.label = label;
  o.noun = "build";
  o.temp_tag = "emit";
  o.folders = {"empty/inside"};
  return o;
}

// The names beside `dir` in its parent that start with its own name followed by '.'.
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir.parent_path())) {
    const std::string name = e.path().filename().string();
    if (name.rfind(dir.filename().string() + ".", 0) == 0) out.push_back(name);
  }
  return out;
}

TEST(AtomicTree, WritesTheFilesAndTheFoldersAndReplacesAnEarlierTree) {
  const fs::path dir = tmp("tree") / "out";
  write_tree_atomic(dir.string(), {{"a.txt", "one"}, {"sub/b.txt", "two"}}, options(dir.string()));
  EXPECT_EQ(slurp((dir / "a.txt").string()), "one");
  EXPECT_EQ(slurp((dir / "sub/b.txt").string()), "two");
  EXPECT_TRUE(fs::is_directory(dir / "empty/inside"));
  // The second tree replaces the first entirely: a file only the first had is gone.
  write_tree_atomic(dir.string() + "/", {{"c.txt", "three"}}, options(dir.string()));
  EXPECT_FALSE(fs::exists(dir / "a.txt"));
  EXPECT_EQ(slurp((dir / "c.txt").string()), "three");
  EXPECT_TRUE(leftovers(dir).empty());
}

TEST(AtomicTree, FolderPathNamesTheFolderItself) {
  const fs::path cwd = fs::current_path();
  EXPECT_EQ(tree_folder_path("x/"), cwd / "x");
  EXPECT_EQ(tree_folder_path("./x//"), cwd / "x");
  EXPECT_EQ(tree_folder_path("."), cwd);
  EXPECT_EQ(tree_folder_path("/"), fs::path("/"));
  EXPECT_THROW(write_tree_atomic("/", {}, options("/")), InputError);
}

TEST(AtomicTree, AFileThatCannotBeWrittenLeavesTheEarlierTree) {
  const fs::path dir = tmp("tree_fail") / "out";
  write_tree_atomic(dir.string(), {{"a.txt", "one"}}, options(dir.string()));
  // "a.txt/b" needs a.txt to be a folder and a file at once.
  EXPECT_THROW(write_tree_atomic(dir.string(), {{"a.txt", "x"}, {"a.txt/b", "y"}}, options(dir.string())),
               InputError);
  EXPECT_EQ(slurp((dir / "a.txt").string()), "one");
  EXPECT_TRUE(leftovers(dir).empty()) << leftovers(dir).front();
}

TEST(AtomicTree, ASiblingLeftByTheSamePidIsReplaced) {
  const fs::path dir = tmp("tree_left") / "out";
  const fs::path stale = dir.parent_path() / ("out.emit-" + std::to_string(::getpid()));
  fs::create_directories(stale / "junk");
  write_tree_atomic(dir.string(), {{"a.txt", "one"}}, options(dir.string()));
  EXPECT_FALSE(fs::exists(dir / "junk"));
  EXPECT_FALSE(fs::exists(stale));
}

// A write the machine refuses (a full disk or quota, an I/O error, no descriptor or memory
// left) is a SystemError (exit 1), one the input's path refuses an InputError (exit 2).
TEST(FileErrors, TheMachinesStateIsNotTheInputsFault) {
  for (int err : {ENOSPC, EDQUOT, EIO, EMFILE, ENFILE, ENOMEM}) {
    EXPECT_TRUE(is_system_errno(err)) << err;
    EXPECT_THROW(throw_file_error(err, "x"), SystemError) << err;
  }
  for (int err : {EACCES, EROFS, ENOENT, ENOTDIR, EISDIR, ENAMETOOLONG, 0}) {
    EXPECT_FALSE(is_system_errno(err)) << err;
    EXPECT_THROW(throw_file_error(err, "x"), InputError) << err;
  }
  try {
    throw_file_error(ENOSPC, "out/r.json: write failed (No space left on device)");
  } catch (const SystemError& e) {
    EXPECT_STREQ(e.what(), "out/r.json: write failed (No space left on device)");
  }
}

}  // namespace
}  // namespace ttsim
