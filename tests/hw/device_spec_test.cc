// Validation of device configs (hw/device_spec.h): one test per kind of error, each
// asserting the file, the JSON pointer, what was expected and what was found; and a
// round trip of every shipped FPGA device config through to_json() and the parser.

#include <dirent.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "hw/device_spec.h"

namespace ttsim {
namespace {

Json base_doc() {
  return Json::parse(R"({
    "name": "board", "part": "xcu50-fsvh2104-2-e", "platform": "xilinx_u50_gen3x16_xdma_5_202210_1",
    "resources": {"bram36": 1344, "uram288": 640, "dsp": 5952, "lut": 871680, "ff": 1743360},
    "slrs": 2,
    "clocks": {"default_mhz": 300, "max_mhz": 500},
    "memory": {"bram_read_latency": 1, "uram_read_latency": 2, "uram_cascade_height": 8},
    "float_ops": {
      "fadd": {"dsp": 2, "latency": [{"max_clock_mhz": 150, "cycles": 3}, {"max_clock_mhz": 500, "cycles": 6}]},
      "fmul": {"dsp": 3, "latency": [{"max_clock_mhz": 500, "cycles": 3}]}
    },
    "power": {"static_watts": 2.2, "dsp_watts_per_mhz": 7e-6, "bram36_watts_per_mhz": 8e-6,
              "uram_watts_per_mhz": 2.5e-5, "logic_watts_per_kilolut_mhz": 1.7e-4,
              "clock_watts_per_kilolut_mhz": 4.2e-5, "source": "test"}
  })");
}

std::string write_doc(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  write_file_atomic(path, text);
  return path;
}

Json op(const std::string& o, const std::string& path, const Json& value = nullptr) {
  Json j = {{"op", o}, {"path", path}};
  if (o != "remove") j["value"] = value;
  return Json::array({j});
}

void expect_error(const std::string& name, const Json& patch, const std::string& pointer,
                  const std::string& expected, const std::string& found) {
  const std::string path = write_doc(name, base_doc().patch(patch).dump(2));
  try {
    load_device_spec(path);
    ADD_FAILURE() << "no ConfigError for " << patch.dump();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.pointer(), pointer) << e.what();
    EXPECT_NE(e.expected().find(expected), std::string::npos) << "expected: " << e.expected();
    EXPECT_NE(e.found().find(found), std::string::npos) << "found: " << e.found();
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(pointer.empty() ? "/" : pointer), std::string::npos) << what;
  }
}

TEST(DeviceSpecLoader, BaseDocumentIsValid) {
  const DeviceSpec d = load_device_spec(write_doc("base.json", base_doc().dump()));
  EXPECT_EQ(d.bram36, 1344);
  EXPECT_EQ(d.uram_read_latency, 2);
  EXPECT_EQ(d.op("fadd").latency_at(100), 3);
  EXPECT_EQ(d.op("fadd").latency_at(300), 6);
  EXPECT_EQ(d.onchip_bits(), 1344LL * 36864 + 640LL * 294912);
  EXPECT_THROW(d.op("fexp"), InputError);
}

TEST(DeviceSpecLoader, UnknownKey) {
  expect_error("unknown_root.json", op("add", "/vendor", "amd"), "/vendor", "one of the known keys",
               "unknown key \"vendor\"");
  expect_error("unknown_resource.json", op("add", "/resources/bram18", 2688),
               "/resources/bram18", "bram36", "unknown key \"bram18\"");
  expect_error("unknown_op_key.json", op("add", "/float_ops/fadd/ii", 1), "/float_ops/fadd/ii",
               "latency", "unknown key \"ii\"");
  expect_error("unknown_power.json", op("add", "/power/hbm_watts", 1), "/power/hbm_watts",
               "static_watts", "unknown key \"hbm_watts\"");
  // An operator name the kernel specification does not use (a typo would never be priced).
  expect_error("unknown_float_op.json",
               Json::array({{{"op", "copy"}, {"from", "/float_ops/fadd"}, {"path", "/float_ops/fpow"}}}),
               "/float_ops", "floating-point operator of the kernel specification", "key \"fpow\"");
}

