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

std::optional<std::int64_t> parse_int(const std::string& raw) {
  std::string t = trim(raw);
  if (t.empty() || t.size() > 18) return std::nullopt;
  for (char c : t)
    if (c < '0' || c > '9') return std::nullopt;
  return std::strtoll(t.c_str(), nullptr, 10);
}

std::optional<double> parse_time_one(const std::string& raw) {
  std::string t = trim(raw);
  auto sp = t.find(' ');
  std::string num = sp == std::string::npos ? t : t.substr(0, sp);
  std::string unit = sp == std::string::npos ? "ns" : trim(t.substr(sp + 1));
  auto v = parse_double_text(num);
  if (!v) return std::nullopt;
  if (unit == "ns") return *v;
  if (unit == "us") return *v * 1e3;
  if (unit == "ms") return *v * 1e6;
  if (unit == "sec" || unit == "s") return *v * 1e9;
  return std::nullopt;
}

}  // namespace

std::string Count::str() const {
  if (!known()) return "undef";
  if (*min == *max) return std::to_string(*min);
  return std::to_string(*min) + " ~ " + std::to_string(*max);
}

std::optional<Count> parse_count_text(const std::string& text) {
  std::string t = trim(text);
  if (t == "undef") return Count::unknown();
  auto tilde = t.find('~');
  if (tilde != std::string::npos) {
    auto lo = parse_int(t.substr(0, tilde));
    auto hi = parse_int(t.substr(tilde + 1));
    if (!lo || !hi || *lo > *hi) return std::nullopt;
    return Count::range(*lo, *hi);
  }
  auto v = parse_int(t);
  if (!v) return std::nullopt;
  return Count::exact(*v);
}

std::optional<TimeSpan> parse_time_text(const std::string& text) {
  TimeSpan s;
  s.text = trim(text);
  if (s.text == "undef") return s;
  auto tilde = s.text.find('~');
  if (tilde != std::string::npos) {
    auto lo = parse_time_one(s.text.substr(0, tilde));
    auto hi = parse_time_one(s.text.substr(tilde + 1));
    if (!lo || !hi) return std::nullopt;
    s.min_ns = lo;
    s.max_ns = hi;
    return s;
  }
  auto v = parse_time_one(s.text);
  if (!v) return std::nullopt;
  s.min_ns = s.max_ns = v;
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
