#pragma once
// Training checkpoints: a JSON header (run identity, epochs done, epoch history) and the
// engine's parameter blob, in one file written atomically.
//
// Layout: the line "ttsim-checkpoint 2" (format 2: the HLS engine's dense weights out × in), the header as one line of JSON, the decimal
// byte count of the blob on its own line, then the blob bytes.

#include <string>

#include "core/json_view.h"

namespace ttsim::training {

/// Contents of a checkpoint file.
struct Checkpoint {
  Json header;
  std::string parameters;
};

/// Writes a checkpoint with write_file_atomic (the previous file stays intact until the
/// new one is complete). Throws InputError when the folder is not writable.
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);

/// Reads a checkpoint. Throws InputError naming `path` when it cannot be read, does not
/// start with the magic line, has a header that is not JSON or a truncated blob.
Checkpoint read_checkpoint(const std::string& path);

}  // namespace ttsim::training
