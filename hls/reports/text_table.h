#pragma once
// Line and '|'-table helpers for Vivado / Vitis text reports (.rpt).

#include <optional>
#include <string>
#include <vector>

namespace ttsim::hls::rpt {

/// Splits `text` into lines (without '\n', trailing '\r' removed).
std::vector<std::string> lines(const std::string& text);

/// Cells of a table row "| a | b |" (trimmed, outer bars dropped); std::nullopt when the
/// line is not a row (does not start with '|' after optional spaces).
std::optional<std::vector<std::string>> row_cells(const std::string& line);

/// The value of a header line "| Key : value" or "Key : value" whose key (trimmed) is
/// `key`; std::nullopt when no line has it.
std::optional<std::string> header_value(const std::vector<std::string>& lines, const std::string& key);

}  // namespace ttsim::hls::rpt
