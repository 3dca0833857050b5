#pragma once
// Values as synthesis reports print them. Vitis/Vivado HLS writes a cycle count as a
// plain integer, as the literal "undef" (unknown: data-dependent or unbounded loops),
// as "?" (the text reports' unknown), as a range "<range><min>a</min><max>b</max></range>"
// or as the string "a ~ b". Vitis HLS 2024.x writes a value it cannot bound as the
// sentinel 2^60 = 1152921504606846976 (an unbounded Worst-caseLatency; an interval
// "1 ~ 1152921504606846977"; a TripCount max of 2^60), and what is derived from it
// (sums, times) is larger still: every number at or above kUnboundedFrom is read as that
// sentinel. Unknown stays unknown here: it is never turned into 0 nor into a bound.

#include <cstdint>
#include <optional>
#include <string>

namespace ttsim::hls {

/// The smallest number read as the "unbounded" sentinel family of Vitis HLS 2024.x:
/// 2^59 (2^59 cycles at 1 GHz are 18 years, beyond any real design; 2^60 cycles at any
/// clock up to 2 GHz are at least 2^59 ns). Applies to counts (cycles, iterations),
/// resource integers, clock periods and times in ns.
constexpr std::int64_t kUnboundedFrom = std::int64_t{1} << 59;

/// A count reported by HLS (cycles, trip count, II or depth): exact (min == max),
/// a range [min, max], or unknown (both empty). A range one of whose ends is unknown
/// ("1 ~ 1152921504606846977": no upper bound) keeps the known end and leaves the other
/// empty. Units are those of the field (clock cycles for latencies and intervals,
/// iterations for trip counts).
struct Count {
  std::optional<std::int64_t> min;  ///< lower bound; empty when unknown
  std::optional<std::int64_t> max;  ///< upper bound; empty when unknown (or unbounded)

  static Count exact(std::int64_t v) { return Count{v, v}; }
  static Count range(std::int64_t lo, std::int64_t hi) { return Count{lo, hi}; }
  static Count unknown() { return Count{}; }

  bool known() const { return min.has_value() && max.has_value(); }
  bool is_exact() const { return known() && *min == *max; }
  /// "123", "2 ~ 65", "undef" (both ends unknown) or "1 ~ ?" (one end unknown).
  std::string str() const;
  bool operator==(const Count& o) const { return min == o.min && max == o.max; }
};

/// Parses the text of a count: "123", "undef", "?", "a ~ b" (whitespace-tolerant; an end
/// that is "?", "undef" or of the unbounded sentinel family is unknown). Returns
/// std::nullopt when the text is none of these, or a range with min > max (the caller
/// reports the error with its file and element).
std::optional<Count> parse_count_text(const std::string& text);

/// True when `text` is one of the ways the reports print an unknown number: "undef", "?",
/// or a non-negative integer or decimal of the unbounded sentinel family (>= kUnboundedFrom).
bool is_unknown_text(const std::string& text);

/// How an unknown value was printed, for listings: "unbounded" (the 2^60 sentinel family,
/// also inside a range), "undef", "?", "range" (a range where one number is expected) or
/// "unknown".
std::string unknown_kind(const std::string& text);

/// A duration printed with a unit, e.g. "68.552 us", "0.408 sec", "20.000 ns"; or a
/// range of two such ("0 ns ~ 0.630 us"); or "undef" / "?". Converted to nanoseconds; an
/// end at or above kUnboundedFrom ns (the sentinel's time) is unknown.
struct TimeSpan {
  std::string text;                  ///< as printed in the report
  std::optional<double> min_ns;      ///< empty when unknown
  std::optional<double> max_ns;      ///< empty when unknown
};

/// Parses "<number> <unit>" (unit ns, us, ms, sec or s), "<t> ~ <t>", a bare number
/// (taken as ns, as AbsoluteTimeLatency prints at the top level from 2020.2), "undef" or
/// "?". Returns std::nullopt for anything else.
std::optional<TimeSpan> parse_time_text(const std::string& text);

/// Parses a decimal number (e.g. a clock period "3.33"); std::nullopt on anything else.
std::optional<double> parse_double_text(const std::string& text);

/// Trims ASCII whitespace at both ends.
std::string trim(const std::string& s);

/// A value a report prints as unknown where the reader takes a number: "undef", "?", a
/// range where one number is expected, or the unbounded sentinel family. The readers list
/// every one (CsynthReport::unknowns) and read the field as unknown.
struct UnknownValue {
  std::string module;  ///< the module it belongs to (ModuleInformation name, else the report's top)
  std::string field;   ///< element path below the module (or /profile), "@NAME" for an attribute
  std::string text;    ///< as printed
  /// unknown_kind(text).
  std::string kind() const { return unknown_kind(text); }
};

}  // namespace ttsim::hls
