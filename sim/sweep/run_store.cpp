#include "sim/sweep/run_store.h"

#include "sim/run/result_writer.h"
#include "sim/scenario/json_document.h"
#include "sim/sweep/atomic_file.h"

namespace fdsim::sweep {

using nlohmann::json;

std::optional<json> RunStore::load_result(const std::string& id) const {
  const auto text = read_file(result_path(id));
  if (!text) return std::nullopt;
  const scenario::JsonDocument parsed = scenario::parse_json_text(*text, result_path(id).string());
  if (!parsed.ok()) return std::nullopt;
  const json& doc = *parsed.doc;
  if (!doc.is_object() || !doc.contains("metrics") || !doc["metrics"].is_object())
    return std::nullopt;
  return doc;
}

bool RunStore::write_result(const std::string& id, const json& result, const json& run_stats,
                            std::string* error) const {
  return write_file_atomically(result_path(id), run::result_file_text(result, run_stats), error);
}

bool RunStore::write_error(const std::string& id, const json& doc, std::string* error) const {
  return write_file_atomically(error_path(id), doc.dump(2) + "\n", error);
}

void RunStore::remove_error(const std::string& id) const {
  std::error_code ec;
  std::filesystem::remove(error_path(id), ec);
}

}  // namespace fdsim::sweep
