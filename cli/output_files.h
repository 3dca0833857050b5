#pragma once
// Checks and writes of a subcommand's output files: outputs distinct from each other and
// from the inputs, folders checked writable before any work, and several outputs
// written all or none.

#include <string>
#include <utility>
#include <vector>

namespace ttsim::cli {

/// An option and its path, e.g. {"--json", "out/step.json"}.
using NamedPath = std::pair<std::string, std::string>;

/// Throws InputError when two non-empty outputs name the same file, or an output names
/// the same file as a non-empty input (compared after resolving ".", ".." and symlinks
/// of existing folders). Empty paths (option not given) are ignored.
void refuse_clashing_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

/// Throws InputError naming the option and path unless the output's folder exists or
/// can be created and is writable (a temporary file is created and removed in the
/// folder, or in its nearest existing ancestor when the folder is missing; nothing is
/// left behind), and the path itself is not a folder (nor ends in '/'). Empty paths are ignored.
void check_output_writable(const NamedPath& output);

/// Throws InputError naming both options unless `output` lies outside the input folder
/// `folder` (an output written into the tree a command reads would replace one of its
/// inputs, e.g. a csynth report). Empty paths are ignored.
void refuse_output_inside(const NamedPath& output, const NamedPath& folder);

/// Writes every (path, content) pair all or none: each content goes to a temporary file
/// next to its destination (missing folders are created); only when every temporary file
/// is complete are they renamed over the destinations. On a failure before the renames
/// every temporary file is removed and no destination changes. Throws InputError naming
/// the path that failed.
void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace ttsim::cli
