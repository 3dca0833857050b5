// Every numeric field the XML report readers take, printed in each unknown form the tools
// use — Vitis HLS 2024.x's unbounded sentinel 2^60 (1152921504606846976) and its family
// (2^60 + 1, a time of 2^60 cycles), "?", "undef", and a range whose upper end is the
// sentinel — is read as unknown and listed (module, field, text), and the rest of the
// report is read. A field is "taken" when the reader rejects the text "abc" there; a field
// not taken must not be listed; BindNode STORAGESIZE (three figures in one attribute) is
// checked apart. Run on the fixtures (always) and, when TTSIM_SHARED is set,
// on real reports of three schema generations.

#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "core/errors.h"
#include "hls/reports/csynth.h"
#include "hls/reports/impl_reports.h"
#include "hls/reports/values.h"
#include "hls/reports/xml_util.h"

namespace ttsim::hls {
namespace {

/// A numeric place of an XML report: an element's text or one attribute.
struct Slot {
  std::size_t element = 0;  ///< index in document order (root excluded)
  std::string attribute;    ///< empty for the element's text
  std::string name;         ///< element name, or "@" + attribute
  std::string listed_as;    ///< what the unknown's field ends with
  bool time = false;        ///< a time with a unit ("3.457 us")
};

std::vector<pugi::xml_node> elements(const pugi::xml_document& doc) {
  std::vector<pugi::xml_node> out;
  for (const pugi::xpath_node& n : doc.document_element().select_nodes(".//*")) out.push_back(n.node());
  return out;
}

bool has_element_child(pugi::xml_node e) {
  for (pugi::xml_node c = e.first_child(); c; c = c.next_sibling()) {
    if (c.type() == pugi::node_element) return true;
  }
  return false;
}

bool is_time_with_unit(const std::string& t) {
  const auto ts = parse_time_text(t);
  return ts && ts->min_ns && t.find(' ') != std::string::npos;
}

/// The numeric places of `text`: elements whose only content is a number (or a time with
/// a unit), and attributes holding a number.
std::vector<Slot> slots(const std::string& text) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_buffer(text.data(), text.size()));
  const auto all = elements(doc);
  std::vector<Slot> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const pugi::xml_node e = all[i];
    const std::string t = xml::text(e);
    if (!has_element_child(e) && !t.empty() && (parse_double_text(t) || is_time_with_unit(t))) {
      // A <range>'s <min>/<max> is listed as the count holding the range.
      const bool in_range = std::string(e.parent().name()) == "range";
      out.push_back({i, "", e.name(), in_range ? e.parent().parent().name() : e.name(), is_time_with_unit(t)});
    }
    for (const pugi::xml_attribute a : e.attributes()) {
      if (parse_double_text(a.value())) out.push_back({i, a.name(), std::string("@") + a.name(), std::string("@") + a.name()});
    }
  }
  return out;
}

