#include "sim/sweep/run_store.h"

#include <cinttypes>
#include <cstdio>

#include "fdsim_version.h"  // generated: FDSIM_VERSION, FDSIM_GIT_REVISION
#include "sim/engine/hash.h"
#include "sim/run/result_writer.h"
#include "sim/scenario/json_document.h"
#include "sim/sweep/atomic_file.h"

namespace fdsim::sweep {

using nlohmann::json;

namespace {

// Hex FNV-1a 64 of the canonical dump of the deterministic part of a result.
std::string content_hash(const json& doc) {
  const json content = {{"manifest", doc.contains("manifest") ? doc["manifest"] : json()},
                        {"metrics", doc.contains("metrics") ? doc["metrics"] : json()}};
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, fnv1a64(content.dump()));
  return buf;
}

const json* field(const json& doc, const char* a, const char* b) {
  if (!doc.is_object() || !doc.contains(a) || !doc[a].is_object() || !doc[a].contains(b))
    return nullptr;
  return &doc[a][b];
}

}  // namespace

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
  const json* hash = field(doc, "integrity", "content_fnv1a64");
  if (run_id == nullptr || hash == nullptr) return "no integrity record";
  if (*run_id != id) return "it is the result of run " + run_id->dump() + ", not of " + id;
  if (*hash != content_hash(doc)) return "its content does not match its integrity hash (edited?)";
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
  json stamped = result;
  stamped["integrity"] = {{"run_id", id}, {"content_fnv1a64", content_hash(result)}};
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
