// Reader tests on small reports written in the real schemas (testdata/), so the readers
// stay covered where the real reports are not available; plus malformed inputs.

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "hls/reports/csynth.h"
#include "hls/reports/impl_reports.h"
#include "hls/reports/report_json.h"
#include "hls/reports/report_set.h"
#include "hls/reports/vivado_rpt.h"
#include "hls/reports/xml_util.h"

namespace ttsim::hls {
namespace {

const std::string kData = "tests/hls/reports/testdata/";

std::string fixture(const std::string& name) { return xml::read_file(kData + name); }

// Expects parse_csynth_xml(text) to throw InputError whose message contains `needle`.
void expect_csynth_error(const std::string& text, const std::string& needle) {
  try {
    parse_csynth_xml(text, "bad.xml");
    ADD_FAILURE() << "no error for input expected to fail with " << needle;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.xml"), std::string::npos) << e.what();
  }
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

TEST(FixtureCsynth, Vivado2019SchemaWithRangesAndRepeatedNames) {
  auto r = read_csynth_xml(kData + "vivado2019_csynth.xml");
  EXPECT_EQ(r.tool_version, "2019.2");
  EXPECT_EQ(r.top, "tt_contract");
  EXPECT_EQ(r.part, "xcu50-fsvh2104-2-e");
  EXPECT_EQ(r.latency_best, Count::exact(1039));
  EXPECT_EQ(r.latency_average, Count::exact(1500));
  EXPECT_EQ(r.latency_worst, Count::exact(2063));
  EXPECT_NEAR(*r.latency_worst_time->max_ns, 6877.0, 1e-6);
  EXPECT_EQ(r.resources.dsp, 10);  // DSP48E
  EXPECT_EQ(r.resources.uram, 4);
  ASSERT_EQ(r.loops.size(), 3u);
  EXPECT_EQ(r.loops[0].loops[0].name, "Loop1.1");
  EXPECT_EQ(r.loops[1].name, "drain");
  EXPECT_EQ(r.loops[2].name, "drain");  // repeated label: both kept
  EXPECT_EQ(r.loops[1].trip_count, Count::range(1, 1025));
  EXPECT_EQ(r.loops[1].trip_count.str(), "1 ~ 1025");
  EXPECT_FALSE(r.loops[2].trip_count.known());
  EXPECT_EQ(r.loops[2].trip_count.str(), "undef");
  EXPECT_TRUE(r.loops[2].pipelined());
}

TEST(FixtureCsynth, Vitis2023ModuleInformationAndBindNodes) {
  auto r = read_csynth_xml(kData + "vitis2023_csynth.xml");
  EXPECT_EQ(r.tool_version, "2023.2");
  EXPECT_EQ(r.flow_target, "vitis");
  EXPECT_TRUE(r.loops.empty());  // loops outlined into the _Pipeline_ module
  ASSERT_EQ(r.modules.size(), 2u);
  const ModuleReport* p = r.module("tt_kernel_Pipeline_contract");
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(p->loops.size(), 1u);
  EXPECT_EQ(p->loops[0].name, "contract");
  EXPECT_EQ(p->loops[0].pipeline_type, "yes");
  EXPECT_EQ(*p->loops[0].pipeline_depth, Count::exact(11));
  EXPECT_NEAR(*p->loops[0].absolute_time->max_ns, 3440.0, 1e-6);
  ASSERT_EQ(p->bind_nodes.size(), 2u);
  EXPECT_EQ(p->bind_nodes[0].op_type, "fadd");
  EXPECT_EQ(p->bind_nodes[0].latency, 6);
  EXPECT_EQ(p->bind_nodes[0].dsp, 2);
  EXPECT_EQ(p->available.dsp, 5952);
  ASSERT_TRUE(r.hierarchy);
  ASSERT_EQ(r.hierarchy->instances.size(), 1u);
  EXPECT_EQ(r.hierarchy->instances[0].module_name, "tt_kernel_Pipeline_contract");
}

TEST(FixtureText, UtilizationPowerCosimExport) {
  auto u = read_utilization_rpt(kData + "kernel_utilization_placed.rpt");
  EXPECT_DOUBLE_EQ(u.block_ram_tile.used, 20.5);
  EXPECT_DOUBLE_EQ(u.bram_18k(), 41.0);
  EXPECT_DOUBLE_EQ(u.uram->used, 16);
  EXPECT_DOUBLE_EQ(u.dsp.used, 120);
  EXPECT_DOUBLE_EQ(u.ramb18->available.value(), 2688);
  auto p = read_power_rpt(kData + "kernel_power_routed.rpt");
  EXPECT_DOUBLE_EQ(p.total_on_chip_w, 3.1);
  EXPECT_DOUBLE_EQ(*p.hbm_w, 0.24);
  EXPECT_EQ(p.components.size(), 5u);
  auto c = read_cosim_rpt(kData + "tt_kernel_cosim.rpt");
  EXPECT_EQ(c.passed()->latency_avg, Count::exact(1040));
  EXPECT_EQ(c.passed()->total_execution, Count::exact(5205));
  EXPECT_EQ(c.solution, "solution1");
  auto e = read_export_impl_xml(kData + "export_impl.xml");
  EXPECT_EQ(e.timing_met, false);
  EXPECT_DOUBLE_EQ(*e.achieved_clock_ns, 3.512);
  EXPECT_EQ(e.bram_18k, 41);
  auto s = read_reports(kData);
  EXPECT_EQ(s.csynth.size(), 2u);
  EXPECT_EQ(s.export_impl.size(), 1u);
  EXPECT_EQ(s.cosim.size(), 1u);
  EXPECT_EQ(s.utilization.size(), 1u);
  EXPECT_EQ(s.power.size(), 1u);
}

TEST(FixtureErrors, MalformedInputsNameFileAndElement) {
  const std::string good = fixture("vivado2019_csynth.xml");
  expect_csynth_error(good.substr(0, good.size() / 2), "not well-formed XML");
  expect_csynth_error("", "not well-formed XML");
  expect_csynth_error("<report><x/></report>", "root element: expected <profile>, found <report>");
  expect_csynth_error(replace(good, "<Part>xcu50-fsvh2104-2-e</Part>", ""),
                      "/profile/UserAssignments/Part: missing");
  expect_csynth_error(replace(good, "<Best-caseLatency>1039</Best-caseLatency>", ""),
                      "/profile/PerformanceEstimates/SummaryOfOverallLatency/Best-caseLatency: missing");
  expect_csynth_error(replace(good, "<Best-caseLatency>1039<", "<Best-caseLatency>12x<"),
                      "Best-caseLatency: expected an integer, \"undef\"");
  expect_csynth_error(replace(good, "<TripCount>16</TripCount>", ""),
                      "/profile/PerformanceEstimates/SummaryOfLoopLatency/Loop1/TripCount: missing");
  expect_csynth_error(replace(good, "<TargetClockPeriod>3.33<", "<TargetClockPeriod>fast<"),
                      "TargetClockPeriod: expected a number");
  auto s = good.find("<AreaEstimates>");
  auto e = good.find("</AreaEstimates>");
  expect_csynth_error(good.substr(0, s) + good.substr(e + 16), "/profile/AreaEstimates: missing");
  expect_csynth_error(replace(good, "<min>1</min>\n<max>1025</max>", "<min>9</min>\n<max>2</max>"),
                      "expected min <= max");
}

TEST(FixtureErrors, TextReportsAndMissingFiles) {
  EXPECT_THROW(parse_utilization_rpt("| Device : x\n", "u.rpt"), InputError);
  EXPECT_THROW(parse_power_rpt("| Total On-Chip Power (W) | n/a |\n", "p.rpt"), InputError);
  EXPECT_THROW(parse_cosim_rpt("nothing here\n", "c.rpt"), InputError);
  EXPECT_THROW(parse_cosim_rpt("| Verilog | Pass | 1 | x | 3 | NA | NA | NA | 3 |\n", "c.rpt"),
               InputError);
  EXPECT_THROW(parse_export_impl_xml("<profile><AreaReport/></profile>", "e.xml"), InputError);
  EXPECT_THROW(read_csynth_xml(kData + "no_such_file.xml"), InputError);
  EXPECT_THROW(read_reports(kData + "no_such_dir"), InputError);
  try {
    parse_utilization_rpt(fixture("kernel_utilization_placed.rpt").substr(0, 900), "u.rpt");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("u.rpt: utilization table row"), std::string::npos) << e.what();
  }
}

// Expects `f` to throw InputError whose message contains every one of `needles`.
void expect_input_error(const std::function<void()>& f, const std::vector<std::string>& needles) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one naming " << needles.front();
  } catch (const InputError& e) {
    for (const auto& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
}

TEST(FixtureErrors, NegativePowerAndUtilizationNameFileAndLine) {
  const std::string power = fixture("kernel_power_routed.rpt");
  expect_input_error([&] { parse_power_rpt(replace(power, "| 0.644 ", "| -0.644 "), "p.rpt"); },
                     {"p.rpt", "line 19", "Dynamic (W)", "non-negative"});
  expect_input_error(
      [&] { parse_power_rpt(replace(power, "|     0.120 |     20.5", "|    -0.120 |     20.5"), "p.rpt"); },
      {"p.rpt", "line 33", "Block RAM", "non-negative"});
  const std::string util = fixture("kernel_utilization_placed.rpt");
  expect_input_error([&] { parse_utilization_rpt(replace(util, "| 12000 |", "| -12000 |"), "u.rpt"); },
                     {"u.rpt", "line 20", "CLB LUTs", "non-negative"});
  const std::string xml = fixture("vitis2023_csynth.xml");
  expect_input_error([&] { parse_csynth_xml(replace(xml, "<TargetClockPeriod>", "<TargetClockPeriod>-"), "c.xml"); },
                     {"c.xml", "TargetClockPeriod", "non-negative"});
  expect_input_error([&] { parse_csynth_xml(replace(xml, "<TargetClockPeriod>3.33<", "<TargetClockPeriod>0<"), "c.xml"); },
                     {"c.xml", "TargetClockPeriod", "above 0 ns"});
}

// Counts of whole sites (a Block RAM Tile in halves), a total power that is the sum of its
// dynamic and static parts, and an unknown required power named with its line.
TEST(FixtureErrors, FractionalCountsAndPowerThatDoesNotAddUp) {
  const std::string util = fixture("kernel_utilization_placed.rpt");
  expect_input_error([&] { parse_utilization_rpt(replace(util, "| 12000 |", "| 12000.5 |"), "u.rpt"); },
                     {"u.rpt", "line 20", "CLB LUTs", "a whole count in column Used", "12000.5"});
  EXPECT_DOUBLE_EQ(parse_utilization_rpt(util, "u.rpt").block_ram_tile.used, 20.5);  // half tiles: RAMB18s
  expect_input_error([&] { parse_utilization_rpt(replace(util, "| 20.5 |", "| 20.25 |"), "u.rpt"); },
                     {"u.rpt", "line 32", "Block RAM Tile", "a count in half tiles", "20.25"});
  // A tile holds one RAMB36 or two RAMB18: 20 + 1 / 2 = 20.5 tiles, not 21.5.
  expect_input_error([&] { parse_utilization_rpt(replace(util, "| 20.5 |", "| 21.5 |"), "u.rpt"); },
                     {"u.rpt", "Block RAM Tile", "RAMB36/FIFO* + RAMB18 / 2 = 20 + 1 / 2 = 20.5 tiles", "found 21.5"});
  const std::string power = fixture("kernel_power_routed.rpt");
  expect_input_error([&] { parse_power_rpt(replace(power, "| 0.644 ", "| 4.644 "), "p.rpt"); },
                     {"p.rpt", "line 16", "Total On-Chip Power (W)", "4.644 + 2.456 = 7.100", "found 3.100"});
  expect_input_error([&] { parse_power_rpt(replace(power, "| 3.100 ", "| ? "), "p.rpt"); },
                     {"p.rpt", "line 16", "Total On-Chip Power (W)", "(unknown)"});
  // A component below Vivado's last digit ("<0.001") is read as half the bound, not dropped.
  const PowerReport tiny = parse_power_rpt(replace(power, "|     0.120 |     20.5", "|    <0.001 |     20.5"), "p.rpt");
  bool found = false;
  for (const auto& [name, w] : tiny.components) {
    if (name == "Block RAM") {
      found = true;
      EXPECT_DOUBLE_EQ(w, 0.0005);
    }
  }
  EXPECT_TRUE(found) << "the Block RAM component printed <0.001";
}

TEST(FixtureJson, KeysAndUnknownsAreNull) {
  auto j = report_set_json(read_reports(kData));
  ASSERT_EQ(j["csynth"].size(), 2u);
  const auto& v = j["csynth"][0];  // vitis2023_csynth.xml (sorted by path)
  EXPECT_EQ(v["top"], "tt_kernel");
  EXPECT_EQ(v["part"], "xcu50-fsvh2104-2-e");
  EXPECT_EQ(v["tool_version"], "2023.2");
  EXPECT_DOUBLE_EQ(v["target_clock_ns"].get<double>(), 3.33);
  EXPECT_DOUBLE_EQ(v["estimated_clock_ns"].get<double>(), 2.433);
  EXPECT_EQ(v["latency_best"], 1038);
  EXPECT_EQ(v["latency_worst"], 1038);
  EXPECT_EQ(v["interval_min"], 1039);
  EXPECT_EQ(v["interval_max"], 1039);
  EXPECT_EQ(v["resources"]["DSP"], 15);
  EXPECT_EQ(v["resources"]["BRAM_18K"], 8);
  EXPECT_EQ(v["modules"][0]["loops"][0]["pipeline_depth"], 11);
  const auto& o = j["csynth"][1];  // vivado2019_csynth.xml
  EXPECT_EQ(o["loops"][1]["trip_count"]["min"], 1);
  EXPECT_EQ(o["loops"][1]["trip_count"]["max"], 1025);
  EXPECT_TRUE(o["loops"][2]["trip_count"].is_null());
  EXPECT_TRUE(o["loops"][2]["latency"].is_null());
  EXPECT_EQ(o["loops"][0]["loops"][0]["name"], "Loop1.1");
  auto bad = csynth_json(parse_csynth_xml(
      replace(fixture("vivado2019_csynth.xml"), "<Worst-caseLatency>2063<", "<Worst-caseLatency>undef<"),
      "x.xml"));
  EXPECT_TRUE(bad["latency_worst"].is_null());
  EXPECT_EQ(bad["latency_best"], 1039);
}

TEST(Values, CountAndTimeText) {
  EXPECT_EQ(*parse_count_text(" 42 "), Count::exact(42));
  EXPECT_EQ(*parse_count_text("2 ~ 65"), Count::range(2, 65));
  EXPECT_FALSE(parse_count_text("undef")->known());
  EXPECT_FALSE(parse_count_text("-3").has_value());
  EXPECT_FALSE(parse_count_text("5 ~ 2").has_value());
  EXPECT_FALSE(parse_count_text("").has_value());
  EXPECT_DOUBLE_EQ(*parse_time_text("0.408 sec")->max_ns, 0.408e9);
  EXPECT_DOUBLE_EQ(*parse_time_text("2.103 ms")->min_ns, 2.103e6);
  EXPECT_DOUBLE_EQ(*parse_time_text("0 ns ~ 0.630 us")->max_ns, 630.0);
  EXPECT_DOUBLE_EQ(*parse_time_text("2103296")->max_ns, 2103296.0);
  EXPECT_FALSE(parse_time_text("undef")->max_ns.has_value());
  EXPECT_FALSE(parse_time_text("3 parsecs").has_value());
}

}  // namespace
}  // namespace ttsim::hls