TEST(DeviceSpecLoader, WrongType) {
  expect_error("type_dsp.json", op("replace", "/resources/dsp", "many"), "/resources/dsp",
               "an integer", "string \"many\"");
  expect_error("type_slrs.json", op("replace", "/slrs", true), "/slrs", "an integer",
               "boolean true");
  expect_error("type_latency.json", op("replace", "/float_ops/fadd/latency", Json::object()),
               "/float_ops/fadd/latency", "an array", "object");
  expect_error("type_part.json", op("replace", "/part", 50), "/part", "a string", "number 50");
}

TEST(DeviceSpecLoader, EmptyList) {
  expect_error("empty_latency.json", op("replace", "/float_ops/fmul/latency", Json::array()),
               "/float_ops/fmul/latency", "an array of at least 1", "an empty array");
  expect_error("empty_ops.json", op("replace", "/float_ops", Json::object()), "/float_ops",
               "a non-empty object", "object");
}

TEST(DeviceSpecLoader, NumberOutOfRange) {
  expect_error("range_default_clock.json", op("replace", "/clocks/default_mhz", 600),
               "/clocks/default_mhz", "a number in [1, 500]", "number 600");
  expect_error("range_read_latency.json", op("replace", "/memory/bram_read_latency", 0),
               "/memory/bram_read_latency", "an integer in [1, 8]", "number 0");
  expect_error("range_write_latency.json", op("add", "/memory/write_latency", 9), "/memory/write_latency",
               "an integer in [1, 8]", "number 9");
  expect_error("range_slrs.json", op("replace", "/slrs", 17), "/slrs", "an integer in [1, 16]",
               "number 17");
  expect_error("range_lut.json", op("replace", "/resources/lut", 0), "/resources/lut",
               "an integer in [1, ", "number 0");
  expect_error("range_power.json", op("replace", "/power/static_watts", -1), "/power/static_watts",
               "a number in [0, 1000]", "number -1");
}

TEST(DeviceSpecLoader, OperatorLatencyTable) {
  expect_error("latency_order.json",
               op("replace", "/float_ops/fadd/latency/1/max_clock_mhz", 150),
               "/float_ops/fadd/latency/1/max_clock_mhz", "clocks in increasing order", "number 150");
  expect_error("latency_cover.json", op("replace", "/float_ops/fmul/latency/0/max_clock_mhz", 400),
               "/float_ops/fmul/latency/0/max_clock_mhz", "covering clocks.max_mhz = 500",
               "number 400");
  expect_error("missing_fmul.json", op("remove", "/float_ops/fmul"), "/float_ops",
               "operator \"fmul\"", "no such key");
}

// clocks.achievable_mhz (at most max_mhz; absent: max_mhz) and the optional card (idle at
// most the limit) of the fit rule (hw/resource_fit.h).
TEST(DeviceSpecLoader, AchievableClockAndCardLimits) {
  const DeviceSpec plain = load_device_spec(write_doc("no_card.json", base_doc().dump()));
  EXPECT_EQ(plain.achievable_clock_mhz, 0);  // not stated: no clock check
  EXPECT_EQ(plain.card_max_watts, 0);
  Json doc = base_doc();
  doc["clocks"]["achievable_mhz"] = 250;
  doc["card"] = {{"idle_watts", 17.4}, {"max_watts", 75}};
  const DeviceSpec d = load_device_spec(write_doc("card.json", doc.dump()));
  EXPECT_EQ(d.achievable_clock_mhz, 250);
  EXPECT_EQ(d.card_idle_watts, 17.4);
  EXPECT_EQ(d.card_max_watts, 75);
  expect_error("achievable_above_max.json", op("add", "/clocks/achievable_mhz", 600), "/clocks/achievable_mhz",
               "a number in [1, 500]", "number 600");
  // clocks.multi_slr_mhz: absent, no multi-SLR limit; at most max_mhz.
  EXPECT_EQ(plain.multi_slr_clock_mhz, 0);
  doc["clocks"]["multi_slr_mhz"] = 147;
  EXPECT_EQ(load_device_spec(write_doc("multi_slr.json", doc.dump())).multi_slr_clock_mhz, 147);
  expect_error("multi_slr_zero.json", op("add", "/clocks/multi_slr_mhz", 0), "/clocks/multi_slr_mhz",
               "a number in [1, 500]", "number 0");
  expect_error("card_idle_above_max.json", op("add", "/card", Json{{"idle_watts", 80}, {"max_watts", 75}}),
               "/card/idle_watts", "a number in [0, 75]", "number 80");
  expect_error("card_no_max.json", op("add", "/card", Json{{"idle_watts", 10}}), "/card", "max_watts", "");
  expect_error("card_unknown_key.json", op("add", "/card", Json{{"max_watts", 75}, {"tdp", 75}, {"idle_watts", 1}}),
               "/card/tdp", "", "");
}

