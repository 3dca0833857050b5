#include "hls/reports/latency_fit.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "core/errors.h"

namespace ttsim::hls {

namespace {

void collect_pipelined(const std::vector<LoopReport>& loops, const std::string& source,
                       std::vector<std::int64_t>& trips) {
  for (const auto& l : loops) {
    if (l.pipelined()) {
      if (!l.trip_count.is_exact()) {
        throw InputError(source + ": loop " + l.name + ": trip count " + l.trip_count.str() +
                         " is not an exact number; cannot fit");
      }
      trips.push_back(*l.trip_count.min);
    }
    collect_pipelined(l.loops, source, trips);
  }
}

}  // namespace

double KernelLatencyFit::predict(const std::vector<std::int64_t>& trips) const {
  double s = overhead;
  for (auto t : trips) s += static_cast<double>(t - 1) * ii + depth;
  return s;
}

LatencySample sample_from_report(const CsynthReport& report, const std::string& module) {
  LatencySample s;
  s.source = report.source;
  const Count* latency = nullptr;
  const std::vector<LoopReport>* loops = nullptr;
  if (const ModuleReport* m = report.module(module)) {
    latency = &m->latency_worst;
    loops = &m->loops;
  } else if (report.modules.empty() && report.top == module) {
    latency = &report.latency_worst;
    loops = &report.loops;
  } else {
    throw InputError(report.source + ": module " + module + " not found");
  }
  if (!latency->is_exact()) {
    throw InputError(report.source + ": module " + module + ": latency " + latency->str() +
                     " is not an exact number; cannot fit");
  }
  s.latency = static_cast<double>(*latency->max);
  collect_pipelined(*loops, report.source, s.trips);
  if (s.trips.empty()) throw InputError(report.source + ": module " + module + ": no pipelined loop");
  return s;
}

KernelLatencyFit fit_kernel_latency(const std::vector<LatencySample>& samples) {
  std::string sources;
  for (const auto& s : samples) sources += (sources.empty() ? "" : ", ") + s.source;
  if (samples.size() < 3) {
    throw InputError("latency fit needs at least 3 reports of the kernel, found " +
                     std::to_string(samples.size()) + " (" + sources + ")");
  }
  const auto n = static_cast<Eigen::Index>(samples.size());
  Eigen::MatrixXd a(n, 3);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& s = samples[static_cast<std::size_t>(i)];
    double iters = 0;
    for (auto t : s.trips) iters += static_cast<double>(t - 1);
    a(i, 0) = iters;
    a(i, 1) = static_cast<double>(s.trips.size());
    a(i, 2) = s.invocations;
    b(i) = s.latency;
  }
  // Scale columns so the rank test is not dominated by the large iteration column.
  Eigen::Vector3d scale = a.colwise().norm().transpose();
  for (int c = 0; c < 3; ++c) if (scale(c) > 0) a.col(c) /= scale(c);
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  qr.setThreshold(1e-9);
  if (qr.rank() < 3) {
    throw InputError("latency fit: II, depth and overhead are not separable from these reports "
                     "(they need different total iterations and different loop counts): " + sources);
  }
  Eigen::Vector3d x = qr.solve(b);
  for (int c = 0; c < 3; ++c) if (scale(c) > 0) x(c) /= scale(c);
  KernelLatencyFit f;
  f.ii = x(0);
  f.depth = x(1);
  f.overhead = x(2);
  f.samples = static_cast<int>(samples.size());
  for (const auto& s : samples) {
    const double predicted = f.predict(s.trips) - (1.0 - s.invocations) * f.overhead;
    f.max_abs_residual = std::max(f.max_abs_residual, std::fabs(predicted - s.latency));
  }
  return f;
}

}  // namespace ttsim::hls
