#pragma once
// A fresh folder per test under Bazel's TEST_TMPDIR (/tmp outside Bazel).

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ttsim::testing {

/// TEST_TMPDIR/`name` (or /tmp/`name`), emptied and created; its path.
inline std::string tmp_dir(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::filesystem::path p = std::filesystem::path(t ? t : "/tmp") / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

}  // namespace ttsim::testing
