// Writes the standard synthetic csynth report set (tests/hls/calibration/
// synthetic_reports.h) and one synthetic report_power / report_utilization pair (in
// ttsim_contraction_0/impl: the implementation of one ttsim build) into a folder, for
// the end-to-end CLI test and for demonstrating calibrate / compare. The files are
// synthetic (written from known parameters), not Vitis or Vivado outputs.
//
// usage: write_synthetic_reports OUT_DIR [PART] [CLOCK_NS]

#include <filesystem>
#include <iostream>
#include <string>

#include "tests/hls/calibration/synthetic_reports.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: write_synthetic_reports OUT_DIR [PART] [CLOCK_NS]\n";
    return 2;
  }
  const std::string dir = argv[1];
  const std::string part = argc > 2 ? argv[2] : "xcu50-fsvh2104-2-e";
  const double clock_ns = argc > 3 ? std::stod(argv[3]) : 10.0;
  const auto kernels = ttsim::testing::write_synthetic_set(dir, part, clock_ns);
  ttsim::testing::SyntheticPower p;
  p.part = part;
  p.clock_ns = clock_ns;
  p.dsp = 3024;
  p.bram_tiles = 900;
  p.uram = 200;
  p.luts = 400000;
  // Watts from known coefficients: DSP 7e-6, BRAM36 8.4e-6, URAM 2.5e-5 W/MHz;
  // logic 1.7e-4 (CLB logic 60 %, signals 40 %), clock 4.2e-5 W per kLUT and MHz.
  const double f = 1000.0 / clock_ns;
  p.dsp_w = 7e-6 * p.dsp * f;
  p.bram_w = 8.4e-6 * p.bram_tiles * f;
  p.uram_w = 2.5e-5 * p.uram * f;
  p.logic_w = 0.6 * 1.7e-4 * 400 * f;
  p.signals_w = 0.4 * 1.7e-4 * 400 * f;
  p.clocks_w = 4.2e-5 * 400 * f;
  // Beside one ttsim build (a report_power is tied to the design of the single build in
  // its folder tree).
  const std::string impl = dir + "/ttsim_contraction_0/impl";
  std::filesystem::create_directories(impl);
  ttsim::testing::write_power_pair(impl, p);
  std::cout << "wrote " << kernels.size() << " synthetic csynth reports and 1 power/utilization pair under " << dir
            << " (synthetic: not Vitis/Vivado outputs)\n";
  return 0;
}