std::string with_value(const std::string& text, const Slot& s, const std::string& value) {
  pugi::xml_document doc;
  doc.load_buffer(text.data(), text.size());
  pugi::xml_node e = elements(doc)[s.element];
  if (s.attribute.empty()) {
    e.text().set(value.c_str());
  } else {
    e.attribute(s.attribute.c_str()).set_value(value.c_str());
  }
  std::ostringstream os;
  doc.save(os, "", pugi::format_raw);
  return os.str();
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Parses a report text and returns its unknowns; throws InputError as the reader does.
using Reader = std::function<std::vector<UnknownValue>(const std::string& text)>;

/// Counts of one file's run.
struct Tally {
  int slots = 0, taken = 0, forms = 0;
};

// The unknown forms written into every slot (and, for a time, a time of 2^60 cycles).
const std::vector<std::string> kForms = {"1152921504606846976", "1152921504606846977", "?", "undef",
                                         "1 ~ 1152921504606846977", "18446744073709551616"};

Tally check_every_slot(const std::string& label, const std::string& text, const Reader& read) {
  const std::size_t baseline = read(text).size();
  Tally tally;
  for (const Slot& s : slots(text)) {
    ++tally.slots;
    bool taken = false;
    try {
      read(with_value(text, s, "abc"));
    } catch (const InputError&) {
      taken = true;
    }
    tally.taken += taken;
    std::vector<std::string> forms = kForms;
    if (s.time) forms.push_back("11529215046.068 sec");
    for (const std::string& v : forms) {
      ++tally.forms;
      std::vector<UnknownValue> u;
      try {
        u = read(with_value(text, s, v));
      } catch (const InputError& e) {
        ADD_FAILURE() << label << ": " << s.name << " = \"" << v << "\" rejected: " << e.what();
        continue;
      }
      if (!taken) {
        EXPECT_EQ(u.size(), baseline) << label << ": " << s.name << " is not read, yet \"" << v << "\" is listed";
        continue;
      }
      bool listed = false;
      for (const auto& x : u) listed = listed || (x.text.find(v) != std::string::npos && ends_with(x.field, s.listed_as));
      EXPECT_TRUE(listed) << label << ": " << s.name << " = \"" << v << "\" is not listed as unknown";
      EXPECT_LE(u.size(), baseline + 1) << label << ": " << s.name;
    }
  }
  std::cout << label << ": " << tally.slots << " numeric places, " << tally.taken << " read, " << tally.forms
            << " unknown values written\n";
  return tally;
}

Reader csynth_reader() {
  return [](const std::string& t) { return parse_csynth_xml(t, "sentinel.xml").unknowns; };
}

std::string fixture(const std::string& name) { return xml::read_file("tests/hls/reports/testdata/" + name); }

TEST(UnknownValues, EveryNumericFieldOfTheFixturesReadsTheUnknownFormsAsUnknown) {
  const Tally v23 = check_every_slot("vitis2023_csynth.xml", fixture("vitis2023_csynth.xml"), csynth_reader());
  EXPECT_GE(v23.taken, 40);  // latencies, intervals, loops, resources, BindNode attributes, clocks
  const Tally v19 = check_every_slot("vivado2019_csynth.xml", fixture("vivado2019_csynth.xml"), csynth_reader());
  EXPECT_GE(v19.taken, 15);
  const Tally impl = check_every_slot("export_impl.xml", fixture("export_impl.xml"), [](const std::string& t) {
    return parse_export_impl_xml(t, "sentinel_impl.xml").unknowns;
  });
  EXPECT_GE(impl.taken, 8);
}

TEST(UnknownValues, EveryNumericFieldOfRealReportsReadsTheUnknownFormsAsUnknown) {
  const char* shared = std::getenv("TTSIM_SHARED");
  if (!shared) GTEST_SKIP() << "TTSIM_SHARED not set: real reports in shared/data/hls_reports unavailable";
  const std::string dir = std::string(shared) + "/data/hls_reports/";
  for (const char* f : {"ahls_knn/csynth.xml", "boostingtree_predict_ensemble/csynth.xml",
                        "gnn_acc_pna_molhiv/Linear_relu_csynth.xml", "ahls_knn/export_impl.xml"}) {
    const std::string text = xml::read_file(dir + f);
    const bool impl = std::string(f).find("export_impl") != std::string::npos;
    const Tally t = check_every_slot(f, text, impl ? Reader([](const std::string& x) {
      return parse_export_impl_xml(x, "sentinel_impl.xml").unknowns;
    }) : csynth_reader());
    EXPECT_GE(t.taken, 10) << f;
  }
}

/// The fixture vitis2023_csynth.xml with a storage BindNode (RTLNAME buf_U) of STORAGESIZE
/// `size` added to the first module's BindNodes.
std::string with_storage_bind(const std::string& size) {
  std::string t = fixture("vitis2023_csynth.xml");
  const auto at = t.find("<BindNodes>");
  EXPECT_NE(at, std::string::npos);
  t.insert(at + std::string("<BindNodes>").size(),
           "<BindNode BINDTYPE=\"storage\" BRAM=\"2\" DSP=\"0\" IMPL=\"bram\" LATENCY=\"2\" OPTYPE=\"ram_1p\" "
           "RTLNAME=\"buf_U\" STORAGESIZE=\"" + size + "\" URAM=\"0\" VARIABLE=\"buf\"/>");
  return t;
}

/// The BindNode RTLNAME buf_U of `r` and its module's name.
std::pair<const BindNode*, std::string> storage_bind(const CsynthReport& r) {
  for (const auto& m : r.modules) {
    for (const auto& b : m.bind_nodes) {
      if (b.rtl_name == "buf_U") return {&b, m.name};
    }
  }
  return {nullptr, ""};
}

TEST(UnknownValues, StorageSizeInTheUnknownFormsIsListed) {
  const CsynthReport base = parse_csynth_xml(with_storage_bind("32 1024 1"), "s.xml");
  const auto [known, module] = storage_bind(base);
  ASSERT_NE(known, nullptr);
  EXPECT_EQ(known->storage_bits(), 32 * 1024);
  for (const std::string v : {"64 1152921504606846976 1", "? 576 1", "64 undef 1", "1152921504606846977 2 1"}) {
    const CsynthReport r = parse_csynth_xml(with_storage_bind(v), "s.xml");
    ASSERT_EQ(r.unknowns.size(), base.unknowns.size() + 1) << v;
    bool listed = false;
    for (const auto& u : r.unknowns) {
      listed = listed || (u.module == module && ends_with(u.field, "BindNode[buf_U]/@STORAGESIZE") && u.text == v);
    }
    EXPECT_TRUE(listed) << "STORAGESIZE=\"" << v << "\" is not listed as unknown";
    EXPECT_FALSE(storage_bind(r).first->storage_bits().has_value()) << v;
  }
  for (const std::string v : {"abc 1 1", "64 576", "64 576 1 1"}) {
    try {
      parse_csynth_xml(with_storage_bind(v), "s.xml");
      ADD_FAILURE() << "STORAGESIZE=\"" << v << "\" accepted";
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("s.xml: "), std::string::npos) << what;
      EXPECT_NE(what.find("STORAGESIZE: expected \"<width> <depth> <banks>\""), std::string::npos) << what;
      EXPECT_NE(what.find("found \"" + v + "\""), std::string::npos) << what;
    }
  }
}

