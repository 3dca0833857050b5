#pragma once
// Strict JSON text parsing for configs: nlohmann::json's parser keeps the last of two
// equal keys in one object; configs are read through this parser, which rejects them.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace ttsim {

/// Arrays and objects nest at most this many levels in a parsed document (configs need
/// fewer than ten; the limit keeps a hostile file from costing memory per level).
constexpr std::size_t kMaxJsonDepth = 256;

/// Parses `text` (the contents of the file `file`, named in errors) as JSON.
/// Throws ConfigError (exit 2) naming `file`:
///  - at the JSON pointer of the second occurrence of a key repeated in one object
///    ("expected unique keys in each object, found key "k" a second time");
///  - at "/" for a syntax error, with the line and column;
///  - at "/" for a number that does not fit a 64-bit float (e.g. 1e400);
///  - at "/" for arrays or objects nested deeper than kMaxJsonDepth, with the line and
///    column of the first one too deep.
nlohmann::json parse_json_text(const std::string& text, const std::string& file);

}  // namespace ttsim
