#pragma once
// A folder of files written whole or not at all: every file goes into a temporary sibling
// folder, which then takes the folder's place. The folder's earlier contents are moved
// aside first and removed only once the new tree is in place, so a failure at any step
// leaves either the earlier tree or the new one, never a mix.

#include <filesystem>
#include <string>
#include <vector>

namespace ttsim {

/// One file of a tree: its path relative to the tree's folder ("hls/kernels/top.cc",
/// '/'-separated, no "..") and its bytes.
struct TreeFile {
  std::string path;
  std::string contents;
};

/// How write_tree_atomic names things.
struct AtomicTreeOptions {
  /// Names the folder in error messages, as the user gave it ("out/hls_build/").
  std::string label;
  /// What the folder holds, in error messages: "cannot move the earlier <noun> aside".
  std::string noun = "tree";
  /// The temporary sibling is "<name>.<temp_tag>-<pid>"; the earlier tree moves aside to
  /// "<name>.old-<pid>" while the new one takes its place.
  std::string temp_tag = "tmp";
  /// Sub-folders created first, in this order, even when no file lands in them.
  std::vector<std::string> folders;
};

/// The folder `dir` names, as an absolute, lexically normal path without a trailing
/// separator: "DIR/", "./DIR" and "DIR//" all name DIR. The root folder stays "/".
std::filesystem::path tree_folder_path(const std::string& dir);

/// Replaces the folder `dir` (tree_folder_path) with exactly `files`, in their order:
/// creates `dir`'s parent when missing; writes options.folders then every file (each with
/// write_file_atomic, core/atomic_file.h) into the sibling "<name>.<temp_tag>-<pid>"
/// (removed first if a run of the same pid left it); moves an existing `dir` aside to
/// "<name>.old-<pid>", renames the sibling to `dir` and removes the earlier tree. When the
/// new tree cannot take its place the earlier one is moved back (or, when that fails too,
/// left in "<name>.old-<pid>", which the message names). On any failure the sibling is
/// removed. What `dir` holds is not checked: the caller decides whether it may be
/// replaced. Throws InputError: "<sibling>/<folder>: cannot create the <noun> folder
/// (reason)", write_file_atomic's errors, "<label>: cannot move the earlier <noun> aside
/// (reason)", "<label>: cannot move the <noun> into place (reason)[; the earlier <noun>
/// is kept | is in <path>]", and for `dir` the root folder.
void write_tree_atomic(const std::string& dir, const std::vector<TreeFile>& files,
                       const AtomicTreeOptions& options);

}  // namespace ttsim