// int_mul32.dsp: DSPs per 32-bit integer multiplier (the kernels' trip-count setup), default 3.
TEST(DeviceSpecLoader, IntegerMultiplierDsps) {
  EXPECT_EQ(load_device_spec(write_doc("no_mul.json", base_doc().dump())).int_mul32_dsp, 3);
  const std::string path = write_doc("mul4.json", base_doc().patch(op("add", "/int_mul32", Json{{"dsp", 4}})).dump());
  EXPECT_EQ(load_device_spec(path).int_mul32_dsp, 4);
  expect_error("mul_range.json", op("add", "/int_mul32", Json{{"dsp", -1}}), "/int_mul32/dsp",
               "an integer in [0, 64]", "number -1");
  expect_error("mul_key.json", op("add", "/int_mul32", Json{{"dsp", 3}, {"luts", 1}}), "/int_mul32/luts", "", "");
}

TEST(DeviceSpecLoader, WriteLatencyDefaultsToOneCycle) {
  EXPECT_EQ(load_device_spec(write_doc("no_write.json", base_doc().dump())).write_latency, 1);
  const std::string path = write_doc("write3.json", base_doc().patch(op("add", "/memory/write_latency", 3)).dump());
  EXPECT_EQ(load_device_spec(path).write_latency, 3);
}

TEST(DeviceSpecLoader, MissingRequiredKey) {
  expect_error("missing_part.json", op("remove", "/part"), "", "required key \"part\"",
               "no such key");
  expect_error("missing_max_clock.json", op("remove", "/clocks/max_mhz"), "/clocks",
               "required key \"max_mhz\"", "no such key");
}

TEST(DeviceSpecLoader, GpuFileIsNamedAsSuch) {
  expect_error("gpu.json", op("add", "/kind", "gpu"), "/kind", "one of \"fpga\"",
               "string \"gpu\"");
  const std::string path = write_doc("fpga.json", base_doc().patch(op("add", "/kind", "fpga")).dump());
  EXPECT_EQ(load_device_spec(path).name, "board");
}

TEST(DeviceSpecLoader, BadJsonSyntaxGivesTheLine) {
  const std::string path =
      write_doc("syntax.json", "{\n  \"name\": \"x\",\n  \"part\": \"p\"\n  \"slrs\": 2\n}\n");
  try {
    load_device_spec(path);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.pointer(), "");
    EXPECT_EQ(e.expected(), "valid JSON");
    EXPECT_NE(e.found().find("line 4"), std::string::npos) << e.found();
  }
}

std::vector<std::string> json_files(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() > 5 && n.substr(n.size() - 5) == ".json") out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  return out;
}

TEST(DeviceSpecRoundTrip, EveryShippedFpgaConfigRoundTripsThroughToJson) {
  const auto files = json_files("configs/devices");
  int fpga = 0;
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const Json raw = load_json_file(f);
    if (raw.value("kind", std::string("fpga")) != "fpga") {
      // A GPU baseline (models/gpu): the FPGA loader rejects it at /kind.
      EXPECT_THROW(load_device_spec(f), ConfigError);
      continue;
    }
    ++fpga;
    const DeviceSpec d = load_device_spec(f);
    const std::string path = write_doc("roundtrip.json", d.to_json().dump(2));
    const DeviceSpec e = load_device_spec(path);
    EXPECT_EQ(e.to_json(), d.to_json());
    EXPECT_EQ(e.bram36, d.bram36);
    EXPECT_EQ(e.uram288, d.uram288);
    EXPECT_EQ(e.dsp, d.dsp);
    EXPECT_EQ(e.part, d.part);
    EXPECT_EQ(e.write_latency, d.write_latency);
    // Every operator of the kernel specification's chains (kernel_spec.h kOprNames
    // besides the memory accesses read / write) is defined.
    for (const char* needed : {"fadd", "fmul", "fdiv", "fexp", "flog", "fsqrt", "fcmp"}) {
      EXPECT_NO_THROW(d.op(needed)) << needed;
    }
    EXPECT_EQ(e.float_ops.size(), d.float_ops.size());
    for (const auto& [name, o] : d.float_ops) {
      EXPECT_EQ(e.op(name).latency_by_clock, o.latency_by_clock) << name;
      // Every operator has a latency at every clock the device accepts.
      EXPECT_NO_THROW(o.latency_at(d.max_clock_mhz)) << name;
    }
  }
  EXPECT_GE(fpga, 2);  // u50 and another board
}

