#pragma once
// C++ source text without its comments, for tests that read emitted or checked-in sources.

#include <string>

namespace ttsim::testing {

/// `text` with each `/* ... */` (to the end when unclosed) and each `// ...` up to its newline
/// replaced by a space. A linear scan: std::regex's backtracking recurses once per character
/// of a match and overflows the stack on a long one (an unclosed "/*" inside a line comment,
/// such as a path with a wildcard, matched to the end of the file).
inline std::string code_of(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i);
      if (i == std::string::npos) i = text.size();
      out += ' ';
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 2;
      out += ' ';
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace ttsim::testing
