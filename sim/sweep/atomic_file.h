#pragma once
// Crash-safe file output for sweep directories, and the lock that keeps one sweep process per
// output directory.
//
// Contract:
// - write_file_atomically(): run::write_file_atomic() of sim/run/result_writer.h (temp file in
//   the same directory, fsync, rename, fsync of the directory). If the process is killed at any
//   instant (kill -9), `path` holds either its previous content (or does not exist) or the
//   complete new content, never a prefix; at worst a temp file is left behind.
// - Temp files are named ".<name>.tmp.<host>.<pid>.<n>" (sim/run/temp_files.h): hidden, never
//   ending in ".json", recognised by is_temp_file_name() and removed by remove_temp_files() when a sweep starts (safe because
//   the DirectoryLock guarantees no other sweep process writes into that directory).
// - DirectoryLock holds an exclusive flock() on "<dir>/.lock" for its lifetime; the kernel
//   releases it if the process dies, so a killed sweep never leaves a stale lock. (flock over
//   NFS is only as good as the NFS server's lock support: use one output directory per shard.)
// Nothing here throws; failures come back as false / nullopt with a message naming the path.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fdsim::sweep {

bool write_file_atomically(const std::filesystem::path& path, std::string_view content,
                           std::string* error);

// Reads a whole file; nullopt if it cannot be read.
std::optional<std::string> read_file(const std::filesystem::path& path);

bool is_temp_file_name(std::string_view file_name);
// Removes the temp files left in `dir` by killed writers; returns how many it removed.
size_t remove_temp_files(const std::filesystem::path& dir);

class DirectoryLock {
 public:
  // Creates `dir` if needed and locks it; nullopt (and *error) if another process holds it.
  static std::optional<DirectoryLock> acquire(const std::filesystem::path& dir, std::string* error);
  DirectoryLock(DirectoryLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  DirectoryLock& operator=(DirectoryLock&&) = delete;
  DirectoryLock(const DirectoryLock&) = delete;
  ~DirectoryLock();

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace fdsim::sweep
