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

void write_file_atomic(const std::string& path, const std::string& content) {
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
