// RapidCheck mutation test of the report readers, 20,000 inputs per reader (csynth.xml,
// export_impl.xml, cosim, utilization and power .rpt): truncations, byte flips, element
// (or line) deletions, number-text replacements (odd values, ranges, "?", Vitis HLS
// 2024.x's unbounded sentinel 2^60 and its family) and sentinel writes of fixture files
// and, when TTSIM_SHARED is set, of the real reports under 200 kB. Every mutated input
// must either parse or throw InputError whose message names the source — never crash,
// throw anything else, or take more than 5 s (a watchdog aborts); a number of an XML
// report or a cosim cell rewritten in one of the unknown forms must parse (it is read as
// unknown). The counts are printed and recorded as test properties.

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <pugixml.hpp>
#include <rapidcheck.h>

#include "core/errors.h"
#include "hls/reports/csynth.h"
#include "hls/reports/impl_reports.h"
#include "hls/reports/report_set.h"
#include "hls/reports/values.h"
#include "hls/reports/vivado_rpt.h"
#include "hls/reports/xml_util.h"
#include "tests/core/hang_guard.h"

namespace ttsim::hls {
namespace {

namespace fs = std::filesystem;

struct Input {
  std::string name;
  ReportKind kind;
  std::string text;
};

std::vector<Input> inputs() {
  std::vector<std::string> paths;
  for (const auto& e : fs::directory_iterator("tests/hls/reports/testdata"))
    paths.push_back(e.path().string());
  if (const char* shared = std::getenv("TTSIM_SHARED")) {
    for (const auto& e : fs::recursive_directory_iterator(std::string(shared) + "/data/hls_reports")) {
      if (e.is_regular_file() && e.file_size() < 600000) paths.push_back(e.path().string());
    }
  }
  std::vector<Input> out;
  for (const auto& p : paths) {
    ReportKind k = classify_report_file(p);
    if (k != ReportKind::kOther) out.push_back({p, k, xml::read_file(p)});
  }
  return out;
}

// The source name the readers are given (and must name in every rejection).
const char* kSource = "fuzz_input.report";

// Parses `text` as a report of `kind`. Returns the InputError message ("" on success);
// anything else propagates.
std::string parse(ReportKind kind, const std::string& text) {
  try {
    switch (kind) {
      case ReportKind::kCsynthXml: parse_csynth_xml(text, kSource); break;
      case ReportKind::kExportImplXml: parse_export_impl_xml(text, kSource); break;
      case ReportKind::kCosimRpt: parse_cosim_rpt(text, kSource); break;
      case ReportKind::kUtilizationRpt: parse_utilization_rpt(text, kSource); break;
      case ReportKind::kPowerRpt: parse_power_rpt(text, kSource); break;
      case ReportKind::kOther: break;
    }
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool is_xml(ReportKind k) { return k == ReportKind::kCsynthXml || k == ReportKind::kExportImplXml; }

// Deletes the n-th element (document order, root excluded) of an XML text, or the n-th
// line of a text report.
std::string delete_part(const Input& in, std::size_t n) {
  if (!is_xml(in.kind)) {
    std::istringstream ss(in.text);
    std::string line, out;
    std::vector<std::string> ls;
    while (std::getline(ss, line)) ls.push_back(line);
    if (ls.empty()) return in.text;
    ls.erase(ls.begin() + static_cast<long>(n % ls.size()));
    for (const auto& l : ls) out += l + "\n";
    return out;
  }
  pugi::xml_document doc;
  if (!doc.load_buffer(in.text.data(), in.text.size())) return in.text;
  std::vector<pugi::xml_node> nodes;
  for (const pugi::xpath_node& c : doc.document_element().select_nodes(".//*")) nodes.push_back(c.node());
  if (nodes.empty()) return in.text;
  pugi::xml_node victim = nodes[n % nodes.size()];
  victim.parent().remove_child(victim);
  std::ostringstream os;
  doc.save(os, "", pugi::format_raw);
  return os.str();
}

// Replaces the text of the n-th text-bearing element with `value`.
std::string replace_text(const Input& in, std::size_t n, const std::string& value) {
  pugi::xml_document doc;
  if (!doc.load_buffer(in.text.data(), in.text.size())) return in.text;
  std::vector<pugi::xml_node> texts;
  for (const pugi::xpath_node& c : doc.document_element().select_nodes(".//text()")) texts.push_back(c.node());
  if (texts.empty()) return in.text;
  texts[n % texts.size()].set_value(value.c_str());
  std::ostringstream os;
  doc.save(os, "", pugi::format_raw);
  return os.str();
}

// Writes `value` over the n-th number of `in` that the reader may take: an XML element's
// whole numeric text (csynth.xml, export_impl.xml) or a cosim result cell. Returns whether
// it did (the result must then parse); utilization / power reports are left alone (their
// required figures have no unknown form: Vivado prints none).
bool write_unknown(const Input& in, std::size_t n, const std::string& value, std::string& text) {
  if (in.kind == ReportKind::kCosimRpt) {
    std::vector<std::size_t> cells;  // offsets of numeric cells of the VHDL / Verilog rows
    std::size_t line = 0;
    while (line < in.text.size()) {
      const std::size_t end = std::min(in.text.find('\n', line), in.text.size());
      const std::string l = in.text.substr(line, end - line);
      if (l.find("VHDL|") != std::string::npos || l.find("Verilog|") != std::string::npos) {
        for (std::size_t i = 0; i < l.size(); ++i) {
          if (std::isdigit(static_cast<unsigned char>(l[i])) && (i == 0 || !std::isdigit(static_cast<unsigned char>(l[i - 1])))) {
            cells.push_back(line + i);
          }
        }
      }
      line = end + 1;
    }
    if (cells.empty()) return false;
    const std::size_t at = cells[n % cells.size()];
    std::size_t len = 0;
    while (at + len < text.size() && std::isdigit(static_cast<unsigned char>(text[at + len]))) ++len;
    text.replace(at, len, value);
    return true;
  }
  if (!is_xml(in.kind)) return false;
  pugi::xml_document doc;
  if (!doc.load_buffer(in.text.data(), in.text.size())) return false;
  std::vector<pugi::xml_node> numbers;
  for (const pugi::xpath_node& c : doc.document_element().select_nodes(".//text()")) {
    if (parse_double_text(c.node().value())) numbers.push_back(c.node());
  }
  if (numbers.empty()) return false;
  numbers[n % numbers.size()].set_value(value.c_str());
  std::ostringstream os;
  doc.save(os, "", pugi::format_raw);
  text = os.str();
  return true;
}

long g_inputs_tried = 0;

// RC_PARAMS max_success cases per reader (20,000 in BUILD), each one mutated input.
TEST(ReaderFuzz, MutatedReportsOnlyParseOrThrowInputErrorNamingTheFile) {
  const std::vector<Input> all = inputs();
  ASSERT_GE(all.size(), 6u);
  const std::vector<std::string> odd_values = {"", "undef", "-1", "1 ~", "~", "abc", "1.5",
                                               "99999999999999999999", "7 ~ 3", "NA", "0 ~ 0",
                                               "<", "&amp;", "  12  ", "-0.5", "1e400", "nan", "inf",
                                               "?", "1152921504606846976", "1152921504606846977",
                                               "1 ~ 1152921504606846977", "0 ~ 1152921504606846976",
                                               "? ~ 5", "18446744073709551616", "11529215046.068 sec"};
  // Unknown forms: written over a number, they must parse.
  const std::vector<std::string> unknown_forms = {"?", "undef", "1152921504606846976", "1152921504606846977",
                                                  "1 ~ 1152921504606846977", "18446744073709551616"};
  testing::HangGuard guard;
  const std::pair<ReportKind, const char*> kinds[] = {{ReportKind::kCsynthXml, "csynth.xml"},
                                                      {ReportKind::kExportImplXml, "export_impl.xml"},
                                                      {ReportKind::kCosimRpt, "cosim .rpt"},
                                                      {ReportKind::kUtilizationRpt, "utilization .rpt"},
                                                      {ReportKind::kPowerRpt, "power .rpt"}};
  for (const auto& [kind, label] : kinds) {
    std::vector<const Input*> files;
    for (const auto& in : all) {
      if (in.kind == kind && in.text.size() < 200000) files.push_back(&in);
    }
    ASSERT_FALSE(files.empty()) << label;
    long tried = 0, rejected = 0, sentinels = 0;
    const bool ok = rc::check(std::string("mutated ") + label + " parses or throws InputError naming it", [&] {
      const Input& in = **rc::gen::elementOf(files);
      const auto mutation = *rc::gen::resize(100, rc::gen::inRange(0, 5));  // uniform, whatever the size
      std::string text = in.text;
      bool must_parse = false;
      if (mutation == 0) {  // truncation
        text = text.substr(0, *rc::gen::inRange<std::size_t>(0, text.size()));
      } else if (mutation == 1) {  // 1-8 byte flips
        const auto flips = *rc::gen::inRange(1, 9);
        for (int i = 0; i < flips; ++i) {
          const auto pos = *rc::gen::inRange<std::size_t>(0, text.size());
          text[pos] = static_cast<char>(*rc::gen::inRange(0, 256));
        }
      } else if (mutation == 2) {  // element / line deletion
        text = delete_part(in, *rc::gen::inRange<std::size_t>(0, 1u << 20));
      } else if (mutation == 4) {  // a number written in an unknown form
        const auto v = *rc::gen::elementOf(unknown_forms);
        const auto n = *rc::gen::inRange<std::size_t>(0, 1u << 20);
        must_parse = write_unknown(in, n, v, text);
        sentinels += must_parse;
      } else {  // number text replaced by an odd value (XML elements; text reports: a digit)
        const auto n = *rc::gen::inRange<std::size_t>(0, 1u << 20);
        const auto v = *rc::gen::elementOf(odd_values);
        if (is_xml(in.kind)) {
          text = replace_text(in, n, v);
        } else {
          const auto pos = text.find_first_of("0123456789", n % text.size());
          if (pos != std::string::npos) text.replace(pos, 1, v);
        }
      }
      ++tried;
      ++g_inputs_tried;
      guard.begin(in.name);
      const std::string error = parse(in.kind, text);  // a non-InputError exception fails the property
      guard.end();
      if (!error.empty()) {
        ++rejected;
        if (error.find(kSource) == std::string::npos) RC_FAIL("rejection does not name the file: " + error);
        if (must_parse) RC_FAIL("a number written in an unknown form is rejected: " + error);
      }
    });
    EXPECT_TRUE(ok) << label;
    std::cout << "reader fuzz " << label << ": " << tried << " inputs from " << files.size() << " files, "
              << rejected << " rejected, " << sentinels << " with a number in an unknown form (all read)\n";
    ::testing::Test::RecordProperty(std::string(label) + " inputs", std::to_string(tried));
    EXPECT_GE(tried, 20000) << label;
  }
}

TEST(ReaderFuzz, ExhaustiveTruncationsOfFixtures) {
  // Every prefix of the small fixtures (all byte offsets).
  for (const char* f : {"vivado2019_csynth.xml", "vitis2023_csynth.xml", "export_impl.xml",
                        "tt_kernel_cosim.rpt"}) {
    const std::string p = std::string("tests/hls/reports/testdata/") + f;
    const std::string text = xml::read_file(p);
    const ReportKind k = classify_report_file(p);
    for (std::size_t n = 0; n < text.size(); ++n) {
      ++g_inputs_tried;
      std::string error;
      EXPECT_NO_THROW(error = parse(k, text.substr(0, n))) << f << " truncated at " << n;
      if (!error.empty()) EXPECT_NE(error.find(kSource), std::string::npos) << error;
    }
  }
  std::cout << "reader fuzz: " << g_inputs_tried << " inputs tried\n";
  ::testing::Test::RecordProperty("inputs_tried", std::to_string(g_inputs_tried));
  EXPECT_GT(g_inputs_tried, 1000);
}

}  // namespace
}  // namespace ttsim::hls
