#pragma once
// Ownership of an output folder: one writer at a time.
//
// The lock is flock(2) on <dir>/.ttsim.lock, whose content names the holder
// ("<pid>@<host> <start time, UTC> <command>"). The kernel drops an flock when its
// process ends for any reason (exit, crash, SIGKILL), so a lock left by a dead run is
// never mistaken for a live one and needs no pid check or timeout: a lock file that no
// process holds is taken over. Where the file system refuses flock, the lock falls back
// to the file's content: a holder on this host whose pid is alive, or any holder on
// another host, keeps the folder.

#include <optional>
#include <string>

namespace ttsim {

/// Name of the lock file inside a locked folder.
inline constexpr const char* kDirLockFile = ".ttsim.lock";

/// Exclusive write ownership of a folder for the lifetime of the object.
class DirLock {
 public:
  /// Takes the lock of the existing folder `dir` for `command` (e.g. "explore"), without
  /// waiting. Throws InputError (exit 2) naming `dir` and the holder (pid, host, start,
  /// command) when another live process holds it, or when the lock file cannot be created.
  DirLock(const std::string& dir, const std::string& command);
  /// Removes the lock file and releases the lock.
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

  /// The holder line a stale lock file named when this lock took it over, else empty.
  const std::string& taken_over_from() const { return stale_; }

 private:
  std::string path_;
  std::string stale_;
  int fd_ = -1;
};

/// The holder of a live lock on `dir` ("pid 12 on host h, started ..., ttsim explore"),
/// nullopt when no live process holds it. Never writes into `dir`.
std::optional<std::string> dir_lock_holder(const std::string& dir);

}  // namespace ttsim
