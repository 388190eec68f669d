// Issue 24, third round, through the real binary: `fdsim validate` of a sweep prints its cost
// estimate, SWIM's own memory refusal honours --max-memory-gb, and `fdsim trace` reads its
// file in one pass in bounded memory.

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/engine/hash.h"
#include "tests/cli/fdsim_process.h"

namespace robust3 {

using fdsim::test::Result;
using nlohmann::json;

class Robust3 : public fdsim::test::TempDirTest {};

size_t count_lines_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  size_t n = 0;
  for (std::string l; std::getline(in, l);) n += l.rfind(prefix, 0) == 0;
  return n;
}

json small_study(double horizon_s) {
  return {{"name", "cost"},
          {"horizon_s", horizon_s},
          {"nodes", {{"count", 10}}},
          {"detectors", {{"arms", {{{"name", "f"}, {"detector", {{"kind", "fixed"}}}}}}}}};
}

// The scenario alone: 13 000 events at 100 s (130 events per simulated second: the 10 senders'
// heartbeats, 3 events each at most (send, delivery, deadline), and the network's
// retransmission timer). The sweep runs it at 100 s and 1000 s, 3 replications each:
// 3 x 13 000 + 3 x 130 000 = 429 000 events. Failed before: validate
// printed only "sw.json: ok".
TEST_F(Robust3, ValidateOfASweepPrintsItsCostEstimate) {
  write("one.json", small_study(100).dump());
  Result r = fdsim("validate one.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "one.json: ok, about 87 kB per simulation and 13000 events (limits 16.0 GB / "
                   "1e+11 events)\n");

  const json sweep = {{"name", "c"},
                      {"base", small_study(100)},
                      {"axes", {{{"path", "$.horizon_s"}, {"values", {100, 1000}}}}},
                      {"replications", 3}};
  write("sw.json", sweep.dump());
  r = fdsim("validate sw.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "sw.json: ok, about 87 kB per simulation (the costliest point) and 429000 "
                   "events over 2 points and 6 runs (limits 16.0 GB / 1e+11 events)\n");
  // The limits it prints are the command line's, and standard input is read the same way.
  r = fdsim("validate - --max-events 1e6 < sw.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "<stdin>: ok, about 87 kB per simulation (the costliest point) and 429000 "
                   "events over 2 points and 6 runs (limits 16.0 GB / 1e+06 events)\n");
  r = fdsim("validate --quiet sw.json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

// SWIM refused any cluster whose members' state (12 kB x n + 4 B x n^2) was over a fixed 16 GB,
// whatever --max-memory-gb said. Failed before: 100 000 members (41.2 GB) with --max-memory-gb
// 100 exited 2 ("over the bound of 16.0 GB"); 2 000 members (40 MB) with --max-memory-gb 0.01
// were refused by the generic estimate, not by SWIM's message with the 10 MB bound. (Only the
// bound is asserted, not the estimate's figure: the SWIM model's own estimate may change.)
TEST_F(Robust3, SwimMemoryRefusalHonoursMaxMemoryGb) {
  const auto swim = [](int n) {
    return json{{"name", "big"}, {"horizon_s", 10}, {"nodes", {{"count", n}}}, {"swim", json::object()}};
  };
  write("big.json", swim(100000).dump());
  Result r = fdsim("validate big.json --max-memory-gb 100");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("big.json: ok, about ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("(limits 100.0 GB / 1e+11 events)"), std::string::npos) << r.out;

  write("mid.json", swim(2000).dump());
  r = fdsim("validate mid.json");
  EXPECT_EQ(r.code, 0) << r.err;
  r = fdsim("validate mid.json --max-memory-gb 0.01");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("mid.json: $.swim: nodes.count 2000: the SWIM members' state would need "
                        "about ", 0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("over the bound of 10 MB (raise with --max-memory-gb; "
                       "models/swim/README.md, Memory)\n"),
            std::string::npos)
      << r.err;
}

// A 24 MB trace of 200 000 message records. `fdsim trace` held every record (about 8.5 times
// the file: 200 MB here, 1.8 GB for a 215 MB trace); it now streams, so the summary and the
// diagram run under a 100 MB address-space cap. Failed before: the summary ran out of memory
// under the cap (exit 1), and --plantuml drew all 200 000 arrows.
TEST_F(Robust3, TraceSummaryAndPlantUmlStreamInBoundedMemory) {
#if defined(__SANITIZE_ADDRESS__) || defined(FDSIM_SANITIZED)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no ulimit -v run";
#endif
  {
    std::ofstream out(dir_ + "/big.jsonl", std::ios::binary);
    for (int i = 0; i < 200000; ++i)
      out << "{\"t_ns\":" << i * 1000LL << ",\"node\":" << i % 7
          << ",\"kind\":\"recv\",\"arm\":\"a\",\"msg\":\"geode.heartbeat\",\"from\":" << i % 7
          << ",\"to\":" << (i + 1) % 7 << ",\"msg_id\":" << i << "}\n";
  }
  ASSERT_GT(file("big.jsonl").size(), 20u << 20);
  EXPECT_EQ(capped("trace big.jsonl", 100000), 0) << file("err.txt");
  EXPECT_EQ(file("out.txt"),
            "big.jsonl: 200000 records from 0 s to 0.199999 s\narms:\n  a 200000\nrecords by "
            "kind:\n  recv 200000\nmessages by kind and type:\n  recv geode.heartbeat 200000\n");

  // The diagram keeps its first 100 000 lines and says how many it left out.
  EXPECT_EQ(capped("trace big.jsonl --plantuml", 100000), 0) << file("err.txt");
  const std::string uml = file("out.txt");
  EXPECT_EQ(count_lines_starting(uml, "n") - count_lines_starting(uml, "note across"), 100000u);
  EXPECT_NE(uml.find("n4 -> n5 : heartbeat @0.100s\nnote across : 100000 more records not drawn "
                     "(cap of 100000 lines / 32 MB; narrow the diagram with --from-s, --to-s, "
                     "--members or --hide-messages)\n@enduml\n"),
            std::string::npos)
      << uml.substr(uml.size() - 300);
  EXPECT_EQ(file("err.txt"),
            "big.jsonl: the diagram holds the first 100000 lines; 100000 more records were not "
            "drawn (narrow it with --from-s, --to-s, --members or --hide-messages)\n");
  // Under the cap nothing changes: a window of 1 ms draws its 1000 records and no note.
  EXPECT_EQ(capped("trace big.jsonl --plantuml --from-s 0.0500005 --to-s 0.0510005", 100000), 0);
  EXPECT_EQ(count_lines_starting(file("out.txt"), "n"), 1000u);  // no note either
  EXPECT_EQ(file("out.txt").find("note across"), std::string::npos);
  EXPECT_EQ(file("err.txt"), "");
}

// The summary's counts by name are bounded too: a trace whose every record has its own kind
// lists 10 000 of them and counts the rest together. Failed before: 10 003 kinds listed.
TEST_F(Robust3, TraceSummaryCountsAtMost10000DistinctNames) {
  {
    std::ofstream out(dir_ + "/kinds.jsonl", std::ios::binary);
    for (int i = 0; i < 10003; ++i)
      out << "{\"t_ns\":" << i << ",\"node\":0,\"kind\":\"k" << 100000 + i << "\"}\n";
  }
  const Result r = fdsim("trace kinds.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(count_lines_starting(r.out, "  k"), 10000u);
  EXPECT_NE(r.out.find("  k109999 1\n  (other names) 3\n"), std::string::npos);
  EXPECT_EQ(r.out.find("k110000"), std::string::npos);
}

// A two-point sweep of a small study into `out` (runs 10 s and 20 s).
json tiny_sweep() {
  return {{"name", "tiny"},
          {"base", small_study(10)},
          {"axes", {{{"path", "$.horizon_s"}, {"values", {10, 20}}}}}};
}

std::vector<std::string> run_files(const std::string& runs_dir) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(runs_dir))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Item 9: the run-file hash was unkeyed FNV-1a, so a hand edit with a recomputed hash was
// accepted by merge and export (failed before: exit 0 and the edited metric exported). Now it
// is HMAC-SHA-256 under the output directory's key (runs/.integrity-key, 0600); a file with
// the old FNV-1a record gets its own message (exit 2), a MAC computed without the key is
// refused, and merge of directories with different keys verifies each with its own.
TEST_F(Robust3, RunFilesCarryAKeyedMacAndARecomputedUnkeyedHashIsRefused) {
  write("tiny.json", tiny_sweep().dump());
  Result r = fdsim("sweep tiny.json --out a --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat((dir_ + "/a/runs/.integrity-key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 65);
  const std::vector<std::string> files = run_files(dir_ + "/a/runs");
  ASSERT_EQ(files.size(), 2u);
  json doc = json::parse(fdsim::test::slurp(files[0]));
  ASSERT_TRUE(doc["integrity"].contains("content_hmac_sha256")) << doc["integrity"].dump();
  EXPECT_EQ(doc["integrity"]["content_hmac_sha256"].get<std::string>().size(), 64u);
  EXPECT_FALSE(doc["integrity"].contains("content_fnv1a64"));

  // A second sweep into another directory has another key, so another MAC for the same run;
  // everything else in the file is the same.
  r = fdsim("sweep tiny.json --out b --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(fdsim::test::slurp(dir_ + "/a/runs/.integrity-key"),
            fdsim::test::slurp(dir_ + "/b/runs/.integrity-key"));
  const std::string name = std::filesystem::path(files[0]).filename().string();
  json other = json::parse(fdsim::test::slurp(dir_ + "/b/runs/" + name));
  EXPECT_NE(other["integrity"], doc["integrity"]);
  EXPECT_EQ(other["metrics"], doc["metrics"]);

  // Merge of the two (different keys) verifies each with its own and writes under its own:
  // the merged directory exports.
  r = fdsim("merge a b --out m --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
  r = fdsim("export m");
  EXPECT_EQ(r.code, 0) << r.err;

  // A file copied in from another output directory does not verify: resume runs it again.
  std::filesystem::copy_file(dir_ + "/b/runs/" + name, files[0],
                             std::filesystem::copy_options::overwrite_existing);
  r = fdsim("sweep tiny.json --out a");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("its content does not match its integrity hash"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("1 reused, 1 executed"), std::string::npos) << r.out;

  // A hand edit with the unkeyed FNV-1a hash recomputed, as the old format had it.
  doc = json::parse(fdsim::test::slurp(files[0]));
  doc["metrics"]["f"]["mistakes_count"] = 12345;
  const json content = {{"manifest", doc["manifest"]}, {"metrics", doc["metrics"]}};
  char fnv[17];
  std::snprintf(fnv, sizeof fnv, "%016llx",
                static_cast<unsigned long long>(fdsim::fnv1a64(content.dump())));
  doc["integrity"] = {{"run_id", doc["integrity"]["run_id"]}, {"content_fnv1a64", fnv}};
  write("a/runs/" + name, doc.dump(2));
  r = fdsim("merge a --out m2");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "a/runs/" + name + ": not merged: written with the unkeyed FNV-1a integrity "
                   "hash of an older fdsim, which this fdsim does not trust; run it again (fdsim "
                   "sweep into this output directory reruns it)\n");
  r = fdsim("export a");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("not exported: written with the unkeyed FNV-1a"), std::string::npos) << r.err;

  // The same edit with a MAC under a key of the editor's choosing.
  doc["integrity"] = {{"run_id", doc["integrity"]["run_id"]},
                      {"content_hmac_sha256", std::string(64, '0')}};
  write("a/runs/" + name, doc.dump(2));
  r = fdsim("merge a --out m3");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(r.err, "a/runs/" + name + ": not merged: its content does not match its integrity "
                   "hash (edited?)\n");

  // Without its key a directory's files cannot be verified; a malformed key is refused.
  std::filesystem::remove(dir_ + "/b/runs/.integrity-key");
  r = fdsim("export b");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("its directory has no integrity key"), std::string::npos) << r.err;
  write("b/runs/.integrity-key", "not a key\n");
  r = fdsim("sweep tiny.json --out b");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("is not an integrity key (64 hex digits)"), std::string::npos) << r.err;
}

// Item 9: sweep.json is not trusted. Swapping two points' labels was caught by merge but not by
// export (failed before: export exit 0, each run's rows under the other point's parameters).
TEST_F(Robust3, SwappedPointLabelsInSweepJsonAreRefusedByMergeAndExport) {
  write("tiny.json", tiny_sweep().dump());
  Result r = fdsim("sweep tiny.json --out a --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  r = fdsim("export a");
  ASSERT_EQ(r.code, 0) << r.err;
  json plan = json::parse(fdsim::test::slurp(dir_ + "/a/sweep.json"));
  std::swap(plan["points"][0]["params"], plan["points"][1]["params"]);
  write("a/sweep.json", plan.dump(1));
  const std::string id0 = plan["points"][0]["run_ids"][0];
  const std::string why = "a/sweep.json: point 0 is labelled $.horizon_s = 20 but run " + id0 +
                          " ran with 10.0: sweep.json does not describe these runs\n";
  r = fdsim("merge a --out m");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, why);
  r = fdsim("export a");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, why);

  // A sweep.json with 100 000 extra axes is refused before anything is expanded (it exhausted
  // memory in export; fixed in round two, kept here as a regression test).
  plan = json::parse(fdsim::test::slurp(dir_ + "/a/sweep.json"));
  for (int i = 0; i < 100000; ++i) plan["axes"].push_back("$.x" + std::to_string(i));
  write("a/sweep.json", plan.dump());
  r = fdsim("export a");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "a/sweep.json: not a sweep plan (more than 1000 axes)\n");
}

