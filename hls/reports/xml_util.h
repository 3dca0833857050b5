#pragma once
// Helpers shared by the XML report readers (csynth.xml, export_impl.xml): loading a
// document and reading elements so that every error is an InputError naming the file
// and the element path ("/profile/UserAssignments/Part"), what was expected and found.

#include <cstdint>
#include <optional>
#include <string>

#include <pugixml.hpp>

#include "hls/reports/values.h"

namespace ttsim::hls::xml {

/// Parses `text` (the content of `file`) into `doc`.
/// Throws InputError "<file>: not well-formed XML at byte <n>: <reason>" on a parse
/// error (this includes truncated files) and "<file>: empty document" when there is no
/// root element.
void load(pugi::xml_document& doc, const std::string& text, const std::string& file);

/// The root element; throws InputError "<file>: root element: expected <expected>,
/// found <name>" when it is another element.
pugi::xml_node root(const pugi::xml_document& doc, const char* expected, const std::string& file);

/// The slash-separated path of `node` from the document root, e.g. "/profile/AreaEstimates".
std::string path(pugi::xml_node node);

/// First child element `name`; throws InputError "<file>: <path>/<name>: missing" when absent.
pugi::xml_node require(pugi::xml_node parent, const char* name, const std::string& file);

/// Trimmed text content of `node` (the concatenation of its direct text children).
std::string text(pugi::xml_node node);

/// Trimmed text of the required child `name`.
std::string require_text(pugi::xml_node parent, const char* name, const std::string& file);

/// Reads a count element: integer, "undef", "a ~ b" or <range><min/><max/></range>.
/// Throws InputError naming file and element path on anything else.
Count count(pugi::xml_node node, const std::string& file);

/// Count of the child `name`, or std::nullopt when the child is absent.
std::optional<Count> optional_count(pugi::xml_node parent, const char* name, const std::string& file);

/// Decimal number in element `node` (e.g. a clock period in ns); "undef"/empty gives
/// std::nullopt; other text, or a negative number, throws InputError naming the file
/// and the element path.
std::optional<double> number(pugi::xml_node node, const std::string& file);

/// A clock period in ns (TargetClockPeriod): number(), and a period of 0 also throws
/// InputError naming the file and the element path.
std::optional<double> clock_period(pugi::xml_node node, const std::string& file);

/// Non-negative integer in element `node`; "undef"/empty gives std::nullopt; other text
/// throws InputError.
std::optional<std::int64_t> integer(pugi::xml_node node, const std::string& file);

/// Non-negative integer attribute `name` of `node`; absent, empty or "undef" gives
/// std::nullopt; other text throws InputError naming the attribute.
std::optional<std::int64_t> int_attribute(pugi::xml_node node, const char* name,
                                          const std::string& file);

/// Reads a whole file into a string; throws InputError naming `file` when it cannot be read.
std::string read_file(const std::string& file);

}  // namespace ttsim::hls::xml
