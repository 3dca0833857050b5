#pragma once
// Test helpers for the CLI end-to-end tests: a file's bytes, every file of a folder, and
// the assertion that two run folders hold the same files byte for byte.

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ttsim::testing {

/// The bytes of `p` ("" when it cannot be read).
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Every regular file under `dir`: path relative to `dir` -> content.
inline std::map<std::string, std::string> tree(const std::filesystem::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files[std::filesystem::relative(e.path(), dir).string()] = read_text(e.path());
  }
  return files;
}

/// Expects `got` to hold the files of `want`, byte for byte; the failure names (after
/// `what`) the files missing, extra and differing.
inline void expect_same_tree(const std::filesystem::path& want, const std::filesystem::path& got,
                             const std::string& what) {
  const auto a = tree(want), b = tree(got);
  std::vector<std::string> only_a, only_b, differ;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) only_a.push_back(k);
    else if (it->second != v) differ.push_back(k);
  }
  for (const auto& [k, v] : b) {
    (void)v;
    if (!a.count(k)) only_b.push_back(k);
  }
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += " " + x;
    return s;
  };
  EXPECT_TRUE(only_a.empty() && only_b.empty() && differ.empty())
      << what << ": missing:" << list(only_a) << "; extra:" << list(only_b) << "; differ:" << list(differ);
}

}  // namespace ttsim::testing
