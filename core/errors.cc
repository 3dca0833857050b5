#include "core/errors.h"

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

}  // namespace ttsim
