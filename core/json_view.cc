#include "core/json_view.h"

#include "core/json_parse.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace ttsim {

namespace {

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  return out;
}

}  // namespace

Json load_json_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw InputError(path + ": cannot open file for reading (no such file)");
  }
  if (std::filesystem::is_directory(status)) {
    throw InputError(path + ": expected a JSON file, found a directory");
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw InputError(path + ": expected a regular JSON file, found a device, pipe or socket");
  }
  constexpr std::uintmax_t kMaxBytes = 256u << 20;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxBytes) {
    throw InputError(path + ": expected a JSON config of at most 256 MiB, found " +
                     std::to_string(size) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file for reading (" + std::strerror(errno) + ")");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  return parse_json_text(text, path);
}

std::string describe_json(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return std::string("boolean ") + (v.get<bool>() ? "true" : "false");
    case Json::value_t::string:
      return "string \"" + v.get<std::string>() + "\"";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "number " + v.dump();
    case Json::value_t::array:
      return "array of " + std::to_string(v.size());
    case Json::value_t::object:
      return "object";
    default:
      return "a value of unsupported type";
  }
}

JsonView::JsonView(const Json& node, std::string file, std::string pointer) : node_(&node) {
  auto root = std::make_shared<Path>();
  root->token = std::move(pointer);
  root->file_name = std::move(file);
  root->file = &root->file_name;
  path_ = std::move(root);
}

JsonView JsonView::child(const Json& child, std::string token) const {
  auto p = std::make_shared<Path>();
  p->parent = path_;
  p->token = std::move(token);
  p->file = path_->file;
  return JsonView(child, std::move(p));
}

std::string JsonView::pointer() const {
  std::vector<const Path*> steps;
  for (const Path* p = path_.get(); p; p = p->parent.get()) steps.push_back(p);
  std::string out = steps.back()->token;  // the root's prefix, as given
  for (std::size_t i = steps.size() - 1; i-- > 0;) out += "/" + escape_pointer_token(steps[i]->token);
  return out;
}

void JsonView::fail(const std::string& expected, const std::string& found) const {
  throw ConfigError(file(), pointer(), expected, found);
}

void JsonView::fail(const std::string& expected) const { fail(expected, describe_json(*node_)); }

bool JsonView::has(const std::string& key) const {
  return node_->is_object() && node_->contains(key);
}

JsonView JsonView::at(const std::string& key) const {
  if (!node_->is_object()) fail("an object");
  auto it = node_->find(key);
  if (it == node_->end()) fail("required key \"" + key + "\"", "no such key");
  return child(*it, key);
}

std::optional<JsonView> JsonView::find(const std::string& key) const {
  if (!node_->is_object()) fail("an object");
  auto it = node_->find(key);
  if (it == node_->end()) return std::nullopt;
  return child(*it, key);
}

JsonView JsonView::at(std::size_t index) const {
  if (!node_->is_array()) fail("an array");
  if (index >= node_->size()) {
    fail("an element at index " + std::to_string(index),
         "array of " + std::to_string(node_->size()));
  }
  return child((*node_)[index], std::to_string(index));
}

void JsonView::allow_keys(std::initializer_list<const char*> allowed) const {
  if (!node_->is_object()) fail("an object");
  for (auto it = node_->begin(); it != node_->end(); ++it) {
    bool ok = false;
    for (const char* k : allowed) ok = ok || it.key() == k;
    if (!ok) allow_keys(std::vector<std::string>(allowed.begin(), allowed.end()));  // throws naming the key
  }
}

void JsonView::allow_keys(const std::vector<std::string>& allowed) const {
  if (!node_->is_object()) fail("an object");
  for (auto it = node_->begin(); it != node_->end(); ++it) {
    bool ok = false;
    for (const auto& k : allowed) ok = ok || (k == it.key());
    if (!ok) {
      throw ConfigError(file(), pointer() + "/" + escape_pointer_token(it.key()),
                        "one of the known keys {" + join(allowed) + "}",
                        "unknown key \"" + it.key() + "\"");
    }
  }
}

