#include "tests/hls/calibration/synthetic_reports.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "hw/loop_nest.h"
#include "hls/reports/latency_rules.h"

namespace ttsim::testing {
namespace {

std::string count(std::int64_t lo, std::int64_t hi) {
  return lo == hi ? std::to_string(hi) : fmt::format("<range><min>{}</min><max>{}</max></range>", lo, hi);
}

std::vector<std::int64_t> best_trips(const SyntheticKernel& k) { return k.min_trips.empty() ? k.trips : k.min_trips; }

void write(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << text;
}

}  // namespace

std::int64_t hls_loop_latency(std::int64_t trip, int ii, int depth) {
  return hls::pipelined_loop_latency(trip, ii, depth, hls::RuleSet::kHlsStates);
}

std::int64_t hls_module_latency(const SyntheticKernel& k, const std::vector<std::int64_t>& trips) {
  std::int64_t l = 1;
  for (std::size_t i = 0; i < trips.size(); ++i) {
    if (trips[i] > 0) l += hls_loop_latency(trips[i], k.iis[i], k.depths[i]) + 2 + 1;
  }
  return l;
}

void write_kernel_report(const std::string& path, const SyntheticKernel& k) {
  const std::vector<LoopSpec> specs = all_kernel_loops(k.op, k.lanes);
  if (specs.size() != k.trips.size() || specs.size() != k.depths.size() || specs.size() != k.iis.size() ||
      (!k.min_trips.empty() && specs.size() != k.min_trips.size())) {
    throw std::invalid_argument("write_kernel_report: one trip, II and depth per loop of the kernel");
  }
  const auto lo = best_trips(k);
  const std::int64_t best = hls_module_latency(k, lo), worst = hls_module_latency(k, k.trips);
  const double ns = k.clock_ns;
  auto timing = [&](double est) {
    return fmt::format("<SummaryOfTimingAnalysis><TargetClockPeriod>{:.2f}</TargetClockPeriod><ClockUncertainty>{:.2f}"
                       "</ClockUncertainty><EstimatedClockPeriod>{:.3f}</EstimatedClockPeriod></SummaryOfTimingAnalysis>",
                       ns, 0.27 * ns, est);
  };
  auto overall = [&](std::int64_t b, std::int64_t w) {
    return fmt::format("<SummaryOfOverallLatency><Best-caseLatency>{0}</Best-caseLatency><Average-caseLatency>{1}"
                       "</Average-caseLatency><Worst-caseLatency>{1}</Worst-caseLatency><Best-caseRealTimeLatency>"
                       "{2:.3f} us</Best-caseRealTimeLatency><Average-caseRealTimeLatency>{3:.3f} us"
                       "</Average-caseRealTimeLatency><Worst-caseRealTimeLatency>{3:.3f} us</Worst-caseRealTimeLatency>"
                       "<PipelineInitiationInterval>{4}</PipelineInitiationInterval><PipelineType>no</PipelineType>"
                       "</SummaryOfOverallLatency>",
                       b, w, b * ns / 1000, w * ns / 1000, w + 1);
  };
  auto resources = [&](int dsp) {
    return fmt::format("<AreaEstimates><Resources><FF>{0}</FF><AVAIL_FF>1743360</AVAIL_FF><UTIL_FF>~0</UTIL_FF>"
                       "<LUT>{1}</LUT><AVAIL_LUT>871680</AVAIL_LUT><UTIL_LUT>~0</UTIL_LUT><BRAM_18K>0</BRAM_18K>"
                       "<AVAIL_BRAM>2688</AVAIL_BRAM><UTIL_BRAM>0</UTIL_BRAM><DSP>{2}</DSP><AVAIL_DSP>5952</AVAIL_DSP>"
                       "<UTIL_DSP>~0</UTIL_DSP><URAM>0</URAM><AVAIL_URAM>640</AVAIL_URAM><UTIL_URAM>0</UTIL_URAM>"
                       "</Resources></AreaEstimates>",
                       100 + 50 * dsp, 200 + 80 * dsp, dsp);
  };
  std::string modules, instances;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (k.trips[i] <= 0) continue;  // the module does not hold this loop
    const std::string& loop = specs[i].name;
    const std::string pm = k.module + "_Pipeline_" + loop;
    const std::int64_t lb = hls_loop_latency(lo[i], k.iis[i], k.depths[i]),
                       lw = hls_loop_latency(k.trips[i], k.iis[i], k.depths[i]);
    std::string binds;
    int n = 0, bind_dsp = 0;  // the _Pipeline_ module reports the DSPs its BindNodes declare
    for (const std::string& op : specs[i].chain) {
      auto it = k.bind_latency.find(op);
      if (it == k.bind_latency.end()) continue;
      const std::string impl = op == "fadd" ? "fulldsp" : op == "fmul" ? "maxdsp" : "fabric";
      bind_dsp += op == "fadd" ? 2 : op == "fmul" ? 3 : 0;
      binds += fmt::format("<BindNode BINDTYPE=\"op\" BRAM=\"0\" BUNDLEDNAME=\"\" DISPNAME=\"bind_op {0}\" DSP=\"{1}\" "
                           "ID=\"\" IMPL=\"{2}\" LATENCY=\"{3}\" LOOP=\"{4}\" OPTYPE=\"{0}\" PRAGMA=\"\" "
                           "RTLNAME=\"{0}_32ns_32ns_32_{5}_{2}_1_U{6}\" SOURCE=\"hls/kernels/row_reduce.h:1\" "
                           "STORAGESUBTYPE=\"\" URAM=\"0\" VARIABLE=\"{0}{6}\"/>",
                           op, op == "fadd" ? 2 : op == "fmul" ? 3 : 0, impl, it->second, loop, it->second + 1, n++);
    }
    modules += fmt::format(
        "<Module><Name>{0}</Name><Loops><{1}/></Loops><PerformanceEstimates>{2}{3}<SummaryOfLoopLatency><{1}>"
        "<Name>{1}</Name><Slack>1.20</Slack><TripCount>{4}</TripCount><Latency>{5}</Latency><AbsoluteTimeLatency>"
        "{6:.3f} us</AbsoluteTimeLatency><PipelineII>{7}</PipelineII><PipelineDepth>{8}</PipelineDepth>"
        "<PipelineType>yes</PipelineType><InstanceList/></{1}></SummaryOfLoopLatency></PerformanceEstimates>{9}"
        "<BindNodes>{10}</BindNodes></Module>\n",
        pm, loop, timing(7.3), overall(lb + 2, lw + 2), count(lo[i], k.trips[i]), count(lb, lw), lw * ns / 1000, k.iis[i],
        k.depths[i], resources(bind_dsp), binds);
    instances += fmt::format("<Instance><InstName>grp_{0}_fu_{1}</InstName><ModuleName>{0}</ModuleName><IsCompInst>"
                             "true</IsCompInst><ID>{1}</ID><BindInstances>add_ln{1}_fu_{1}_p2</BindInstances>"
                             "</Instance>",
                             pm, 100 + i);
  }
  modules += fmt::format("<Module><Name>{0}</Name><PerformanceEstimates>{1}{2}</PerformanceEstimates>{3}"
                         "<BindNodes/></Module>\n",
                         k.module, timing(7.3), overall(best, worst), resources(k.dsp));
  const std::string xml = fmt::format(R"(<profile>
<!-- synthetic report written by the ttsim test helper (tests/hls/calibration) from known parameters; not a Vitis HLS output -->
<ReportVersion><Version>2023.2</Version></ReportVersion>
<UserAssignments><unit>ns</unit><ProductFamily>virtexuplusHBM</ProductFamily><Part>{0}</Part><TopModelName>{1}</TopModelName><TargetClockPeriod>{2:.2f}</TargetClockPeriod><ClockUncertainty>{3:.2f}</ClockUncertainty><FlowTarget>vitis</FlowTarget></UserAssignments>
<PerformanceEstimates><PipelineType>no</PipelineType><SummaryOfTimingAnalysis><unit>ns</unit><EstimatedClockPeriod>7.300</EstimatedClockPeriod></SummaryOfTimingAnalysis>
<SummaryOfOverallLatency><unit>clock cycles</unit><Best-caseLatency>{4}</Best-caseLatency><Average-caseLatency>{5}</Average-caseLatency><Worst-caseLatency>{5}</Worst-caseLatency><Best-caseRealTimeLatency>{6:.3f} us</Best-caseRealTimeLatency><Average-caseRealTimeLatency>{7:.3f} us</Average-caseRealTimeLatency><Worst-caseRealTimeLatency>{7:.3f} us</Worst-caseRealTimeLatency><Interval-min>{8}</Interval-min><Interval-max>{9}</Interval-max></SummaryOfOverallLatency>
<SummaryOfViolations><IssueType>-</IssueType><ViolationType>-</ViolationType><SourceLocation>hls/kernels/modules.cc:1</SourceLocation></SummaryOfViolations></PerformanceEstimates>
<AreaEstimates><Resources><BRAM_18K>0</BRAM_18K><DSP>{10}</DSP><FF>{11}</FF><LUT>{12}</LUT><URAM>0</URAM></Resources><AvailableResources><BRAM_18K>2688</BRAM_18K><DSP>5952</DSP><FF>1743360</FF><LUT>871680</LUT><URAM>640</URAM></AvailableResources></AreaEstimates>
<InterfaceSummary><RtlPorts><name>ap_clk</name><Object>{1}</Object><Type>return value</Type><Scope/><IOProtocol>ap_ctrl_hs</IOProtocol><IOConfig/><Dir>in</Dir><Bits>1</Bits><Attribute>control</Attribute><CType>int</CType></RtlPorts></InterfaceSummary>
<RTLDesignHierarchy><TopModule MAX_DEPTH="1"><ModuleName>{1}</ModuleName><InstancesList>{13}</InstancesList><BindInstances/></TopModule></RTLDesignHierarchy>
<ModuleInformation>
{14}</ModuleInformation>
</profile>
)",
                                      k.part, k.module, ns, 0.27 * ns, best, worst, best * ns / 1000, worst * ns / 1000,
                                      best + 1, worst + 1, k.dsp, 100 + 50 * k.dsp, 200 + 80 * k.dsp, instances, modules);
  write(path, xml);
}

