#include "sim/run/result_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sim/run/temp_files.h"

namespace fdsim::run {

namespace {

std::atomic<uint64_t> temp_counter{0};

std::string errno_text(int err) { return std::strerror(err); }

bool write_all(int fd, const std::string& content) {
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= size_t(n);
  }
  return true;
}

}  // namespace

std::string temporary_path_for(const std::string& path) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  return (dir / temporary_name(target.filename().string(), temp_counter.fetch_add(1))).string();
}

std::string write_file_atomic(const std::string& path, const std::string& content) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const std::string temp = temporary_path_for(path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot write " + path + ": " + errno_text(errno);
  if (!write_all(fd, content) || ::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    return "cannot write " + path + ": " + errno_text(err);
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return "cannot write " + path + ": " + errno_text(err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return "cannot write " + path + ": " + errno_text(err);
  }
  // Make the rename itself durable.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return "";
}

std::string result_stem(const std::string& scenario_name, uint64_t seed, uint64_t replication) {
  return scenario_name + "-seed" + std::to_string(seed) + "-rep" + std::to_string(replication);
}

std::string result_file_text(const nlohmann::json& result, const nlohmann::json& run_stats) {
  nlohmann::json doc = result;
  doc["run_stats"] = run_stats;
  return doc.dump(2) + "\n";
}

WrittenRun write_run_files(const std::string& out_dir, const nlohmann::json& result,
                           const nlohmann::json& run_stats,
                           const std::vector<std::string>* trace_lines) {
  WrittenRun w;
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    w.error = "cannot create the output directory " + out_dir + ": " + ec.message();
    return w;
  }
  const auto& m = result.at("manifest");
  const std::string stem = result_stem(m.at("scenario_name").get<std::string>(),
                                       m.at("seed").get<uint64_t>(),
                                       m.at("replication").get<uint64_t>());
  const std::string base = (std::filesystem::path(out_dir) / stem).string();
  if (trace_lines != nullptr) {
    std::string text;
    for (const auto& line : *trace_lines) {
      text += line;
      text += '\n';
    }
    w.error = write_file_atomic(base + ".trace.jsonl", text);
    if (!w.error.empty()) return w;
    w.trace_path = base + ".trace.jsonl";
  }
  w.error = write_file_atomic(base + ".json", result_file_text(result, run_stats));
  if (w.error.empty()) w.result_path = base + ".json";
  return w;
}

}  // namespace fdsim::run
