#include "core/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/errors.h"
#include "core/fault_point.h"

namespace ttsim {

void require_replaceable_output(const std::string& path) {
  // Only a regular file (or nothing) is replaced: renaming over a device, pipe, socket,
  // folder or symbolic link would destroy it rather than write to it.
  std::error_code ec;
  const auto st = std::filesystem::symlink_status(path, ec);
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    const char* what = std::filesystem::is_symlink(st)     ? "a symbolic link"
                       : std::filesystem::is_directory(st) ? "a folder"
                                                            : "a device, pipe or socket";
    throw InputError(path + ": expected a regular file (or no file) to write the output to, found " + what);
  }
}

void write_file_atomic(const std::string& path, const std::string& content) {
  require_replaceable_output(path);
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) throw InputError(path + ": cannot create folder " + parent.string() + " (" + ec.message() + ")");
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw InputError(path + ": cannot write output (" + std::strerror(errno) + ")");
    }
    out << content;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw InputError(path + ": write failed (" + std::strerror(errno) + ")");
    }
  }
  fault_point();  // a killed run leaves the temporary file, never a half-written `path`
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw InputError(path + ": cannot replace file (" + std::strerror(err) + ")");
  }
  fault_point();
}

}  // namespace ttsim
