#pragma once
// Output files are written whole or not at all: content goes to a temporary file in
// the destination folder, which is then renamed over the destination.

#include <string>

namespace ttsim {

/// Writes `content` to `path` atomically (temporary file + rename), creating missing
/// parent folders. Throws InputError naming `path` when a folder cannot be created or
/// the destination is not writable, and when `path` exists and is not a regular file (a
/// device, pipe, socket, folder or symbolic link is never replaced);
/// an existing file at `path` is left untouched on failure.
void write_file_atomic(const std::string& path, const std::string& content);

/// Throws InputError naming `path` when it exists and is not a regular file (a device,
/// pipe, socket, folder or symbolic link): an output is never renamed over one.
void require_replaceable_output(const std::string& path);

}  // namespace ttsim
