#pragma once
// Strict JSON text parsing for configs: nlohmann::json's parser keeps the last of two
// equal keys in one object; configs are read through this parser, which rejects them.

#include <string>

#include <nlohmann/json.hpp>

namespace ttsim {

/// Parses `text` (the contents of the file `file`, named in errors) as JSON.
/// Throws ConfigError (exit 2) naming `file`:
///  - at the JSON pointer of the second occurrence of a key repeated in one object
///    ("expected unique keys in each object, found key "k" a second time");
///  - at "/" for a syntax error, with the line and column;
///  - at "/" for a number that does not fit a 64-bit float (e.g. 1e400).
nlohmann::json parse_json_text(const std::string& text, const std::string& file);

}  // namespace ttsim
