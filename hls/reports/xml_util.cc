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

namespace {

/// The <Module> element of ModuleInformation that holds `node`, or an empty node.
pugi::xml_node enclosing_module(pugi::xml_node node) {
  for (pugi::xml_node n = node; n && n.type() == pugi::node_element; n = n.parent()) {
    if (std::string(n.name()) == "Module" && std::string(n.parent().name()) == "ModuleInformation") return n;
  }
  return {};
}

/// Path of `node` below `base` ("A/B/C"), a BindNode named by its RTLNAME.
std::string path_below(pugi::xml_node node, pugi::xml_node base) {
  std::string p;
  for (pugi::xml_node n = node; n && n != base && n.type() == pugi::node_element; n = n.parent()) {
    std::string step = n.name();
    if (step == "BindNode") step += std::string("[") + n.attribute("RTLNAME").value() + "]";
    p = step + (p.empty() ? "" : "/" + p);
  }
  return p;
}

}  // namespace

void note_unknown(UnknownList* unknowns, pugi::xml_node node, const char* attribute, const std::string& printed) {
  if (!unknowns) return;
  const pugi::xml_node module = enclosing_module(node);
  const pugi::xml_node base = module ? module : node.root().first_child();
  UnknownValue u;
  u.module = module ? text(module.child("Name")) : "";
  u.field = path_below(node, base);
  if (attribute) u.field += std::string("/@") + attribute;
  u.text = printed;
  unknowns->push_back(std::move(u));
}

Count count(pugi::xml_node node, const std::string& file, UnknownList* unknowns) {
  if (pugi::xml_node r = node.child("range")) {
    const std::string lo_text = text(require(r, "min", file)), hi_text = text(require(r, "max", file));
    const auto lo = parse_count_text(lo_text), hi = parse_count_text(hi_text);
    if (!lo) fail(file, r.child("min"), "expected an integer, found " + quote(lo_text));
    if (!hi) fail(file, r.child("max"), "expected an integer, found " + quote(hi_text));
    // An end that is not one number (unknown, or itself a range) is unknown.
    const Count c{lo->is_exact() ? lo->min : std::nullopt, hi->is_exact() ? hi->max : std::nullopt};
    if (c.known() && *c.min > *c.max) {
      fail(file, r, "expected min <= max, found " + std::to_string(*c.min) + " > " + std::to_string(*c.max));
    }
    if (!c.known()) note_unknown(unknowns, node, nullptr, lo_text + " ~ " + hi_text);
    return c;
  }
  std::string t = text(node);
  auto c = parse_count_text(t);
  if (!c) {
    fail(file, node, "expected an integer, \"undef\", \"?\", \"a ~ b\" (a <= b) or <range>, found " + quote(t));
  }
  if (!c->known()) note_unknown(unknowns, node, nullptr, t);
  return *c;
}

std::optional<Count> optional_count(pugi::xml_node parent, const char* name, const std::string& file,
                                    UnknownList* unknowns) {
  pugi::xml_node c = parent.child(name);
  if (!c) return std::nullopt;
  return count(c, file, unknowns);
}

namespace {

/// True when `t` is a range "a ~ b" of two numbers or unknown forms: where one number is
/// expected, an unknown.
bool is_number_range(const std::string& t) {
  const auto tilde = t.find('~');
  if (tilde == std::string::npos) return false;
  for (const std::string& end : {t.substr(0, tilde), t.substr(tilde + 1)}) {
    if (!is_unknown_text(end) && !parse_double_text(end)) return false;
  }
  return true;
}

}  // namespace

std::optional<double> number(pugi::xml_node node, const std::string& file, UnknownList* unknowns) {
  std::string t = text(node);
  if (t.empty()) return std::nullopt;
  if (is_unknown_text(t) || is_number_range(t)) {
    note_unknown(unknowns, node, nullptr, t);
    return std::nullopt;
  }
  auto v = parse_double_text(t);
  if (!v) fail(file, node, "expected a number, found " + quote(t));
  if (*v < 0) fail(file, node, "expected a non-negative number (a period or time), found " + quote(t));
  return v;
}

std::optional<double> clock_period(pugi::xml_node node, const std::string& file, UnknownList* unknowns) {
  const auto v = number(node, file, unknowns);
  if (v && *v <= 0) fail(file, node, "expected a clock period above 0 ns, found " + quote(text(node)));
  return v;
}

namespace {

/// The integer in `t` (an element's text or an attribute's value): empty → nullopt;
/// unknown (undef, ?, a range, the sentinel family) → nullopt noted; else the value, or
/// the error text (`bad` set) when it is none of these.
std::optional<std::int64_t> integer_text(const std::string& t, pugi::xml_node node, const char* attribute,
                                         UnknownList* unknowns, bool& bad) {
  bad = false;
  if (t.empty()) return std::nullopt;
  auto c = parse_count_text(t);
  if (!c) {
    bad = true;
    return std::nullopt;
  }
  if (!c->is_exact()) {
    note_unknown(unknowns, node, attribute, t);
    return std::nullopt;
  }
  return c->min;
}

}  // namespace

std::optional<std::int64_t> integer(pugi::xml_node node, const std::string& file, UnknownList* unknowns) {
  const std::string t = text(node);
  bool bad = false;
  const auto v = integer_text(t, node, nullptr, unknowns, bad);
  if (bad) fail(file, node, "expected an integer, found " + quote(t));
  return v;
}

std::optional<std::int64_t> int_attribute(pugi::xml_node node, const char* name, const std::string& file,
                                          UnknownList* unknowns) {
  pugi::xml_attribute a = node.attribute(name);
  if (!a) return std::nullopt;
  const std::string t = trim(a.value());
  bool bad = false;
  const auto v = integer_text(t, node, name, unknowns, bad);
  if (bad) fail(file, node, std::string("attribute ") + name + ": expected an integer, found " + quote(t));
  return v;
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
