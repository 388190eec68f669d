#pragma once
// The runs/ directory of a sweep output: one file per finished run.
//
//   runs/<id>.json        the run's result document (run.h `result`, plus its machine-dependent
//                         `run_stats` under "run_stats")
//   runs/<id>.error.json  why the run failed (only when it has no result)
//   runs/.<name>.tmp.*    temp files of writes in flight (ignored; removed on the next start)
//
// Contract: a result file is valid when it parses as a JSON object with a "metrics" object;
// load_result() returns nullopt for anything else (absent, partial, corrupt), so a caller can
// treat "not valid" as "not run yet". Files are only ever written atomically.

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
  // The file of `fdsim run` (run::result_file_text): result + {"run_stats": run_stats}.
  bool write_result(const std::string& id, const nlohmann::json& result,
                    const nlohmann::json& run_stats, std::string* error) const;
  bool write_error(const std::string& id, const nlohmann::json& doc, std::string* error) const;
  void remove_error(const std::string& id) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace fdsim::sweep
