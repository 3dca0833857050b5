#pragma once
// What a csynth report says it is, checked against itself, and the per-module files of one
// build grouped under their design's top. Identity: the top (TopModelName against the file
// name "<m>_csynth.xml", RTLDesignHierarchy's top module and ModuleInformation), the part,
// the target clock and the tool version. Grouping uses the hierarchy the reports print
// (RTLDesignHierarchy and ModuleInformation, Vitis HLS 2021.1+): a folder's file whose top
// is a module of another file's design is a module file of that design; without a printed
// hierarchy (the per-module files themselves hold none) a file whose top outlines a loop
// of another file's top by Vitis' name "<M>_Pipeline_<loop>" is a module file of M's
// design; any other file groups only with files of its own top.

#include <cstddef>
#include <string>
#include <vector>

#include "hls/reports/csynth.h"

namespace ttsim::hls {

/// The problems with what report `r` says it is, each a sentence with the values (empty
/// when none): a file named "<m>_csynth.xml" whose TopModelName is not <m>; an
/// RTLDesignHierarchy top module other than TopModelName; a ModuleInformation without a
/// module named TopModelName; an empty Part; an unknown TargetClockPeriod; a tool version
/// not of the form YYYY.N or YYYY.N.N.
std::vector<std::string> identity_problems(const CsynthReport& r);

/// True when `r` is a per-module file ("<m>_csynth.xml", m its TopModelName) that prints no hierarchy (no
/// RTLDesignHierarchy, no ModuleInformation): what it calls is unknown, and alone it cannot
/// be placed under its design's top.
bool per_module_file_without_hierarchy(const CsynthReport& r);

/// One design of a folder: the report of its top and the other files of the same build.
struct DesignGroup {
  /// A per-module file below the top.
  struct ModuleFile {
    std::size_t report = 0;  ///< index in the reports given
    std::string parent;      ///< the module that instantiates it (the top's hierarchy, else the
                             ///< module it outlines a loop of), "" when neither tells
  };
  std::string folder;                 ///< folder of the reports (as the paths give it)
  std::string top;                    ///< the design's top module
  std::size_t report = 0;             ///< index of the top's report: "csynth.xml" when present, else the first by path
  std::vector<std::size_t> same_top;  ///< other files reporting the same top ("<top>_csynth.xml"), by path
  std::vector<ModuleFile> modules;    ///< per-module files of the design, by path
  /// Why a file that names a module of this design (or its top) was not grouped with it:
  /// "<file>: names module M of design T but reports part / tool version / target clock X
  /// (the design's report: Y): not of the same build". The file is a design of its own.
  std::vector<std::string> mismatches;
};

/// Groups `reports` (any order) into designs, per folder: files reporting the same top are
/// one design; a file whose top is a module (not the top) of another design's hierarchy or
/// ModuleInformation, or outlines a loop of its top ("<M>_Pipeline_<loop>"), joins that
/// design as a module file when its part, tool version and target clock equal the
/// design's, else it stays a design of its own and the difference is listed in the
/// design's `mismatches`. Designs are ordered by folder and top report path; every report
/// is in exactly one design.
std::vector<DesignGroup> group_designs(const std::vector<CsynthReport>& reports);

/// The design of `groups` holding report index `report` (as top, same top or module file).
const DesignGroup* design_of(const std::vector<DesignGroup>& groups, std::size_t report);

}  // namespace ttsim::hls
