#include "core/atomic_tree.h"

#include <unistd.h>

#include <system_error>

#include "core/atomic_file.h"
#include "core/errors.h"

namespace ttsim {

namespace fs = std::filesystem;

fs::path tree_folder_path(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(dir), ec).lexically_normal();
  if (!p.has_filename() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

namespace {

/// Removes the temporary sibling unless the tree took its place.
struct SiblingGuard {
  fs::path path;
  bool keep = false;
  ~SiblingGuard() {
    std::error_code ec;
    if (!keep) fs::remove_all(path, ec);
  }
};

/// Writes options.folders and `files` into the fresh folder `tmp`.
void fill_sibling(const fs::path& tmp, const std::vector<TreeFile>& files, const AtomicTreeOptions& options) {
  std::error_code ec;
  fs::remove_all(tmp, ec);
  std::vector<fs::path> folders;
  for (const auto& sub : options.folders) folders.push_back(tmp / sub);
  folders.push_back(tmp);
  for (const fs::path& f : folders) {
    fs::create_directories(f, ec);
    if (ec) throw_file_error(ec.value(), f.string() + ": cannot create the " + options.noun + " folder (" + ec.message() + ")");
  }
  for (const TreeFile& f : files) write_file_atomic((tmp / f.path).string(), f.contents);
}

/// Moves `tmp` into `out`'s place, the earlier `out` aside to `old` first; removes it after.
void swap_into_place(const fs::path& tmp, const fs::path& out, const fs::path& old, const AtomicTreeOptions& options) {
  std::error_code ec;
  const bool had_old = fs::exists(out, ec);
  if (had_old) {
    fs::remove_all(old, ec);
    fs::rename(out, old, ec);
    if (ec) {
      throw_file_error(ec.value(),
                       options.label + ": cannot move the earlier " + options.noun + " aside (" + ec.message() + ")");
    }
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    std::error_code back;
    if (had_old) fs::rename(old, out, back);
    const std::string earlier = "; the earlier " + options.noun;
    throw_file_error(ec.value(), options.label + ": cannot move the " + options.noun + " into place (" + ec.message() +
                                     ")" + (had_old ? (back ? earlier + " is in " + old.string() : earlier + " is kept") : ""));
  }
  if (had_old) fs::remove_all(old, ec);
}

}  // namespace

void write_tree_atomic(const std::string& dir, const std::vector<TreeFile>& files,
                       const AtomicTreeOptions& options) {
  const fs::path out = tree_folder_path(dir);
  if (out == out.root_path() || out.filename().empty()) {
    throw InputError(options.label + ": the root folder cannot be replaced by a " + options.noun);
  }
  const fs::path parent = out.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  const std::string pid = std::to_string(::getpid());
  const fs::path tmp = parent / (out.filename().string() + "." + options.temp_tag + "-" + pid);
  SiblingGuard guard{tmp};
  fill_sibling(tmp, files, options);
  swap_into_place(tmp, out, parent / (out.filename().string() + ".old-" + pid), options);
  guard.keep = true;
}

}  // namespace ttsim
