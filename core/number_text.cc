#include "core/number_text.h"

#include <fmt/format.h>

namespace ttsim {

std::string grouped(std::int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v), out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string mib(std::int64_t bytes) { return fmt::format("{:.3f} MiB", bytes / 1048576.0); }

}  // namespace ttsim
