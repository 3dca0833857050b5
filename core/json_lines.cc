#include "core/json_lines.h"

#include <cerrno>
#include <cstring>

#include "core/errors.h"

namespace ttsim {

JsonLinesReader::JsonLinesReader(std::string path) : path_(std::move(path)) {
  in_.open(path_, std::ios::binary);
  if (!in_) throw InputError(path_ + ": cannot open file for reading (" + std::strerror(errno) + ")");
}

std::string JsonLinesReader::where() const { return path_ + ":" + std::to_string(line_); }

Json JsonLinesReader::parse(const std::string& text, const std::string& where) const {
  try {
    Json v = Json::parse(text);
    if (!v.is_discarded()) return v;
  } catch (const Json::parse_error& e) {
    throw ConfigError(where, "", "one JSON value per line", std::string("invalid JSON (") + e.what() + ")");
  } catch (const Json::out_of_range& e) {  // a number beyond a 64-bit float, e.g. 1e999
    throw ConfigError(where, "", "numbers representable as 64-bit floating point", e.what());
  }
  throw ConfigError(where, "", "one JSON value per line", "invalid JSON");
}

bool JsonLinesReader::next(Json& value) {
  if (cut_) return false;
  if (moved_) {  // at() read elsewhere since
    in_.clear();
    in_.seekg(end_);
    moved_ = false;
  }
  if (!std::getline(in_, text_)) return false;
  if (in_.eof()) {  // no "\n": a line a killed writer did not finish
    cut_ = true;
    return false;
  }
  ++line_;
  offset_ = end_;
  end_ += static_cast<std::int64_t>(text_.size()) + 1;
  if (text_.empty()) throw ConfigError(where(), "", "one JSON value per line", "an empty line");
  value = parse(text_, where());
  return true;
}

Json JsonLinesReader::at(std::int64_t offset) {
  return parse(text_at(offset), path_ + ":@" + std::to_string(offset));
}

const std::string& JsonLinesReader::text_at(std::int64_t offset) {
  // A line right after the one at() read last is read on, without a seek (which would drop
  // the stream's buffer): reading a log's lines in order costs no system call per line.
  if (!moved_ || offset != at_next_ || !in_.good()) {
    in_.clear();
    in_.seekg(offset);
  }
  moved_ = true;
  at_next_ = -1;
  if (!std::getline(in_, text_) || in_.eof()) {
    throw ConfigError(path_ + ":@" + std::to_string(offset), "", "a complete JSON line at this byte offset",
                      "the end of the file");
  }
  at_next_ = offset + static_cast<std::int64_t>(text_.size()) + 1;
  return text_;
}

std::vector<Json> load_json_lines(const std::string& path) {
  JsonLinesReader r(path);
  std::vector<Json> lines;
  Json v;
  while (r.next(v)) lines.push_back(std::move(v));
  if (r.cut_short()) {
    throw ConfigError(path + ":" + std::to_string(r.line() + 1), "", "a line ending in a newline",
                      "the end of the file");
  }
  return lines;
}

}  // namespace ttsim