TEST(UnknownValues, CosimCellsInTheUnknownFormsAreUnknown) {
  const std::string text = fixture("tt_kernel_cosim.rpt");
  const CosimRun* base = parse_cosim_rpt(text, "c.rpt").passed();
  ASSERT_NE(base, nullptr);
  ASSERT_TRUE(base->latency_max.known());
  const std::string value = std::to_string(*base->latency_max.max);
  const auto row = text.find("Pass");
  ASSERT_NE(row, std::string::npos);
  for (const char* v : {"1152921504606846976", "?", "undef"}) {
    std::string t = text;
    const auto at = t.find(value, row);
    ASSERT_NE(at, std::string::npos);
    t.replace(at, value.size(), std::string(v));
    const CosimReport c = parse_cosim_rpt(t, "c.rpt");
    ASSERT_NE(c.passed(), nullptr) << v;
    EXPECT_FALSE(c.passed()->latency_min.known() && c.passed()->latency_avg.known() &&
                 c.passed()->latency_max.known())
        << v;
  }
}

TEST(UnknownValues, AHalfKnownRangeKeepsItsKnownEnd) {
  const Count c = *parse_count_text("1 ~ 1152921504606846977");
  EXPECT_EQ(c.min, 1);
  EXPECT_FALSE(c.max.has_value());
  EXPECT_FALSE(c.known());
  EXPECT_EQ(c.str(), "1 ~ ?");
  EXPECT_FALSE(parse_count_text("1152921504606846976")->known());
  EXPECT_FALSE(parse_count_text("?")->known());
  EXPECT_EQ(*parse_count_text(std::to_string(kUnboundedFrom - 1)), Count::exact(kUnboundedFrom - 1));
  EXPECT_FALSE(parse_count_text(std::to_string(kUnboundedFrom))->known());
  EXPECT_FALSE(parse_count_text("7 ~ 3").has_value());
  EXPECT_FALSE(parse_count_text("-1").has_value());
  EXPECT_EQ(unknown_kind("1 ~ 1152921504606846977"), "unbounded");
  EXPECT_EQ(unknown_kind("2 ~ 5"), "range");
  EXPECT_EQ(unknown_kind("?"), "?");
  EXPECT_FALSE(parse_time_text("11529215046.068 sec")->max_ns.has_value());
  EXPECT_DOUBLE_EQ(*parse_time_text("0.408 sec")->max_ns, 0.408e9);
  EXPECT_FALSE(is_unknown_text("12"));
  EXPECT_TRUE(is_unknown_text("1152921504606846976.000"));
}

}  // namespace
}  // namespace ttsim::hls