void write_power_pair(const std::string& dir, const SyntheticPower& p) {
  const double dynamic = p.dsp_w + p.bram_w + p.uram_w + p.logic_w + p.signals_w + p.clocks_w;
  std::string rows = fmt::format("| Clocks                  | {:9.3f} |        3 |       --- |             --- |\n"
                                 "| CLB Logic               | {:9.3f} | {:8} |       --- |             --- |\n"
                                 "|   LUT as Logic          | {:9.3f} | {:8} |    871680 |            0.71 |\n"
                                 "| Signals                 | {:9.3f} | {:8} |       --- |             --- |\n",
                                 p.clocks_w, p.logic_w, p.luts, p.logic_w, p.luts, p.signals_w, p.luts);
  if (p.bram_tiles > 0) rows += fmt::format("| Block RAM               | {:9.3f} | {:8} |      1344 |            1.00 |\n", p.bram_w, p.bram_tiles);
  if (p.uram > 0) rows += fmt::format("| URAM                    | {:9.3f} | {:8} |       640 |            1.00 |\n", p.uram_w, p.uram);
  if (p.dsp > 0) rows += fmt::format("| DSPs                    | {:9.3f} | {:8} |      5952 |            0.55 |\n", p.dsp_w, p.dsp);
  write(dir + "/design_power_routed.rpt", fmt::format(R"(Synthetic report_power written by the ttsim test helper from known coefficients; not a Vivado output.
------------------------------------------------------------------------------------
| Tool Version     : Vivado v.2023.2 (lin64) Build 4029153 Fri Oct 13 20:13:54 MDT 2023
| Command          : report_power -file design_power_routed.rpt
| Design           : bd_0_wrapper
| Device           : {0}
| Design State     : routed
------------------------------------------------------------------------------------

1. Summary
----------

+--------------------------+--------------+
| Total On-Chip Power (W)  | {1:.3f}        |
| Dynamic (W)              | {2:.3f}        |
| Device Static (W)        | {3:.3f}        |
| Confidence Level         | Medium       |
+--------------------------+--------------+


1.1 On-Chip Components
----------------------

+-------------------------+-----------+----------+-----------+-----------------+
| On-Chip                 | Power (W) | Used     | Available | Utilization (%) |
+-------------------------+-----------+----------+-----------+-----------------+
{4}| Static Power            | {3:9.3f} |          |           |                 |
| Total                   | {1:9.3f} |          |           |                 |
+-------------------------+-----------+----------+-----------+-----------------+


2.2 Clock Constraints
---------------------

+--------+--------+-----------------+
| Clock  | Domain | Constraint (ns) |
+--------+--------+-----------------+
| ap_clk | ap_clk | {5:15.1f} |
+--------+--------+-----------------+

)",
                                                       p.part, dynamic + p.static_w, dynamic, p.static_w, rows, p.clock_ns));
  write(dir + "/design_utilization_placed.rpt", fmt::format(R"(Synthetic report_utilization written by the ttsim test helper; not a Vivado output.
------------------------------------------------------------------------------------
| Tool Version : Vivado v.2023.2 (lin64) Build 4029153 Fri Oct 13 20:13:54 MDT 2023
| Design       : bd_0_wrapper
| Device       : {0}
| Design State : Fully Placed
------------------------------------------------------------------------------------

+----------------------------+------+-------+------------+-----------+-------+
|          Site Type         | Used | Fixed | Prohibited | Available | Util% |
+----------------------------+------+-------+------------+-----------+-------+
| CLB LUTs                   | {1} |     0 |          0 |    871680 |  0.71 |
| CLB Registers              | {2} |     0 |          0 |   1743360 |  0.23 |
+----------------------------+------+-------+------------+-----------+-------+

+----------------+------+-------+------------+-----------+-------+
|    Site Type   | Used | Fixed | Prohibited | Available | Util% |
+----------------+------+-------+------------+-----------+-------+
| Block RAM Tile | {3} |     0 |          0 |      1344 |  0.00 |
|   RAMB36/FIFO* | {3} |     0 |          0 |      1344 |  0.00 |
|   RAMB18       |    0 |     0 |          0 |      2688 |  0.00 |
| URAM           | {4} |     0 |          0 |       640 |  0.00 |
+----------------+------+-------+------------+-----------+-------+

+----------------+------+-------+------------+-----------+-------+
|    Site Type   | Used | Fixed | Prohibited | Available | Util% |
+----------------+------+-------+------------+-----------+-------+
| DSPs           | {5} |     0 |          0 |      5952 |  0.55 |
+----------------+------+-------+------------+-----------+-------+
)",
                                                              p.part, p.luts, p.luts, p.bram_tiles, p.uram, p.dsp));
}

