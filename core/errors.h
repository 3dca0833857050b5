#pragma once
// Error types shared by every ttsim component. The CLI maps InputError (and its
// subclasses) to exit code 2 and any other exception to exit code 1.

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

}  // namespace ttsim
