#pragma once
// Text helpers for the HTML report: escaping and base64 (for images embedded as data URIs).

#include <string>

namespace ttsim::dse {

/// `s` with &, <, >, " and ' replaced by entities, safe in element text and quoted attributes.
std::string html_escape(const std::string& s);

/// Standard base64 (RFC 4648, with padding) of the bytes of `bytes`.
std::string base64(const std::string& bytes);

}  // namespace ttsim::dse
