#pragma once
// The runs/ directory of a sweep output: one file per finished run.
//
//   runs/<id>.json        the run's result document (run.h `result`, plus its machine-dependent
//                         `run_stats` under "run_stats")
//   runs/<id>.error.json  why the run failed (only when it has no result)
//   runs/.<name>.tmp.*    temp files of writes in flight (ignored; removed on the next start)
//
// Contract: files are only ever written atomically. A result file is written with an
// "integrity" object: {"run_id": <its id>, "content_fnv1a64": hex FNV-1a 64 of the canonical
// dump of {"manifest", "metrics"}}. A result file is trusted (verify_result() says "") only if
// it parses under the JSON limits as an object with a "metrics" object, its integrity run_id
// is the id it is stored under, its content hash matches (no hand-edited metric), and its
// manifest names this fdsim's version and git revision (no shard of another build).
// load_result() returns nullopt for anything not trusted, so a caller can treat it as "not
// run yet" (resume reruns it); merge refuses such a file with verify_result()'s reason.

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace fdsim::sweep {

class RunStore {
 public:
  explicit RunStore(std::filesystem::path dir) : dir_(std::move(dir)) {}

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path result_path(const std::string& id) const { return dir_ / (id + ".json"); }
  std::filesystem::path error_path(const std::string& id) const {
    return dir_ / (id + ".error.json");
  }

  std::optional<nlohmann::json> load_result(const std::string& id) const;
  // Why the stored result of `id` is not trusted ("" when it is, "absent" when there is none).
  // With `require_this_build` false the manifest's version and revision are not compared
  // (`fdsim export --any-build`); every other check still applies.
  std::string verify_result(const std::string& id, nlohmann::json* doc = nullptr,
                            bool require_this_build = true) const;
  // The file of `fdsim run` (run::result_file_text): result + {"run_stats": run_stats}.
  bool write_result(const std::string& id, const nlohmann::json& result,
                    const nlohmann::json& run_stats, std::string* error) const;
  bool write_error(const std::string& id, const nlohmann::json& doc, std::string* error) const;
  void remove_error(const std::string& id) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace fdsim::sweep
