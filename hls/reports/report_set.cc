#include "hls/reports/report_set.h"

#include <algorithm>
#include <filesystem>

#include "core/errors.h"

namespace ttsim::hls {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void read_one(const std::string& p, ReportKind kind, ReportSet& out) {
  out.files.emplace_back(p, kind);
  switch (kind) {
    case ReportKind::kCsynthXml: out.csynth.push_back(read_csynth_xml(p)); break;
    case ReportKind::kExportImplXml: out.export_impl.push_back(read_export_impl_xml(p)); break;
    case ReportKind::kCosimRpt: out.cosim.push_back(read_cosim_rpt(p)); break;
    case ReportKind::kUtilizationRpt:
    case ReportKind::kPowerRpt:
      try {
        if (kind == ReportKind::kPowerRpt) {
          out.power.push_back(read_power_rpt(p));
        } else {
          out.utilization.push_back(read_utilization_rpt(p));
        }
      } catch (const InputError& e) {
        out.rejected.emplace_back(p, e.what());
      }
      break;
    case ReportKind::kOther: out.not_read.push_back(p); break;
  }
}

}  // namespace

const char* describe(ReportKind kind) {
  switch (kind) {
    case ReportKind::kCsynthXml: return "csynth.xml";
    case ReportKind::kExportImplXml: return "export_impl.xml";
    case ReportKind::kCosimRpt: return "cosim report";
    case ReportKind::kUtilizationRpt: return "report_utilization";
    case ReportKind::kPowerRpt: return "report_power";
    case ReportKind::kOther: break;
  }
  return "not a report kind";
}

ReportKind classify_report_file(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  if (ends_with(name, "csynth.xml")) return ReportKind::kCsynthXml;
  if (name == "export_impl.xml") return ReportKind::kExportImplXml;
  if (ends_with(name, "_cosim.rpt")) return ReportKind::kCosimRpt;
  if (ends_with(name, ".rpt") && name.find("utilization") != std::string::npos)
    return ReportKind::kUtilizationRpt;
  if (ends_with(name, ".rpt") && name.find("power") != std::string::npos) return ReportKind::kPowerRpt;
  return ReportKind::kOther;
}

ReportSet read_reports(const std::string& path) {
  ReportSet out;
  std::error_code ec;
  auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path + ": no such file or folder");
  if (fs::is_regular_file(st)) {
    ReportKind k = classify_report_file(path);
    if (k == ReportKind::kOther) {
      throw InputError(path + ": not a known report file (expected *csynth.xml, export_impl.xml, "
                       "*_cosim.rpt, *utilization*.rpt or *power*.rpt)");
    }
    read_one(path, k, out);
    return out;
  }
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file()) files.push_back(it->path().string());
  }
  if (ec) throw InputError(path + ": cannot list folder: " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) read_one(f, classify_report_file(f), out);
  return out;
}

}  // namespace ttsim::hls
