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
  AtomicFileWriter out(path);
  out.write(content);
  out.commit();
}

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  require_replaceable_output(path_);
  const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) throw_file_error(ec.value(), path_ + ": cannot create folder " + parent.string() + " (" + ec.message() + ")");
  }
  tmp_ = path_ + ".tmp." + std::to_string(::getpid());
  buffer_.reset(new char[kBufferBytes]);  // no zero fill: the stream writes before it reads
  out_.rdbuf()->pubsetbuf(buffer_.get(), static_cast<std::streamsize>(kBufferBytes));
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    const int err = errno;
    throw_file_error(err, path_ + ": cannot write output (" + std::strerror(err) + ")");
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (committed_) return;
  out_.close();
  std::remove(tmp_.c_str());
}

void AtomicFileWriter::write(std::string_view text) { out_.write(text.data(), static_cast<std::streamsize>(text.size())); }

std::ifstream AtomicFileWriter::take_back() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  std::ifstream in(tmp_, std::ios::binary);
  std::remove(tmp_.c_str());
  committed_ = true;  // nothing left to remove
  if (!ok || !in) {
    const int err = errno;
    throw_file_error(err, path_ + ": write failed (" + std::strerror(err) + ")");
  }
  return in;
}

void AtomicFileWriter::commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok) {
    const int err = errno;
    std::remove(tmp_.c_str());
    throw_file_error(err, path_ + ": write failed (" + std::strerror(err) + ")");
  }
  fault_point();  // a killed run leaves the temporary file, never a half-written `path`
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp_.c_str());
    throw_file_error(err, path_ + ": cannot replace file (" + std::strerror(err) + ")");
  }
  committed_ = true;
  fault_point();
}

}  // namespace ttsim