OperatorLatencies SyntheticTruth::latencies() const {
  OperatorLatencies l;
  l.fill(1);
  for (int op = 0; op < ttsim_spec::kOprCount; ++op) {
    auto it = bind_latency.find(ttsim_spec::kOprNames[op]);
    if (it != bind_latency.end()) l[op] = it->second;
  }
  l[ttsim_spec::kRead] = read_latency;
  l[ttsim_spec::kWrite] = write_latency;
  return l;
}

std::vector<int> SyntheticTruth::depths(TaskOp op) const {
  std::vector<int> d;
  const ttsim_spec::KernelSpec& k = kernel_spec(op);
  for (int i = 0; i < k.n_loops; ++i) d.push_back(loop_timing(k.loops[i], latencies(), lanes.at(op)).depth + extra_depth);
  return d;
}

std::vector<int> SyntheticTruth::iis(TaskOp op) const {
  std::vector<int> v;
  const ttsim_spec::KernelSpec& k = kernel_spec(op);
  for (int i = 0; i < k.n_loops; ++i) v.push_back(loop_timing(k.loops[i], latencies(), lanes.at(op)).ii + extra_ii);
  return v;
}

std::vector<std::int64_t> spec_trips(TaskOp op, const TaskShape& shape, int lanes) {
  std::vector<std::int64_t> t;
  const ttsim_spec::KernelSpec& k = kernel_spec(op);
  for (int i = 0; i < k.n_loops; ++i) {
    TaskShape s = shape;
    const int v = k.loops[i].variant;
    if (v >= 0) s.variant = op == TaskOp::kContraction ? (v | (shape.variant & ttsim_spec::kContractReduceBatch)) : v;
    t.push_back(loop_trip(k.loops[i], s, lanes));
  }
  return t;
}

