#include "core/errors.h"

#include <cerrno>

namespace ttsim {

namespace {
std::string format_config_error(const std::string& file, const std::string& pointer,
                                const std::string& expected, const std::string& found) {
  return file + ": " + (pointer.empty() ? "/" : pointer) + ": expected " + expected + ", found " +
         found;
}
}  // namespace

ConfigError::ConfigError(std::string file, std::string pointer, std::string expected,
                         std::string found)
    : InputError(format_config_error(file, pointer, expected, found)),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      expected_(std::move(expected)),
      found_(std::move(found)) {}

bool is_system_errno(int err) {
  return err == ENOSPC || err == EDQUOT || err == EIO || err == EMFILE || err == ENFILE || err == ENOMEM;
}

void throw_file_error(int err, const std::string& message) {
  if (is_system_errno(err)) throw SystemError(message);
  throw InputError(message);
}

}  // namespace ttsim
