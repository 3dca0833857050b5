#include "core/json_parse.h"

#include <cmath>
#include <cstdlib>
#include <set>
#include <vector>

#include "core/errors.h"

namespace ttsim {
namespace {

using Json = nlohmann::json;

std::string escape_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

/// "line L, column C" of byte `offset` of `text`.
std::string line_column(const std::string& text, std::size_t offset) {
  if (offset > text.size()) offset = text.size();
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

/// Byte offset of the first number token of `text` (outside strings) too large for a
/// double, or text.size() when there is none.
std::size_t overflow_offset(const std::string& text) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t end = i;
      while (end < text.size() && std::string("0123456789+-.eE").find(text[end]) != std::string::npos) ++end;
      if (std::isinf(std::strtod(text.substr(i, end - i).c_str(), nullptr))) return i;
      i = end - 1;
    }
  }
  return text.size();
}

// SAX handler that builds the document with nlohmann's DOM builder and stops at the
// first key repeated within one object, remembering its JSON pointer.
class UniqueKeySax {
 public:
  explicit UniqueKeySax(Json& root) : dom_(root, true) {}

  bool null() { return value() && dom_.null(); }
  bool boolean(bool v) { return value() && dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) { return value() && dom_.number_integer(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return value() && dom_.number_unsigned(v); }
  bool number_float(Json::number_float_t v, const std::string& s) { return value() && dom_.number_float(v, s); }
  bool string(std::string& v) { return value() && dom_.string(v); }
  bool binary(Json::binary_t& v) { return value() && dom_.binary(v); }
  bool start_object(std::size_t n) { return open(true) && dom_.start_object(n); }
  bool end_object() { return close() && dom_.end_object(); }
  bool start_array(std::size_t n) { return open(false) && dom_.start_array(n); }
  bool end_array() { return close() && dom_.end_array(); }
  bool key(std::string& k) {
    Frame& top = frames_.back();
    if (!top.keys.insert(k).second) {
      duplicate_ = top.pointer + "/" + escape_token(k);
      duplicate_key_ = k;
      return false;
    }
    top.pending = k;
    return dom_.key(k);
  }
  template <class Exception>
  bool parse_error(std::size_t pos, const std::string& token, const Exception& ex) {
    return dom_.parse_error(pos, token, ex);  // throws ex
  }

  const std::string& duplicate() const { return duplicate_; }
  /// The JSON pointer the value being parsed will have (does not advance).
  std::string current_pointer() const {
    if (frames_.empty()) return "";
    const Frame& top = frames_.back();
    return top.pointer + "/" + (top.object ? escape_token(top.pending) : std::to_string(top.next_index));
  }
  const std::string& duplicate_key() const { return duplicate_key_; }
  /// An array or object opened more than kMaxJsonDepth levels deep (parsing stopped there).
  bool too_deep() const { return too_deep_; }

 private:
  struct Frame {
    bool object = false;
    std::string pointer;
    std::set<std::string> keys;
    std::string pending;
    std::size_t next_index = 0;
  };

  // The pointer token of the value that starts now (advances an array's index).
  std::string token() {
    if (frames_.empty()) return "";
    Frame& top = frames_.back();
    if (top.object) return "/" + escape_token(top.pending);
    return "/" + std::to_string(top.next_index++);
  }
  bool value() {
    token();
    return true;
  }
  bool open(bool object) {
    if (frames_.size() >= kMaxJsonDepth) {
      too_deep_ = true;
      return false;
    }
    Frame f;
    f.object = object;
    f.pointer = frames_.empty() ? "" : frames_.back().pointer;
    f.pointer += token();
    frames_.push_back(std::move(f));
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  std::vector<Frame> frames_;
  std::string duplicate_, duplicate_key_;
  bool too_deep_ = false;
};

// Byte offset of the first '[' or '{' (outside strings) that opens level `limit` + 1.
std::size_t depth_offset(const std::string& text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
  return text.size();
}

}  // namespace

Json parse_json_text(const std::string& text, const std::string& file) {
  Json result;
  UniqueKeySax sax(result);
  try {
    const bool ok = Json::sax_parse(text, &sax);
    if (!ok && sax.too_deep()) {
      throw ConfigError(file, "", "JSON nested at most " + std::to_string(kMaxJsonDepth) + " levels deep",
                        "deeper nesting at " + line_column(text, depth_offset(text, kMaxJsonDepth)));
    }
    if (!ok && !sax.duplicate().empty()) {
      throw ConfigError(file, sax.duplicate(), "unique keys in each object",
                        "key \"" + sax.duplicate_key() + "\" a second time");
    }
    return result;
  } catch (const Json::out_of_range& e) {
    // Number overflow (e.g. 1e400): the library reports no position; the pointer is the
    // value being parsed, the line and column those of the first overflowing number.
    std::string what = e.what();
    auto pos = what.find("number overflow");
    if (pos != std::string::npos) what = what.substr(pos);
    const std::size_t at = overflow_offset(text);
    if (at < text.size()) what += " at " + line_column(text, at);
    throw ConfigError(file, sax.current_pointer(), "numbers representable as 64-bit floating point", what);
  } catch (const Json::parse_error& e) {
    std::size_t offset = e.byte == 0 ? 0 : e.byte - 1;
    std::string what = e.what();
    auto pos = what.find("parse error");
    if (pos != std::string::npos) what = what.substr(pos);
    throw ConfigError(file, "", "valid JSON", "a syntax error at " + line_column(text, offset) + " (" + what + ")");
  }
}

}  // namespace ttsim
