#pragma once
// An ordered set of strings with dense integer ids: the token vocabulary, the intent
// labels and the slot (BIO) tags of a joint intent/slot dataset.

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ttsim::dataset {

/// Strings numbered 0..size()-1 in insertion order.
class LabelSet {
 public:
  /// Adds `name` if absent; returns its id either way.
  int add(const std::string& name);
  /// The id of `name`, if present.
  std::optional<int> find(const std::string& name) const;
  /// The id of `name`, or `fallback` when absent (the UNK mapping).
  int id_or(const std::string& name, int fallback) const;
  /// The string of `id`; throws std::out_of_range for an id outside [0, size()).
  const std::string& name(int id) const;
  int size() const { return static_cast<int>(names_.size()); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, int> ids_;
};

/// Reads a label file (one label per line, JointBERT `intent_label.txt` /
/// `slot_label.txt`): ids follow the line order. Trailing '\r' and surrounding blanks
/// are stripped. Throws InputError naming the file when it cannot be read, and naming
/// file and line for an empty line or a label listed twice.
LabelSet read_label_file(const std::string& path);

/// Reads every line of a text file (without the '\n'; a trailing '\r' is removed).
/// Throws InputError "<path>: cannot open file for reading" when missing.
std::vector<std::string> read_text_lines(const std::string& path);

/// Splits `line` on spaces and tabs, dropping empty fields.
std::vector<std::string> split_fields(const std::string& line);

}  // namespace ttsim::dataset
