#include "models/dataset/label_set.h"

#include <fstream>
#include <stdexcept>

#include "core/errors.h"

namespace ttsim::dataset {

int LabelSet::add(const std::string& name) {
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  const int id = size();
  names_.push_back(name);
  ids_.emplace(name, id);
  return id;
}

std::optional<int> LabelSet::find(const std::string& name) const {
  auto it = ids_.find(name);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

int LabelSet::id_or(const std::string& name, int fallback) const {
  auto it = ids_.find(name);
  return it == ids_.end() ? fallback : it->second;
}

const std::string& LabelSet::name(int id) const {
  if (id < 0 || id >= size()) {
    throw std::out_of_range("label id " + std::to_string(id) + " outside [0, " +
                            std::to_string(size()) + ")");
  }
  return names_[static_cast<std::size_t>(id)];
}

std::vector<std::string> read_text_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file for reading");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  if (in.bad()) throw InputError(path + ": read error");
  return lines;
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

LabelSet read_label_file(const std::string& path) {
  const auto lines = read_text_lines(path);
  LabelSet set;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto fields = split_fields(lines[i]);
    const std::string where = path + ":" + std::to_string(i + 1) + ": ";
    if (fields.size() != 1) {
      throw InputError(where + "expected one label per line, found " +
                       std::to_string(fields.size()) + " fields");
    }
    if (set.find(fields[0])) {
      throw InputError(where + "label \"" + fields[0] + "\" listed twice (first on line " +
                       std::to_string(*set.find(fields[0]) + 1) + ")");
    }
    set.add(fields[0]);
  }
  if (set.size() == 0) throw InputError(path + ": expected at least one label, found none");
  return set;
}

}  // namespace ttsim::dataset
