#include "dse/emit/emit.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "core/atomic_file.h"
#include "core/atomic_tree.h"
#include "core/errors.h"

namespace ttsim::dse {

namespace fs = std::filesystem;

const char* const kEmitMarker = ".ttsim-emit";

namespace {

/// Refuses `out_dir` as a build folder unless it is new, empty or an earlier emit: never
/// the root, the working folder or one holding it, a file, a ttsim checkout or the kernel
/// tree `hls_root` itself.
void check_build_folder(const std::string& out_dir, const std::string& hls_root) {
  std::error_code ec;
  // "DIR/", "./DIR" and "." name the folder itself: the temporary sibling and the swap
  // need its own name and its parent.
  const fs::path out = tree_folder_path(out_dir);
  const fs::path cwd = fs::current_path(ec).lexically_normal();
  if (out == out.root_path() || out.filename().empty()) {
    throw InputError(out_dir + ": --out is the root folder; give a new or empty folder for the build");
  }
  const auto rel = cwd.lexically_relative(out);
  if (!rel.empty() && *rel.begin() != "..") {
    throw InputError(out_dir + ": --out is the working folder or one that holds it (" + out.string() +
                     "); give a new or empty folder for the build");
  }
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec)) {
    throw InputError(out_dir + ": expected a folder for the HLS build (new, empty or an earlier emit), found a file");
  }
  const bool marked = fs::exists(out / kEmitMarker);
  const bool is_tree = (fs::exists(out / "configs") && !marked) || fs::equivalent(out, fs::path(hls_root), ec);
  const bool empty = fs::is_empty(out, ec);
  if (is_tree || (!empty && !marked)) {
    throw InputError(out_dir + ": --out " +
                     (is_tree ? std::string("is a ttsim checkout (configs/ inside)")
                              : std::string("holds files that no earlier `ttsim emit` wrote (no ") + kEmitMarker + ")") +
                     "; give a new or empty folder");
  }
}

/// The marker's line before the list of the files the emit wrote.
constexpr const char* kFilesHeading = "files:";

/// The paths (relative, '/'-separated) the emit that wrote `marker` listed after
/// kFilesHeading; false when the marker has no such list (an emit before the list existed).
bool listed_files(const fs::path& marker, std::set<std::string>& files) {
  std::ifstream in(marker);
  std::string line;
  bool listed = false;
  while (std::getline(in, line)) {
    if (listed && !line.empty()) files.insert(line);
    if (line == kFilesHeading) listed = true;
  }
  return listed;
}

}  // namespace

std::vector<std::string> files_no_emit_wrote(const std::string& out_dir) {
  const fs::path out = tree_folder_path(out_dir);
  std::error_code ec;
  if (!fs::is_directory(out, ec) || !fs::exists(out / kEmitMarker, ec)) return {};
  std::set<std::string> known;
  // A marker without the list (an emit before it existed): that emit's files are not known,
  // and the folder is replaced as it was then.
  if (!listed_files(out / kEmitMarker, known)) return {};
  known.insert(kEmitMarker);
  // The folders the listed files are in (and their parents), which emit makes.
  std::set<std::string> folders;
  for (const auto& f : known) {
    for (fs::path p = fs::path(f).parent_path(); !p.empty(); p = p.parent_path()) folders.insert(p.generic_string());
  }
  std::vector<std::string> foreign;
  for (auto it = fs::recursive_directory_iterator(out, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string rel = it->path().lexically_relative(out).generic_string();
    // A folder of the user's (not one emit makes) is theirs when empty; a symbolic link,
    // even to a folder, is a file of its own.
    if (!it->is_symlink(ec) && it->is_directory(ec)) {
      if (!folders.count(rel) && fs::is_empty(it->path(), ec)) foreign.push_back(rel + "/");
      continue;
    }
    if (!known.count(rel)) foreign.push_back(rel);
  }
  if (ec) throw InputError(out_dir + ": cannot list the earlier build (" + ec.message() + ")");
  std::sort(foreign.begin(), foreign.end());
  return foreign;
}

EmitReport emit_hls_build(const HlsBuild& build, const std::string& out_dir, EarlierFiles earlier) {
  check_build_folder(out_dir, build.kernels.root);
  std::vector<RenderedFile> files = render_hls_build(build);
  EmitReport report;
  for (const auto& f : files) report.files.push_back(f.path);
  report.notes = build.provenance.notes;
  report.link_cfg = link_cfg_name(build.design);
  // Files an earlier emit did not write (synthesis outputs, the user's notes, a chosen.json
  // read from there) would go with the folder: refused, or the folder kept.
  const std::vector<std::string> foreign = files_no_emit_wrote(out_dir);
  if (!foreign.empty()) {
    const std::string what = out_dir + ": holds " + std::to_string(foreign.size()) +
                             " file(s) that no emit wrote (" + foreign.front() + (foreign.size() > 1 ? ", ..." : "") +
                             "), which replacing the folder would delete";
    if (earlier == EarlierFiles::kRefuse) {
      throw InputError(what + "; move them out of it or give another --out");
    }
    report.files.clear();
    report.replaced = false;
    report.notes.push_back(what + ": the folder is kept as it was (`ttsim emit --design <chosen.json> --out "
                           "<new folder>` writes the build elsewhere)");
    return report;
  }
  std::string marker = "Written by `ttsim emit` from " + build.provenance.source +
                       "; a later emit may replace this folder.\n" + kFilesHeading + "\n";
  for (const auto& f : report.files) marker += f + "\n";
  files.push_back({kEmitMarker, marker});
  AtomicTreeOptions options;
  options.label = out_dir;
  options.noun = "build";
  options.temp_tag = "emit";
  options.folders = {"hls/include", "hls/kernels", "hls/tb", "hls/scripts"};
  write_tree_atomic(out_dir, files, options);
  return report;
}

EmitReport emit_design(const Json& chosen, const std::string& chosen_file, const std::string& out_dir,
                       const std::string& hls_root) {
  return emit_hls_build(hls_build_from_chosen(chosen, chosen_file, hls_root), out_dir, EarlierFiles::kRefuse);
}

std::vector<std::pair<std::string, std::string>> default_tree_files(const std::string& root) {
  const BuildDesign d = default_design(root);
  const HlsScripts s = render_scripts(d, hls_sources(root));
  return {{"hls/include/design_config.h", render_design_config(d)},
          {"hls/kernels/design_layout.h", render_design_layout(d)},
          {"hls/scripts/run_hls.tcl", s.run_hls_tcl},
          {"hls/scripts/hls_config.cfg", s.hls_config_cfg},
          {"hls/scripts/" + s.link_cfg_name, s.link_cfg}};
}

std::vector<std::string> write_default_tree(const std::string& root) {
  std::vector<std::string> written;
  for (const auto& [rel, text] : default_tree_files(root)) {
    const std::string path = (fs::path(root) / rel).string();
    write_file_atomic(path, text);
    written.push_back(path);
  }
  return written;
}

}  // namespace ttsim::dse
