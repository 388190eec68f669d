#include "sim/sweep/run_store.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "fdsim_version.h"  // generated: FDSIM_VERSION, FDSIM_GIT_REVISION
#include "sim/engine/sha256.h"
#include "sim/run/result_writer.h"
#include "sim/scenario/json_document.h"
#include "sim/sweep/atomic_file.h"

namespace fdsim::sweep {

using nlohmann::json;

namespace {

// Hex HMAC-SHA-256 under `key` of the run id and the canonical dump of the deterministic part
// of a result.
std::string content_mac(const std::string& key, const std::string& id, const json& doc) {
  const json content = {{"manifest", doc.contains("manifest") ? doc["manifest"] : json()},
                        {"metrics", doc.contains("metrics") ? doc["metrics"] : json()}};
  return hex_digest(hmac_sha256(key, id + "\n" + content.dump()));
}

constexpr size_t kKeyBytes = 32;

// The key bytes of a key file's text (64 hex digits, an optional newline), or "".
std::string parse_key(const std::string& text) {
  std::string hex = text;
  if (!hex.empty() && hex.back() == '\n') hex.pop_back();
  if (hex.size() != 2 * kKeyBytes) return "";
  std::string key;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int v = 0;
    for (size_t j = i; j < i + 2; ++j) {
      const char c = hex[j];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return "";
      v = v * 16 + d;
    }
    key.push_back(char(v));
  }
  return key;
}

// 32 bytes from the kernel's random source (getrandom; not the simulation's streams: the key
// changes no result).
bool random_key(std::string* key) {
  key->assign(kKeyBytes, '\0');
  size_t got = 0;
  while (got < kKeyBytes) {
    const ssize_t n = ::getrandom(key->data() + got, kKeyBytes - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    got += size_t(n);
  }
  return true;
}

const json* field(const json& doc, const char* a, const char* b) {
  if (!doc.is_object() || !doc.contains(a) || !doc[a].is_object() || !doc[a].contains(b))
    return nullptr;
  return &doc[a][b];
}

}  // namespace

RunStore::RunStore(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  if (!std::filesystem::exists(key_path(), ec)) return;
  const auto text = read_file(key_path());
  key_ = text && text->size() <= 2 * kKeyBytes + 1 ? parse_key(*text) : "";
  if (key_.empty())
    key_problem_ = key_path().string() + " is not an integrity key (64 hex digits)";
}

bool RunStore::ensure_key(std::string* error) {
  if (!key_.empty()) return true;
  if (!key_problem_.empty()) {
    *error = key_problem_ + ": the results in " + dir_.string() +
             " cannot be verified; remove the directory and run again";
    return false;
  }
  std::string key;
  if (!random_key(&key)) {
    *error = "cannot draw an integrity key: " + std::string(std::strerror(errno));
    return false;
  }
  const char* hex = "0123456789abcdef";
  std::string text;
  for (char c : key) {
    text.push_back(hex[uint8_t(c) >> 4]);
    text.push_back(hex[uint8_t(c) & 15]);
  }
  text.push_back('\n');
  // O_EXCL: of two processes creating it at once, one writes and the other reads that key.
  const int fd = ::open(key_path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) {
      *this = RunStore(dir_);
      if (!key_.empty()) return true;
      *error = key_problem_.empty() ? key_path().string() + ": cannot read it" : key_problem_;
      return false;
    }
    *error = "cannot create " + key_path().string() + ": " + std::strerror(errno);
    return false;
  }
  const bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  const bool closed = ::close(fd) == 0;
  if (!ok || !closed) {
    std::error_code ec;
    std::filesystem::remove(key_path(), ec);
    *error = "cannot write " + key_path().string();
    return false;
  }
  key_ = std::move(key);
  return true;
}

std::string RunStore::verify_result(const std::string& id, json* out,
                                    bool require_this_build) const {
  std::error_code ec;
  if (!std::filesystem::exists(result_path(id), ec)) return "absent";
  const auto text = read_file(result_path(id));
  if (!text) return "cannot read it (not a regular file, or larger than the JSON limit)";
  scenario::JsonDocument parsed = scenario::parse_json_text(*text, result_path(id).string());
  if (!parsed.ok()) return "not valid JSON (" + parsed.errors.front() + ")";
  json& doc = *parsed.doc;
  if (!doc.is_object() || !doc.contains("metrics") || !doc["metrics"].is_object())
    return "not a result document (no \"metrics\" object)";
  const json* run_id = field(doc, "integrity", "run_id");
  const json* mac = field(doc, "integrity", "content_hmac_sha256");
  if (run_id == nullptr) return "no integrity record";
  if (mac == nullptr) {
    if (field(doc, "integrity", "content_fnv1a64") != nullptr)
      return "written with the unkeyed FNV-1a integrity hash of an older fdsim, which this "
             "fdsim does not trust; run it again (fdsim sweep into this output directory reruns it)";
    return "no integrity record";
  }
  if (*run_id != id) return "it is the result of run " + run_id->dump() + ", not of " + id;
  if (key_.empty())
    return key_problem_.empty()
               ? "its directory has no integrity key (" + key_path().string() +
                     " is missing), so it cannot be verified"
               : key_problem_;
  if (*mac != content_mac(key_, id, doc))
    return "its content does not match its integrity hash (edited?)";
  const json* version = field(doc, "manifest", "fdsim_version");
  const json* revision = field(doc, "manifest", "git_revision");
  if (require_this_build && (version == nullptr || *version != FDSIM_VERSION ||
                             revision == nullptr || *revision != FDSIM_GIT_REVISION)) {
    return "written by fdsim " + (version ? version->dump() : "?") + " at revision " +
           (revision ? revision->dump() : "?") + ", not by this fdsim (" + FDSIM_VERSION +
           " at " + FDSIM_GIT_REVISION + ")";
  }
  if (out != nullptr) *out = std::move(doc);
  return "";
}

std::optional<json> RunStore::load_result(const std::string& id) const {
  json doc;
  if (!verify_result(id, &doc).empty()) return std::nullopt;
  return doc;
}

bool RunStore::write_result(const std::string& id, const json& result, const json& run_stats,
                            std::string* error) const {
  if (key_.empty()) {
    *error = "no integrity key in " + dir_.string() + " (RunStore::ensure_key was not called)";
    return false;
  }
  json stamped = result;
  stamped["integrity"] = {{"run_id", id}, {"content_hmac_sha256", content_mac(key_, id, result)}};
  return write_file_atomically(result_path(id), run::result_file_text(stamped, run_stats), error);
}

bool RunStore::write_error(const std::string& id, const json& doc, std::string* error) const {
  // Replace, not throw on, bytes that are not UTF-8 (a sweep file name may hold any byte).
  return write_file_atomically(
      error_path(id), doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n", error);
}

void RunStore::remove_error(const std::string& id) const {
  std::error_code ec;
  std::filesystem::remove(error_path(id), ec);
}

}  // namespace fdsim::sweep