std::vector<SyntheticKernel> write_synthetic_set(const std::string& dir, const std::string& part, double clock_ns,
                                                 const SyntheticTruth& truth) {
  struct Shape {
    const char* module;
    TaskOp op;
    TaskShape worst, best;  // best.batch == 0: exact
    int dsp;
  };
  const Shape shapes[] = {
      {"ttsim_contraction", TaskOp::kContraction, {1, 32, 768, 12}, {0}, 320},
      {"ttsim_contraction", TaskOp::kContraction, {1, 64, 96, 128}, {0}, 320},
      {"ttsim_contraction", TaskOp::kContraction, {2, 12, 8, 96}, {0}, 320},
      {"ttsim_contraction", TaskOp::kContraction, {1, 32, 64, 768}, {0}, 320},
      {"ttsim_softmax", TaskOp::kSoftmax, {12, 32, 1, 32}, {0}, 112},
      {"ttsim_softmax", TaskOp::kSoftmax, {1, 64, 1, 64}, {0}, 112},
      {"ttsim_softmax", TaskOp::kSoftmax, {4, 32, 1, 128}, {0}, 112},
      {"ttsim_softmax", TaskOp::kSoftmax, {12, 32, 1, 32}, {1, 32, 1, 32}, 112},
      {"ttsim_layernorm", TaskOp::kLayerNorm, {1, 32, 1, 768}, {0}, 80},
      {"ttsim_layernorm", TaskOp::kLayerNorm, {1, 8, 1, 768}, {0}, 80},
      {"ttsim_layernorm", TaskOp::kLayerNorm, {1, 64, 1, 96}, {0}, 80},
  };
  std::vector<SyntheticKernel> out;
  int i = 0;
  for (const Shape& s : shapes) {
    SyntheticKernel k;
    k.module = s.module;
    k.op = s.op;
    k.lanes = truth.lanes.at(s.op);
    k.trips = spec_trips(s.op, s.worst, k.lanes);
    if (s.best.batch > 0) k.min_trips = spec_trips(s.op, s.best, k.lanes);
    k.iis = truth.iis(s.op);
    k.depths = truth.depths(s.op);
    k.dsp = s.dsp;
    k.bind_latency = truth.bind_latency;
    k.part = part;
    k.clock_ns = clock_ns;
    const std::string folder = fmt::format("{}/{}_{}/syn/report", dir, s.module, i++);
    std::filesystem::create_directories(folder);
    write_kernel_report(folder + "/csynth.xml", k);
    out.push_back(k);
  }
  return out;
}

}  // namespace ttsim::testing
