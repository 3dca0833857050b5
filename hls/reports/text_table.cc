#include "hls/reports/text_table.h"

#include "hls/reports/values.h"

namespace ttsim::hls::rpt {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      if (!cur.empty() && cur.back() == '\r') cur.pop_back();
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

std::optional<std::vector<std::string>> row_cells(const std::string& line) {
  std::string t = trim(line);
  if (t.size() < 2 || t.front() != '|') return std::nullopt;
  std::vector<std::string> cells;
  std::string cur;
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t[i] == '|') {
      cells.push_back(trim(cur));
      cur.clear();
    } else {
      cur += t[i];
    }
  }
  if (!trim(cur).empty()) cells.push_back(trim(cur));
  return cells;
}

std::optional<std::string> header_value(const std::vector<std::string>& ls, const std::string& key) {
  for (const auto& l : ls) {
    std::string t = trim(l);
    if (!t.empty() && t.front() == '|') t = trim(t.substr(1));
    auto colon = t.find(':');
    if (colon == std::string::npos) continue;
    if (trim(t.substr(0, colon)) == key) return trim(t.substr(colon + 1));
  }
  return std::nullopt;
}

}  // namespace ttsim::hls::rpt
