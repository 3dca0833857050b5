#pragma once
// Values as synthesis reports print them. Vitis/Vivado HLS writes a cycle count as a
// plain integer, as the literal "undef" (unknown: data-dependent or unbounded loops),
// as a range "<range><min>a</min><max>b</max></range>" or as the string "a ~ b".
// Unknown stays unknown here: it is never turned into 0.

#include <cstdint>
#include <optional>
#include <string>

namespace ttsim::hls {

/// A count reported by HLS (cycles, trip count, II or depth): exact (min == max),
/// a range [min, max], or unknown (both empty). Units are those of the field
/// (clock cycles for latencies and intervals, iterations for trip counts).
struct Count {
  std::optional<std::int64_t> min;  ///< lower bound; empty when unknown
  std::optional<std::int64_t> max;  ///< upper bound; empty when unknown

  static Count exact(std::int64_t v) { return Count{v, v}; }
  static Count range(std::int64_t lo, std::int64_t hi) { return Count{lo, hi}; }
  static Count unknown() { return Count{}; }

  bool known() const { return min.has_value() && max.has_value(); }
  bool is_exact() const { return known() && *min == *max; }
  /// "123", "2 ~ 65" or "undef", as HLS writes it.
  std::string str() const;
  bool operator==(const Count& o) const { return min == o.min && max == o.max; }
};

/// Parses the text of a count: "123", "undef", "a ~ b" (whitespace-tolerant).
/// Returns std::nullopt when the text is none of these (the caller reports the error
/// with its file and element).
std::optional<Count> parse_count_text(const std::string& text);

/// A duration printed with a unit, e.g. "68.552 us", "0.408 sec", "20.000 ns"; or a
/// range of two such ("0 ns ~ 0.630 us"); or "undef". Converted to nanoseconds.
struct TimeSpan {
  std::string text;                  ///< as printed in the report
  std::optional<double> min_ns;      ///< empty when unknown
  std::optional<double> max_ns;      ///< empty when unknown
};

/// Parses "<number> <unit>" (unit ns, us, ms, sec or s), "<t> ~ <t>", a bare number
/// (taken as ns, as AbsoluteTimeLatency prints at the top level from 2020.2) or "undef".
/// Returns std::nullopt for anything else.
std::optional<TimeSpan> parse_time_text(const std::string& text);

/// Parses a decimal number (e.g. a clock period "3.33"); std::nullopt on anything else.
std::optional<double> parse_double_text(const std::string& text);

/// Trims ASCII whitespace at both ends.
std::string trim(const std::string& s);

}  // namespace ttsim::hls
