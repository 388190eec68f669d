#pragma once
// The runs/ directory of a sweep output: one file per finished run.
//
//   runs/<id>.json        the run's result document (run.h `result`, plus its machine-dependent
//                         `run_stats` under "run_stats")
//   runs/<id>.error.json  why the run failed (only when it has no result)
//   runs/.<name>.tmp.*    temp files of writes in flight (ignored; removed on the next start)
//   runs/.integrity-key   the directory's key: 64 hex digits (32 random bytes) and a newline,
//                         mode 0600, created by the first sweep or merge into the directory
//
// Contract: files are only ever written atomically. A result file is written with an
// "integrity" object: {"run_id": <its id>, "content_hmac_sha256": hex HMAC-SHA-256, under the
// directory's key, of "<run id>\n" + the canonical dump of {"manifest", "metrics"}}. A result
// file is trusted (verify_result() says "") only if it parses under the JSON limits as an
// object with a "metrics" object, its integrity run_id is the id it is stored under, its MAC
// verifies under this directory's key (no hand-edited metric, no file copied in from another
// output directory), and its manifest names this fdsim's version and git revision (no shard of
// another build). A file with the older unkeyed "content_fnv1a64" is not trusted (its own
// message: re-run it); a directory without a readable key trusts no file.
// What the key protects against (issue 24 item 9): a hand edit that recomputes an unkeyed hash
// (FNV-1a was accepted so), scripts that rewrite metrics, and run files copied between output
// directories instead of merged. It does not protect against a user who can read the key file
// (anyone who may write the results may also read it): it is integrity, not authenticity.
// The key never enters a result's manifest, metrics or aggregate, so it changes no result; only
// the MAC in each run file differs between output directories. Merge verifies every input's
// files with that input's key and writes them into its output under the output's key.
// load_result() returns nullopt for anything not trusted, so a caller can treat it as "not
// run yet" (resume reruns it); merge refuses such a file with verify_result()'s reason.

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace fdsim::sweep {

class RunStore {
 public:
  // Reads dir/.integrity-key when it exists (see the contract).
  explicit RunStore(std::filesystem::path dir);

  // Creates the directory's key (0600, from the kernel's random source) unless it has one;
  // call it before write_result. False with `error` when the key cannot be created or read.
  bool ensure_key(std::string* error);
  std::filesystem::path key_path() const { return dir_ / ".integrity-key"; }

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
  std::string key_;          // the 32 key bytes; empty when the directory has no usable key
  std::string key_problem_;  // why key_ is empty ("" when the file is absent)
};

}  // namespace fdsim::sweep
