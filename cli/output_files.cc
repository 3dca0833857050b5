#include "cli/output_files.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "core/atomic_file.h"
#include "core/errors.h"

namespace ttsim::cli {

namespace fs = std::filesystem;

namespace {

fs::path resolved(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

std::string temp_name(const std::string& path) { return path + ".tmp." + std::to_string(::getpid()); }

}  // namespace

void refuse_clashing_paths(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].second.empty()) continue;
    const fs::path out = resolved(outputs[i].second);
    for (std::size_t k = 0; k < i; ++k) {
      if (!outputs[k].second.empty() && resolved(outputs[k].second) == out) {
        throw InputError(outputs[i].second + ": " + outputs[k].first + " and " + outputs[i].first +
                         " name the same file; expected distinct output files");
      }
    }
    for (const auto& [option, in] : inputs) {
      if (!in.empty() && resolved(in) == out) {
        throw InputError(outputs[i].second + ": " + outputs[i].first + " names the input " + option +
                         "; expected an output path that is not an input (it would be overwritten)");
      }
    }
  }
}

void check_output_writable(const NamedPath& output) {
  const auto& [option, path] = output;
  if (path.empty()) return;
  std::error_code ec;
  // A path ending in a separator names a folder whether or not it exists yet.
  if (fs::is_directory(path, ec) || path.back() == '/') {
    throw InputError(path + ": " + option + " names a folder; expected a file path");
  }
  require_replaceable_output(path);
  fs::path folder = fs::absolute(path).parent_path();
  while (!fs::exists(folder, ec) && folder.has_parent_path() && folder != folder.parent_path()) {
    folder = folder.parent_path();
  }
  if (!fs::is_directory(folder, ec)) {
    throw InputError(path + ": " + option + ": cannot create its folder (" + folder.string() +
                     " is not a folder)");
  }
  const std::string probe = (folder / (".ttsim-write-probe." + std::to_string(::getpid()))).string();
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  if (f == nullptr) {
    throw InputError(path + ": " + option + ": folder " + folder.string() + " is not writable (" +
                     std::strerror(errno) + ")");
  }
  std::fclose(f);
  std::remove(probe.c_str());
}

void refuse_output_inside(const NamedPath& output, const NamedPath& folder) {
  if (output.second.empty() || folder.second.empty()) return;
  const fs::path in = fs::weakly_canonical(fs::absolute(folder.second));
  const fs::path out = fs::weakly_canonical(fs::absolute(output.second));
  if (std::mismatch(in.begin(), in.end(), out.begin(), out.end()).first == in.end()) {
    throw InputError(output.second + ": " + output.first + ": expected a path outside the " + folder.first +
                     " folder " + folder.second + " (it would replace one of the files read from there)");
  }
}

void write_files_atomic(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::string> temps;
  // ENOSPC, EIO, EMFILE, ... are the machine's (SystemError, exit 1), the rest the input's.
  auto abort = [&](const std::string& message, int err = 0) {
    for (const auto& t : temps) std::remove(t.c_str());
    throw_file_error(err, message);
  };
  for (const auto& [path, content] : files) require_replaceable_output(path);
  for (const auto& [path, content] : files) {
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) {
      std::error_code ec;
      fs::create_directories(parent, ec);
      if (ec) abort(path + ": cannot create folder " + parent.string() + " (" + ec.message() + ")", ec.value());
    }
    const std::string tmp = temp_name(path);
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) abort(path + ": cannot write output (" + std::strerror(errno) + ")", errno);
    temps.push_back(tmp);
    out << content;
    out.flush();
    if (!out) abort(path + ": write failed (" + std::strerror(errno) + ")", errno);
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::rename(temps[i].c_str(), files[i].first.c_str()) != 0) {
      const int err = errno;
      for (std::size_t k = i; k < temps.size(); ++k) std::remove(temps[k].c_str());
      throw_file_error(err, files[i].first + ": cannot replace file (" + std::strerror(err) + ")" +
                                (i > 0 ? "; earlier outputs were already written" : ""));
    }
  }
}

}  // namespace ttsim::cli
