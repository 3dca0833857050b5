#include "hls/reports/values.h"

#include <cerrno>
#include <cstdlib>

namespace ttsim::hls {

std::string trim(const std::string& s) {
  const char* ws = " \t\r\n\f\v";
  auto b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

namespace {

bool all_digits(const std::string& t) {
  if (t.empty()) return false;
  for (char c : t)
    if (c < '0' || c > '9') return false;
  return true;
}

/// A non-negative integer end of a count: its value, or an empty inner optional when it is
/// unknown ("undef", "?", the unbounded sentinel family — any number of 19 digits or more
/// is at least 10^18 > kUnboundedFrom); std::nullopt when the text is not such an end.
std::optional<std::optional<std::int64_t>> parse_end(const std::string& raw) {
  const std::string t = trim(raw);
  if (t == "undef" || t == "?") return std::optional<std::int64_t>{};
  if (!all_digits(t) || t.size() > 64) return std::nullopt;
  if (t.size() > 18) return std::optional<std::int64_t>{};
  const std::int64_t v = std::strtoll(t.c_str(), nullptr, 10);
  if (v >= kUnboundedFrom) return std::optional<std::int64_t>{};
  return std::optional<std::int64_t>{v};
}

/// One end of a time span in ns: a value, an empty inner optional when unknown ("undef",
/// "?", at or above kUnboundedFrom ns), std::nullopt when not a time.
std::optional<std::optional<double>> parse_time_one(const std::string& raw) {
  std::string t = trim(raw);
  if (t == "undef" || t == "?") return std::optional<double>{};
  auto sp = t.find(' ');
  std::string num = sp == std::string::npos ? t : t.substr(0, sp);
  std::string unit = sp == std::string::npos ? "ns" : trim(t.substr(sp + 1));
  auto v = parse_double_text(num);
  if (!v || *v < 0) return std::nullopt;
  double ns = 0;
  if (unit == "ns") ns = *v;
  else if (unit == "us") ns = *v * 1e3;
  else if (unit == "ms") ns = *v * 1e6;
  else if (unit == "sec" || unit == "s") ns = *v * 1e9;
  else return std::nullopt;
  if (ns >= static_cast<double>(kUnboundedFrom)) return std::optional<double>{};
  return std::optional<double>{ns};
}

}  // namespace

std::string Count::str() const {
  if (!min && !max) return "undef";
  auto end = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("?"); };
  if (min && max && *min == *max) return std::to_string(*min);
  return end(min) + " ~ " + end(max);
}

std::optional<Count> parse_count_text(const std::string& text) {
  const std::string t = trim(text);
  auto tilde = t.find('~');
  if (tilde == std::string::npos) {
    const auto v = parse_end(t);
    if (!v) return std::nullopt;
    return *v ? Count::exact(**v) : Count::unknown();
  }
  const auto lo = parse_end(t.substr(0, tilde));
  const auto hi = parse_end(t.substr(tilde + 1));
  if (!lo || !hi) return std::nullopt;
  if (*lo && *hi && **lo > **hi) return std::nullopt;
  return Count{*lo, *hi};
}

bool is_unknown_text(const std::string& text) {
  const std::string t = trim(text);
  if (t == "undef" || t == "?") return true;
  if (const auto e = parse_end(t)) return !e->has_value();
  const auto d = parse_double_text(t);
  return d && *d >= static_cast<double>(kUnboundedFrom);
}

std::string unknown_kind(const std::string& text) {
  const std::string t = trim(text);
  if (t == "undef" || t == "?") return t;
  const auto tilde = t.find('~');
  if (tilde != std::string::npos) {
    for (const std::string& end : {t.substr(0, tilde), t.substr(tilde + 1)}) {
      const std::string e = trim(end);
      if (e != "undef" && e != "?" && is_unknown_text(e)) return "unbounded";
    }
    return "range";
  }
  if (is_unknown_text(t)) return "unbounded";
  return "unknown";
}

std::optional<TimeSpan> parse_time_text(const std::string& text) {
  TimeSpan s;
  s.text = trim(text);
  auto tilde = s.text.find('~');
  if (tilde != std::string::npos) {
    auto lo = parse_time_one(s.text.substr(0, tilde));
    auto hi = parse_time_one(s.text.substr(tilde + 1));
    if (!lo || !hi) return std::nullopt;
    s.min_ns = *lo;
    s.max_ns = *hi;
    return s;
  }
  auto v = parse_time_one(s.text);
  if (!v) return std::nullopt;
  s.min_ns = s.max_ns = *v;
  return s;
}

std::optional<double> parse_double_text(const std::string& text) {
  std::string t = trim(text);
  if (t.empty()) return std::nullopt;
  for (char c : t)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
      return std::nullopt;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (errno != 0 || end != t.c_str() + t.size()) return std::nullopt;
  return v;
}

}  // namespace ttsim::hls
