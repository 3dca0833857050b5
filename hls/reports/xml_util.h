#pragma once
// Helpers shared by the XML report readers (csynth.xml, export_impl.xml): loading a
// document and reading elements so that every error is an InputError naming the file
// and the element path ("/profile/UserAssignments/Part"), what was expected and found.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

/// The values a reader read as unknown, in document order; null lists nothing.
using UnknownList = std::vector<UnknownValue>;

/// Appends to `unknowns` (when not null) the value `printed` of `node` (or of its attribute
/// `attribute`, when not null) read as unknown: its module (the Name of the enclosing
/// ModuleInformation/Module, else empty for the report's top) and its path below that
/// module (or below the root); a BindNode is named by its RTLNAME.
void note_unknown(UnknownList* unknowns, pugi::xml_node node, const char* attribute, const std::string& printed);

/// Reads a count element: integer, "undef", "?", "a ~ b" or <range><min/><max/></range>;
/// an end of the unbounded sentinel family is unknown (values.h). A count not wholly
/// known is listed in `unknowns`. Throws InputError naming file and element path on
/// anything else, and on a range with min > max.
Count count(pugi::xml_node node, const std::string& file, UnknownList* unknowns = nullptr);

/// Count of the child `name`, or std::nullopt when the child is absent.
std::optional<Count> optional_count(pugi::xml_node parent, const char* name, const std::string& file,
                                    UnknownList* unknowns = nullptr);

/// Decimal number in element `node` (e.g. a clock period in ns); empty gives
/// std::nullopt; "undef", "?", a range "a ~ b" and the unbounded sentinel family give
/// std::nullopt and are listed in `unknowns`; other text, or a negative number, throws InputError naming the
/// file and the element path.
std::optional<double> number(pugi::xml_node node, const std::string& file, UnknownList* unknowns = nullptr);

/// A clock period in ns (TargetClockPeriod): number(), and a period of 0 also throws
/// InputError naming the file and the element path.
std::optional<double> clock_period(pugi::xml_node node, const std::string& file, UnknownList* unknowns = nullptr);

/// Non-negative integer in element `node`; empty gives std::nullopt; "undef", "?", a range
/// "a ~ b" and the unbounded sentinel family give std::nullopt and are listed in
/// `unknowns`; other text throws InputError naming the file and the element path.
std::optional<std::int64_t> integer(pugi::xml_node node, const std::string& file, UnknownList* unknowns = nullptr);

/// Non-negative integer attribute `name` of `node`, read as integer() reads an element;
/// absent or empty gives std::nullopt; other text throws InputError naming the attribute.
std::optional<std::int64_t> int_attribute(pugi::xml_node node, const char* name, const std::string& file,
                                          UnknownList* unknowns = nullptr);

/// Reads a whole file into a string; throws InputError naming `file` when it cannot be read.
std::string read_file(const std::string& file);

}  // namespace ttsim::hls::xml
