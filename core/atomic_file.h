#pragma once
// Output files are written whole or not at all: content goes to a temporary file in
// the destination folder, which is then renamed over the destination.

#include <fstream>
#include <memory>
#include <string>
#include <string_view>

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

/// An output written piece by piece as its content is produced (a file too large to
/// hold in memory): the pieces go to the temporary file "<path>.tmp.<pid>" and commit()
/// renames it over `path`, so `path` is never half-written. A writer destroyed without
/// commit() removes its temporary file; one killed leaves it, for the next run of the
/// folder to remove. Errors (InputError naming `path`) as write_file_atomic.
class AtomicFileWriter {
 public:
  /// Bytes of the write buffer.
  static constexpr std::size_t kBufferBytes = 1 << 20;
  /// Creates the missing parent folders and opens the temporary file.
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  /// Appends `text`.
  void write(std::string_view text);
  /// Flushes and renames the temporary file over `path` (a fault point before and after
  /// the rename, core/fault_point.h). Throws InputError when a write failed.
  void commit();
  /// Ends the writer without replacing `path`: returns what was written, open for reading
  /// from its start, and removes the temporary file's name (the content lives while the
  /// stream is open; a run killed then leaves nothing). A later writer of the same `path`
  /// may then start. Throws InputError when a write failed.
  std::ifstream take_back();
  const std::string& path() const { return path_; }

 private:
  std::string path_, tmp_;
  /// The stream's buffer (kBufferBytes): large writes, so that a file of a million rows costs
  /// few system calls and few partly written pages.
  std::unique_ptr<char[]> buffer_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace ttsim
