#include "core/dir_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <sstream>
#include <thread>

#include "core/errors.h"

namespace ttsim {

namespace {

std::string host_name() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string read_all(int fd) {
  std::string s;
  char buf[512];
  for (off_t off = 0;;) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, off);
    if (n <= 0) break;
    s.append(buf, static_cast<std::size_t>(n));
    off += n;
  }
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The lock file's line "<pid>@<host> <start> <command>", parsed.
struct Holder {
  long pid = 0;
  std::string host, started, command;
  bool ok = false;
};

Holder parse_holder(const std::string& line) {
  Holder h;
  std::istringstream in(line);
  std::string who;
  in >> who >> h.started >> h.command;
  const auto at = who.find('@');
  if (at == std::string::npos || at == 0) return h;
  try {
    std::size_t used = 0;
    h.pid = std::stol(who.substr(0, at), &used);
    h.ok = used == at && h.pid > 0;
  } catch (const std::exception&) {
    return h;
  }
  h.host = who.substr(at + 1);
  return h;
}

std::string describe(const std::string& line) {
  const Holder h = parse_holder(line);
  if (!h.ok) return line.empty() ? std::string("holder not yet recorded") : "\"" + line + "\"";
  return "pid " + std::to_string(h.pid) + " on host " + h.host + ", started " + h.started +
         ", ttsim " + h.command;
}

// The holder line of a lock someone else holds; the holder writes it just after taking
// the lock, so an empty file is read again briefly.
std::string holder_line(int fd) {
  std::string line = read_all(fd);
  for (int i = 0; i < 50 && line.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    line = read_all(fd);
  }
  return line;
}

bool flock_unsupported(int err) { return err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS || err == EINVAL; }

// Content fallback where flock is unavailable: does `line` name a holder that may be alive?
bool holder_alive(const std::string& line) {
  const Holder h = parse_holder(line);
  if (!h.ok) return false;
  if (h.host != host_name()) return true;  // cannot check another machine's processes
  if (h.pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(h.pid), 0) == 0 || errno == EPERM;
}

InputError refused(const std::string& dir, const std::string& line) {
  return InputError(dir + ": in use by another ttsim run (" + describe(line) +
                    "); one run at a time writes into a folder: wait for it to end or choose "
                    "another folder");
}

}  // namespace

DirLock::DirLock(const std::string& dir, const std::string& command)
    : path_(dir + "/" + kDirLockFile) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      throw InputError(dir + ": cannot create the lock file " + kDirLockFile + " (" +
                       std::strerror(errno) + ")");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      if (err == EWOULDBLOCK) {
        const std::string line = holder_line(fd);
        ::close(fd);
        throw refused(dir, line);
      }
      if (!flock_unsupported(err)) {
        ::close(fd);
        throw InputError(path_ + ": cannot lock (" + std::string(std::strerror(err)) + ")");
      }
      const std::string line = read_all(fd);
      if (holder_alive(line)) {
        ::close(fd);
        throw refused(dir, line);
      }
    }
    // The previous holder removes the file before releasing it: a lock on a file that is
    // no longer at `path_` (or was replaced) guards nothing; open it again.
    struct stat a {}, b {};
    if (::fstat(fd, &a) != 0 || ::stat(path_.c_str(), &b) != 0 || a.st_ino != b.st_ino ||
        a.st_dev != b.st_dev) {
      ::close(fd);
      continue;
    }
    const std::string old = read_all(fd);
    if (!old.empty()) stale_ = describe(old);
    const std::string line = std::to_string(::getpid()) + "@" + host_name() + " " + now_utc() + " " +
                             command + "\n";
    if (::ftruncate(fd, 0) != 0 ||
        ::pwrite(fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
      const int err = errno;
      ::unlink(path_.c_str());
      ::close(fd);
      throw InputError(path_ + ": cannot write the lock file (" + std::strerror(err) + ")");
    }
    fd_ = fd;
    return;
  }
  throw InputError(path_ + ": cannot take the lock (the file kept being replaced)");
}

DirLock::~DirLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // before the release: a waiter then sees the file gone
  ::close(fd_);
}

std::optional<std::string> dir_lock_holder(const std::string& dir) {
  const std::string path = dir + "/" + kDirLockFile;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> holder;
  if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
    ::flock(fd, LOCK_UN);
  } else if (errno == EWOULDBLOCK) {
    holder = describe(holder_line(fd));
  } else {
    const std::string line = read_all(fd);
    if (holder_alive(line)) holder = describe(line);
  }
  ::close(fd);
  return holder;
}

}  // namespace ttsim
