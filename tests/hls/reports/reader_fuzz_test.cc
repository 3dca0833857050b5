// RapidCheck mutation test of the report readers, 20,000 inputs per reader (csynth.xml,
// export_impl.xml, cosim, utilization and power .rpt): truncations, byte flips, element
// (or line) deletions and number-text replacements of fixture files and, when
// TTSIM_SHARED is set, of the real reports under 200 kB. Every mutated input must either
// parse or throw InputError whose message names the source — never crash, throw anything
// else, or take more than 5 s (a watchdog aborts). The counts are printed and recorded
// as test properties.

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

long g_inputs_tried = 0;

// RC_PARAMS max_success cases per reader (20,000 in BUILD), each one mutated input.
TEST(ReaderFuzz, MutatedReportsOnlyParseOrThrowInputErrorNamingTheFile) {
  const std::vector<Input> all = inputs();
  ASSERT_GE(all.size(), 6u);
  const std::vector<std::string> odd_values = {"", "undef", "-1", "1 ~", "~", "abc", "1.5",
                                               "99999999999999999999", "7 ~ 3", "NA", "0 ~ 0",
                                               "<", "&amp;", "  12  ", "-0.5", "1e400", "nan", "inf"};
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
    long tried = 0, rejected = 0;
    const bool ok = rc::check(std::string("mutated ") + label + " parses or throws InputError naming it", [&] {
      const Input& in = **rc::gen::elementOf(files);
      const auto mutation = *rc::gen::inRange(0, 4);
      std::string text = in.text;
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
      }
    });
    EXPECT_TRUE(ok) << label;
    std::cout << "reader fuzz " << label << ": " << tried << " inputs from " << files.size() << " files, "
              << rejected << " rejected\n";
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