std::int64_t JsonView::as_int(std::int64_t min, std::int64_t max) const {
  const auto out_of_range = [&] {
    fail("an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  };
  if (!node_->is_number()) out_of_range();
  if (node_->is_number_float()) {
    double d = node_->get<double>();
    if (std::floor(d) != d || std::fabs(d) > 9.0e15) out_of_range();
    auto v = static_cast<std::int64_t>(d);
    if (v < min || v > max) out_of_range();
    return v;
  }
  if (node_->is_number_unsigned()) {
    auto u = node_->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        static_cast<std::int64_t>(u) > max || static_cast<std::int64_t>(u) < min) {
      out_of_range();
    }
    return static_cast<std::int64_t>(u);
  }
  auto v = node_->get<std::int64_t>();
  if (v < min || v > max) out_of_range();
  return v;
}

double JsonView::as_double(double min, double max) const {
  const auto out_of_range = [&] {
    std::ostringstream range;
    range << "a number in [" << min << ", " << max << "]";
    fail(range.str());
  };
  if (!node_->is_number()) out_of_range();
  double v = node_->get<double>();
  if (!(v >= min && v <= max)) out_of_range();
  return v;
}

bool JsonView::as_bool() const {
  if (!node_->is_boolean()) fail("true or false");
  return node_->get<bool>();
}

std::string JsonView::as_string() const {
  if (!node_->is_string()) fail("a string");
  return node_->get<std::string>();
}

std::string JsonView::as_enum(const std::vector<std::string>& allowed) const {
  if (node_->is_string()) {
    const std::string& s = node_->get_ref<const std::string&>();
    for (const auto& a : allowed) {
      if (a == s) return s;
    }
  }
  std::vector<std::string> quoted;
  for (const auto& a : allowed) quoted.push_back("\"" + a + "\"");
  fail("one of " + join(quoted));
}

std::vector<JsonView> JsonView::as_array(std::size_t min_size) const {
  check_array(min_size);
  std::vector<JsonView> out;
  out.reserve(node_->size());
  for (std::size_t i = 0; i < node_->size(); ++i) out.push_back(at(i));
  return out;
}

void JsonView::check_array(std::size_t min_size) const {
  if (node_->is_array() && node_->size() >= min_size) return;
  const std::string expected =
      min_size == 0 ? "an array" : "an array of at least " + std::to_string(min_size);
  if (!node_->is_array()) fail(expected);
  fail(expected, node_->empty() ? "an empty array" : describe_json(*node_));
}

std::vector<std::int64_t> JsonView::as_int_list(std::int64_t min, std::int64_t max,
                                                std::size_t min_size) const {
  check_array(min_size);
  std::vector<std::int64_t> out;
  out.reserve(node_->size());
  for (std::size_t i = 0; i < node_->size(); ++i) {
    const Json& e = (*node_)[i];
    // The element's own view (its pointer) only when it is refused.
    if (e.is_number_unsigned()) {
      const auto u = e.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) &&
          static_cast<std::int64_t>(u) >= min && static_cast<std::int64_t>(u) <= max) {
        out.push_back(static_cast<std::int64_t>(u));
        continue;
      }
    } else if (e.is_number_integer()) {
      const auto v = e.get<std::int64_t>();
      if (v >= min && v <= max) {
        out.push_back(v);
        continue;
      }
    }
    out.push_back(at(i).as_int(min, max));
  }
  return out;
}

std::int64_t JsonView::get_int(const std::string& key, std::int64_t fallback, std::int64_t min,
                               std::int64_t max) const {
  auto v = find(key);
  return v ? v->as_int(min, max) : fallback;
}

double JsonView::get_double(const std::string& key, double fallback, double min,
                            double max) const {
  auto v = find(key);
  return v ? v->as_double(min, max) : fallback;
}

bool JsonView::get_bool(const std::string& key, bool fallback) const {
  auto v = find(key);
  return v ? v->as_bool() : fallback;
}

std::string JsonView::get_enum(const std::string& key, const std::string& fallback,
                               const std::vector<std::string>& allowed) const {
  auto v = find(key);
  return v ? v->as_enum(allowed) : fallback;
}

}  // namespace ttsim
