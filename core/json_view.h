#pragma once
// Validating read access to JSON configs. Every config loader in ttsim reads through
// JsonView so that every error names the file, the JSON pointer, what was expected
// and what was found (ConfigError, exit code 2).

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace ttsim {

using Json = nlohmann::json;

/// Parses the JSON file at `path`.
/// Throws InputError when the file cannot be read and ConfigError (pointer "/",
/// "found" giving line and column) when it is not valid JSON, or (at the key's JSON
/// pointer) when an object repeats a key (core/json_parse.h).
Json load_json_file(const std::string& path);

/// A short human description of a JSON value for error messages,
/// e.g. `string "abc"`, `number 3.5`, `array of 2`, `object`, `null`.
std::string describe_json(const Json& value);

/// A view of one node of a parsed JSON document, remembering the file it came from
/// and its JSON pointer. Cheap to copy; the document must outlive the view.
class JsonView {
 public:
  JsonView(const Json& node, std::string file, std::string pointer = "");

  const Json& raw() const { return *node_; }
  const std::string& file() const { return *path_->file; }
  /// RFC 6901 pointer of this node ("" is the root); built when asked for (a view keeps its
  /// parent's path and its own key), so reading a document builds no pointer strings.
  std::string pointer() const;

  bool is_object() const { return node_->is_object(); }
  bool is_array() const { return node_->is_array(); }
  bool is_number() const { return node_->is_number(); }
  bool is_string() const { return node_->is_string(); }

  /// True when this node is an object that has `key`.
  bool has(const std::string& key) const;
  /// The member `key` of this object. Throws ConfigError if this is not an object
  /// or the key is missing ("expected required key <key>").
  JsonView at(const std::string& key) const;
  /// The member `key` if present.
  std::optional<JsonView> find(const std::string& key) const;
  /// Element `index` of this array.
  JsonView at(std::size_t index) const;

  /// Requires an object whose keys are all in `allowed`; otherwise ConfigError at
  /// the unknown key listing the allowed ones.
  void allow_keys(std::initializer_list<const char*> allowed) const;
  void allow_keys(const std::vector<std::string>& allowed) const;

  /// Integer in [min, max]; rejects non-integers, fractions and out-of-range values.
  std::int64_t as_int(std::int64_t min, std::int64_t max) const;
  /// Number in [min, max].
  double as_double(double min, double max) const;
  bool as_bool() const;
  std::string as_string() const;
  /// A string that must be one of `allowed`.
  std::string as_enum(const std::vector<std::string>& allowed) const;
  /// Array with at least `min_size` elements.
  std::vector<JsonView> as_array(std::size_t min_size = 1) const;
  /// Array of integers, each in [min, max], at least `min_size` long.
  std::vector<std::int64_t> as_int_list(std::int64_t min, std::int64_t max,
                                        std::size_t min_size = 1) const;

  /// Optional members with a default when absent (validated when present).
  std::int64_t get_int(const std::string& key, std::int64_t fallback, std::int64_t min,
                       std::int64_t max) const;
  double get_double(const std::string& key, double fallback, double min, double max) const;
  bool get_bool(const std::string& key, bool fallback) const;
  std::string get_enum(const std::string& key, const std::string& fallback,
                       const std::vector<std::string>& allowed) const;

  /// Throws ConfigError at this node.
  [[noreturn]] void fail(const std::string& expected, const std::string& found) const;
  /// Throws ConfigError at this node with `found` = describe_json(this node).
  [[noreturn]] void fail(const std::string& expected) const;

 private:
  const Json* node_;
  /// One step of a view's JSON pointer: the key or index below its parent's node. The
  /// root holds the file name and the pointer prefix the view was made with.
  struct Path {
    std::shared_ptr<const Path> parent;  ///< null at the root
    std::string token;                   ///< unescaped key or decimal index; root: the prefix as given
    std::string file_name;               ///< root only
    const std::string* file = nullptr;   ///< the root's file_name (kept alive by the chain)
  };
  /// Throws ConfigError unless this node is an array of at least `min_size` elements.
  void check_array(std::size_t min_size) const;
  JsonView(const Json& node, std::shared_ptr<const Path> path) : node_(&node), path_(std::move(path)) {}
  /// The view of `child`, a member or element of this node reached by `token`.
  JsonView child(const Json& child, std::string token) const;
  std::shared_ptr<const Path> path_;
};

}  // namespace ttsim
