#pragma once
// Error types shared by every ttsim component. The CLI maps InputError (and its
// subclasses) to exit code 2, SystemError to exit code 1 with the message, and any other
// exception to exit code 1 as an internal error.

#include <stdexcept>
#include <string>

namespace ttsim {

/// Bad user input: a config file, a flag, a data file or a report that cannot be
/// used as given. The message names the file and what was wrong. Exit code 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A JSON config value that failed validation.
/// what() reads "<file>: <pointer>: expected <expected>, found <found>".
/// `pointer` is an RFC 6901 JSON pointer ("" for the document root, shown as "/").
class ConfigError : public InputError {
 public:
  ConfigError(std::string file, std::string pointer, std::string expected, std::string found);
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }

 private:
  std::string file_, pointer_, expected_, found_;
};

/// The machine refused an operation the input asked for rightly: a full disk or quota, an I/O
/// error, no file descriptor or memory left. The message names the file and the system's
/// reason. Exit code 1 (not the input's fault; run again once the machine allows it).
class SystemError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// True for an errno value that is the machine's state rather than the input's: ENOSPC,
/// EDQUOT, EIO, EMFILE, ENFILE, ENOMEM.
bool is_system_errno(int err);

/// Throws SystemError(message) when is_system_errno(err), else InputError(message).
[[noreturn]] void throw_file_error(int err, const std::string& message);

}  // namespace ttsim