TEST(DeviceSpec, EqualityComparesEveryField) {
  const DeviceSpec a = load_device_spec("configs/devices/u50.json");
  EXPECT_TRUE(a == load_device_spec("configs/devices/u50.json"));
  std::vector<void (*)(DeviceSpec&)> edits = {
      [](DeviceSpec& x) { x.name += "x"; },
      [](DeviceSpec& x) { x.source_file += "x"; },
      [](DeviceSpec& x) { x.part += "x"; },
      [](DeviceSpec& x) { x.platform += "x"; },
      [](DeviceSpec& x) { x.bram36 += 1; },
      [](DeviceSpec& x) { x.uram288 += 1; },
      [](DeviceSpec& x) { x.dsp += 1; },
      [](DeviceSpec& x) { x.lut += 1; },
      [](DeviceSpec& x) { x.ff += 1; },
      [](DeviceSpec& x) { x.slrs += 1; },
      [](DeviceSpec& x) { x.default_clock_mhz += 1; },
      [](DeviceSpec& x) { x.max_clock_mhz += 1; },
      [](DeviceSpec& x) { x.achievable_clock_mhz += 1; },
      [](DeviceSpec& x) { x.multi_slr_clock_mhz += 1; },
      [](DeviceSpec& x) { x.int_mul32_dsp += 1; },
      [](DeviceSpec& x) { x.card_idle_watts += 1; },
      [](DeviceSpec& x) { x.card_max_watts += 1; },
      [](DeviceSpec& x) { x.bram_read_latency += 1; },
      [](DeviceSpec& x) { x.uram_read_latency += 1; },
      [](DeviceSpec& x) { x.write_latency += 1; },
      [](DeviceSpec& x) { x.uram_cascade_height += 1; },
      [](DeviceSpec& x) { x.float_ops.begin()->second.dsp += 1; },
      [](DeviceSpec& x) { x.float_ops.begin()->second.latency_by_clock.front().second += 1; },
      [](DeviceSpec& x) { x.float_ops.erase(x.float_ops.begin()); },
      [](DeviceSpec& x) { x.power.static_watts += 1; },
      [](DeviceSpec& x) { x.power.dsp_watts_per_mhz += 1; },
      [](DeviceSpec& x) { x.power.bram36_watts_per_mhz += 1; },
      [](DeviceSpec& x) { x.power.uram_watts_per_mhz += 1; },
      [](DeviceSpec& x) { x.power.logic_watts_per_kilolut_mhz += 1; },
      [](DeviceSpec& x) { x.power.clock_watts_per_kilolut_mhz += 1; },
      [](DeviceSpec& x) { x.power.source += "x"; },
  };
  for (std::size_t i = 0; i < edits.size(); ++i) {
    DeviceSpec b = a;
    edits[i](b);
    EXPECT_FALSE(a == b) << "edit " << i;
    EXPECT_TRUE(a != b) << "edit " << i;
  }
}

// One clock rule for simulate, memplan and emit: above the device's last latency entry is an
// input error naming where the clock came from and the device's limit.
TEST(DeviceSpec, ClockAboveTheDevicesMaximumIsRefusedNamingBoth) {
  const DeviceSpec d = load_device_spec("configs/devices/u50.json");
  EXPECT_NO_THROW(check_clock_within_device(d.max_clock_mhz, d, "a.json: /clock_mhz", "u50.json"));
  try {
    check_clock_within_device(600, d, "chosen.json: /configs/arch/clock_mhz", "/configs/device/clocks/max_mhz");
    ADD_FAILURE() << "600 MHz accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("chosen.json: /configs/arch/clock_mhz: expected at most the device's 500 MHz "
                                         "(/configs/device/clocks/max_mhz), found 600"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ttsim
