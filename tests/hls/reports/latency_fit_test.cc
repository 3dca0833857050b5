// Fitting test: csynth.xml reports written by a helper in the real Vitis HLS 2023.2
// schema (ModuleInformation) from known II / depth / overhead are read back with the
// reader and fitted back to those parameters.

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "hls/reports/csynth.h"
#include "hls/reports/latency_fit.h"

namespace ttsim::hls {
namespace {

// Writes a csynth.xml whose module `name` has one pipelined loop per entry of `trips`
// and the latency Σ((trip − 1)·II + depth) + overhead.
std::string write_report(const std::string& file, const std::string& name,
                         const std::vector<std::int64_t>& trips, int ii, int depth, int overhead) {
  std::int64_t latency = overhead;
  std::string loops;
  for (std::size_t i = 0; i < trips.size(); ++i) {
    const std::int64_t l = (trips[i] - 1) * ii + depth;
    latency += l;
    loops += fmt::format(
        "<contract_{0}><Name>contract_{0}</Name><Slack>0.5</Slack><TripCount>{1}</TripCount>"
        "<Latency>{2}</Latency><AbsoluteTimeLatency>{2}0 ns</AbsoluteTimeLatency>"
        "<PipelineII>{3}</PipelineII><PipelineDepth>{4}</PipelineDepth>"
        "<PipelineType>yes</PipelineType><InstanceList/></contract_{0}>",
        i, trips[i], l, ii, depth);
  }
  const std::string xml = fmt::format(R"(<profile>
<ReportVersion><Version>2023.2</Version></ReportVersion>
<UserAssignments><unit>ns</unit><ProductFamily>virtexuplusHBM</ProductFamily><Part>xcu50-fsvh2104-2-e</Part>
<TopModelName>{0}</TopModelName><TargetClockPeriod>3.33</TargetClockPeriod><ClockUncertainty>0.90</ClockUncertainty><FlowTarget>vitis</FlowTarget></UserAssignments>
<PerformanceEstimates><PipelineType>no</PipelineType><SummaryOfTimingAnalysis><unit>ns</unit><EstimatedClockPeriod>2.433</EstimatedClockPeriod></SummaryOfTimingAnalysis>
<SummaryOfOverallLatency><unit>clock cycles</unit><Best-caseLatency>{1}</Best-caseLatency><Average-caseLatency>{1}</Average-caseLatency><Worst-caseLatency>{1}</Worst-caseLatency>
<Interval-min>{2}</Interval-min><Interval-max>{2}</Interval-max></SummaryOfOverallLatency><SummaryOfLoopLatency/></PerformanceEstimates>
<AreaEstimates><Resources><DSP>5</DSP><FF>100</FF><LUT>200</LUT><BRAM_18K>2</BRAM_18K><URAM>0</URAM></Resources></AreaEstimates>
<ModuleInformation><Module><Name>{0}</Name><Loops/><PerformanceEstimates>
<SummaryOfTimingAnalysis><TargetClockPeriod>3.33</TargetClockPeriod><ClockUncertainty>0.90</ClockUncertainty><EstimatedClockPeriod>2.433</EstimatedClockPeriod></SummaryOfTimingAnalysis>
<SummaryOfOverallLatency><Best-caseLatency>{1}</Best-caseLatency><Average-caseLatency>{1}</Average-caseLatency><Worst-caseLatency>{1}</Worst-caseLatency>
<PipelineInitiationInterval>{2}</PipelineInitiationInterval><PipelineType>no</PipelineType></SummaryOfOverallLatency>
<SummaryOfLoopLatency>{3}</SummaryOfLoopLatency></PerformanceEstimates>
<AreaEstimates><Resources><DSP>5</DSP><AVAIL_DSP>5952</AVAIL_DSP><UTIL_DSP>~0</UTIL_DSP></Resources></AreaEstimates><BindNodes/></Module></ModuleInformation>
</profile>
)",
                                      name, latency, latency + 1, loops);
  std::ofstream(file) << xml;
  return file;
}

std::string tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  return std::string(d ? d : "/tmp") + "/" + name;
}

TEST(LatencyFit, RecoversKnownParametersFromWrittenReports) {
  const int ii = 2, depth = 11, overhead = 7;
  const std::vector<std::vector<std::int64_t>> shapes = {
      {1024}, {512, 512}, {96, 4096, 33}, {2048}, {300, 17, 1000, 64}, {8, 8}};
  std::vector<LatencySample> samples;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const auto path = write_report(tmp(fmt::format("rank{}_csynth.xml", i)), "tt_contract_Pipeline_contract",
                                   shapes[i], ii, depth, overhead);
    samples.push_back(sample_from_report(read_csynth_xml(path), "tt_contract_Pipeline_contract"));
    EXPECT_EQ(samples.back().trips, shapes[i]);
  }
  const KernelLatencyFit f = fit_kernel_latency(samples);
  EXPECT_NEAR(f.ii, ii, 0.01 * ii);
  EXPECT_NEAR(f.depth, depth, 0.01 * depth);
  EXPECT_NEAR(f.overhead, overhead, 0.01 * overhead);
  EXPECT_LT(f.max_abs_residual, 1e-6);
  EXPECT_NEAR(f.predict({100, 200}), 99 * 2 + 199 * 2 + 2 * 11 + 7, 1e-6);
}

TEST(LatencyFit, RefusesInseparableOrTooFewSamples) {
  std::vector<LatencySample> same_loop_count = {
      {"a", {10}, 100}, {"b", {20}, 120}, {"c", {40}, 160}};
  EXPECT_THROW(fit_kernel_latency(same_loop_count), InputError);
  EXPECT_THROW(fit_kernel_latency({{"a", {10}, 100}, {"b", {20, 3}, 140}}), InputError);
  const auto path = write_report(tmp("one_csynth.xml"), "k", {16}, 1, 3, 2);
  EXPECT_THROW(sample_from_report(read_csynth_xml(path), "other_module"), InputError);
}

}  // namespace
}  // namespace ttsim::hls
