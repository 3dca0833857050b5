#pragma once
// Whole-file reads for tests that compare files byte for byte.

#include <fstream>
#include <sstream>
#include <string>

namespace ttsim::testing {

/// The bytes of the file at `path`; "" when it cannot be opened.
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace ttsim::testing
