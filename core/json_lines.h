#pragma once
// JSON Lines files (one JSON value per line, "\n"-terminated), read one line at a time so
// a file of any length is never held in memory whole.

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "core/json_view.h"

namespace ttsim {

/// Sequential (next) and random (at) access to the lines of a JSON Lines file.
class JsonLinesReader {
 public:
  /// Opens `path`. Throws InputError naming it when it cannot be read.
  explicit JsonLinesReader(std::string path);

  /// Parses the next complete line into `value`; false at the end of the file. A last
  /// line without its "\n" (cut short by a killed writer) is never returned:
  /// complete_bytes() then ends before it. An empty line is an error. Throws ConfigError
  /// at where() (pointer "/") for a line that is not one JSON value.
  bool next(Json& value);
  /// 1-based number of the line next() returned last (0 before the first).
  std::size_t line() const { return line_; }
  /// Byte offset in the file of the line next() returned last.
  std::int64_t offset() const { return offset_; }
  /// Bytes of the complete lines read so far by next() (the offset just after the last).
  std::int64_t complete_bytes() const { return end_; }
  /// True when next() stopped at a last line without its "\n".
  bool cut_short() const { return cut_; }
  /// "<path>:<line>" of the line next() returned last: the file an error names.
  std::string where() const;

  /// Parses the line starting at byte `offset` (an offset() seen before). Throws
  /// ConfigError at "<path>:@<offset>" when no complete JSON line starts there.
  Json at(std::int64_t offset);
  /// The text of the line starting at byte `offset`, without its "\n" and unparsed (valid
  /// until the next call of this reader). Throws ConfigError as at() when no complete line
  /// starts there.
  const std::string& text_at(std::int64_t offset);

  const std::string& path() const { return path_; }

 private:
  Json parse(const std::string& text, const std::string& where) const;

  std::string path_;
  std::ifstream in_;
  std::string text_;
  std::size_t line_ = 0;
  std::int64_t offset_ = 0, end_ = 0;
  bool cut_ = false;
  bool moved_ = false;  // at() moved the read position since next()
  std::int64_t at_next_ = -1;  // offset just past the line at() read last (-1: none)
};

/// Every line of the JSON Lines file `path`, parsed (for small files and tests).
/// Errors as JsonLinesReader; a last line without its "\n" is an error here too.
std::vector<Json> load_json_lines(const std::string& path);

}  // namespace ttsim