// Labels the loader normalizes are not contradictions: a node-set group name is resolved to its
// nodes, an object label gains defaults, 1 becomes 1.0. (Failed before: export refused the
// flagship sweep, "point 3 is labelled $.workload.load_phases = an array but run ... ran with an
// array".) A changed scalar inside such a label still is one.
TEST_F(Robust3, NormalizedLabelsAreNotMismatches) {
  json base = small_study(10);
  base["nodes"]["groups"] = {{"low", {0, 1, 2, 3, 4}}};
  json sweep = json::parse(R"({"name": "norm", "axes": [
      {"path": "$.detectors.senders", "values": ["low", "all"]},
      {"path": "$.network", "values": [{"latency": {"model": "constant", "ms": 1}}]}]})");
  sweep["base"] = base;
  write("norm.json", sweep.dump());
  Result r = fdsim("sweep norm.json --out n --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  r = fdsim("export n");
  EXPECT_EQ(r.code, 0) << r.err;
  r = fdsim("merge n --out nm");
  EXPECT_EQ(r.code, 0) << r.err;
  json plan = json::parse(fdsim::test::slurp(dir_ + "/n/sweep.json"));
  for (auto& point : plan["points"]) point["params"]["$.network"]["latency"]["ms"] = 2;
  write("n/sweep.json", plan.dump(1));
  r = fdsim("export n");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("is labelled $.network = "), std::string::npos) << r.err;
}

}  // namespace robust3
