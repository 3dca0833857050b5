#include "hls/reports/xml_util.h"

#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace ttsim::hls::xml {

namespace {

std::string quote(const std::string& s) {
  std::string t = s.size() > 60 ? s.substr(0, 60) + "..." : s;
  return "\"" + t + "\"";
}

[[noreturn]] void fail(const std::string& file, pugi::xml_node node, const std::string& what) {
  throw InputError(file + ": " + path(node) + ": " + what);
}

}  // namespace

void load(pugi::xml_document& doc, const std::string& text, const std::string& file) {
  pugi::xml_parse_result r = doc.load_buffer(text.data(), text.size(), pugi::parse_default,
                                             pugi::encoding_utf8);
  if (!r) {
    throw InputError(file + ": not well-formed XML at byte " + std::to_string(r.offset) + ": " +
                     r.description());
  }
  if (!doc.document_element()) throw InputError(file + ": empty document (no root element)");
}

pugi::xml_node root(const pugi::xml_document& doc, const char* expected, const std::string& file) {
  pugi::xml_node r = doc.document_element();
  if (std::string(r.name()) != expected) {
    throw InputError(file + ": root element: expected <" + expected + ">, found <" + r.name() +
                     ">");
  }
  return r;
}

std::string path(pugi::xml_node node) {
  std::string p;
  for (pugi::xml_node n = node; n && n.type() == pugi::node_element; n = n.parent()) {
    p = "/" + std::string(n.name()) + p;
  }
  return p.empty() ? "/" : p;
}

pugi::xml_node require(pugi::xml_node parent, const char* name, const std::string& file) {
  pugi::xml_node c = parent.child(name);
  if (!c) throw InputError(file + ": " + path(parent) + "/" + name + ": missing");
  return c;
}

std::string text(pugi::xml_node node) {
  std::string s;
  for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) s += c.value();
  }
  return trim(s);
}

std::string require_text(pugi::xml_node parent, const char* name, const std::string& file) {
  return text(require(parent, name, file));
}

Count count(pugi::xml_node node, const std::string& file) {
  if (pugi::xml_node r = node.child("range")) {
    auto lo = integer(require(r, "min", file), file);
    auto hi = integer(require(r, "max", file), file);
    if (!lo || !hi) return Count::unknown();
    if (*lo > *hi) fail(file, r, "expected min <= max, found " + std::to_string(*lo) + " > " +
                                     std::to_string(*hi));
    return Count::range(*lo, *hi);
  }
  std::string t = text(node);
  auto c = parse_count_text(t);
  if (!c) fail(file, node, "expected an integer, \"undef\", \"a ~ b\" or <range>, found " + quote(t));
  return *c;
}

std::optional<Count> optional_count(pugi::xml_node parent, const char* name,
                                    const std::string& file) {
  pugi::xml_node c = parent.child(name);
  if (!c) return std::nullopt;
  return count(c, file);
}

std::optional<double> number(pugi::xml_node node, const std::string& file) {
  std::string t = text(node);
  if (t.empty() || t == "undef") return std::nullopt;
  auto v = parse_double_text(t);
  if (!v) fail(file, node, "expected a number, found " + quote(t));
  if (*v < 0) fail(file, node, "expected a non-negative number (a period or time), found " + quote(t));
  return v;
}

std::optional<double> clock_period(pugi::xml_node node, const std::string& file) {
  const auto v = number(node, file);
  if (v && *v <= 0) fail(file, node, "expected a clock period above 0 ns, found " + quote(text(node)));
  return v;
}

std::optional<std::int64_t> integer(pugi::xml_node node, const std::string& file) {
  std::string t = text(node);
  if (t.empty() || t == "undef") return std::nullopt;
  auto c = parse_count_text(t);
  if (!c || !c->is_exact()) fail(file, node, "expected an integer, found " + quote(t));
  return c->min;
}

std::optional<std::int64_t> int_attribute(pugi::xml_node node, const char* name,
                                          const std::string& file) {
  pugi::xml_attribute a = node.attribute(name);
  if (!a) return std::nullopt;
  std::string t = trim(a.value());
  if (t.empty() || t == "undef") return std::nullopt;
  auto c = parse_count_text(t);
  if (!c || !c->is_exact()) {
    fail(file, node, std::string("attribute ") + name + ": expected an integer, found " + quote(t));
  }
  return c->min;
}

std::string read_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file + ": cannot open for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(file + ": read error");
  return ss.str();
}

}  // namespace ttsim::hls::xml
