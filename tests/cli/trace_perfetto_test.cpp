// `fdsim trace --perfetto`: the structure of the Chrome trace-event file made from a real
// traced Geode run (valid JSON, named tracks, flows that pair up, per-track time order), the
// message ids that pair send and recv records in the JSONL trace, and --hide-messages.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/fdsim_process.h"

namespace fdsim_perfetto_test {

namespace fs = std::filesystem;
using nlohmann::json;
using fdsim::test::Result;
using fdsim::test::slurp;

class PerfettoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fdsim-perfetto-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
    std::ofstream(dir_ + "/ring.json") << R"({
      "name": "ring", "seed": 2, "horizon_s": 30, "nodes": {"count": 5},
      "network": {"latency": {"model": "exponential", "min_ms": 1, "mean_ms": 3}, "loss": 0.05},
      "faults": [{"kind": "crash", "at_s": 10, "nodes": [2]}],
      "membership": {"neighbour_check": [{"name": "fixed"},
                                         {"name": "phi", "detector": {"kind": "phi_accrual"}}]}})";
    const Result r = fdsim("run ring.json --trace --quiet --out o");
    ASSERT_EQ(r.code, 0) << r.err;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Result fdsim(const std::string& args) const { return fdsim::test::run_fdsim(dir_, args, dir_); }
  std::vector<json> trace_records() const {
    std::vector<json> out;
    std::ifstream in(dir_ + "/o/ring-seed2-rep0.trace.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }
  std::string dir_;
};

TEST_F(PerfettoTest, SendRecvAndDropRecordsPairUpByMessageId) {
  // Per arm: each recv and drop has an earlier send with the same id, sender and receiver.
  std::map<std::pair<std::string, uint64_t>, json> sends;
  size_t recvs = 0, drops = 0;
  for (const json& r : trace_records()) {
    const std::string kind = r["kind"];
    if (kind != "send" && kind != "recv" && kind != "drop") continue;
    ASSERT_TRUE(r.contains("msg_id") && r["msg_id"].is_number_unsigned()) << r.dump();
    const auto key = std::make_pair(r["arm"].get<std::string>(), r["msg_id"].get<uint64_t>());
    if (kind == "send") {
      auto it = sends.find(key);
      if (it != sends.end()) {  // a retransmission: the same message
        EXPECT_EQ(it->second["from"], r["from"]) << r.dump();
        EXPECT_EQ(it->second["to"], r["to"]) << r.dump();
      }
      sends.emplace(key, r);
      continue;
    }
    auto it = sends.find(key);
    ASSERT_NE(it, sends.end()) << "no send before " << r.dump();
    EXPECT_EQ(it->second["from"], r["from"]) << r.dump();
    EXPECT_EQ(it->second["to"], r["to"]) << r.dump();
    EXPECT_EQ(it->second["msg"], r["msg"]) << r.dump();
    EXPECT_LE(it->second["t_ns"].get<int64_t>(), r["t_ns"].get<int64_t>());
    (kind == "recv" ? recvs : drops)++;
  }
  EXPECT_GT(recvs, 100u);
  EXPECT_GT(drops, 0u);  // 5% loss and a crash
}

TEST_F(PerfettoTest, ExportedFileHasNamedTracksPairedFlowsAndOrderedTimes) {
  const Result r = fdsim("trace o/ring-seed2-rep0.trace.jsonl --arm fixed --perfetto p.json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json doc = json::parse(slurp(dir_ + "/p.json"));  // throws (fails) if not JSON
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc["traceEvents"].is_array());
  const json& ev = doc["traceEvents"];
  std::map<int64_t, std::string> process_names, thread_names;
  std::map<uint64_t, json> starts, finishes;
  std::map<std::pair<int64_t, int64_t>, double> last_ts;
  std::set<std::string> instants;
  size_t slices = 0;
  for (const json& e : ev) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid")) << e.dump();
    const std::string ph = e["ph"];
    if (ph == "M") {
      if (e["name"] == "process_name") process_names[e["pid"]] = e["args"]["name"];
      if (e["name"] == "thread_name") thread_names[e["tid"]] = e["args"]["name"];
      continue;
    }
    ASSERT_TRUE(e["ts"].is_number()) << e.dump();
    const auto track = std::make_pair(e["pid"].get<int64_t>(), e["tid"].get<int64_t>());
    if (last_ts.count(track)) {
      EXPECT_GE(e["ts"].get<double>(), last_ts[track]) << e.dump();
    }
    last_ts[track] = e["ts"].get<double>();
    if (ph == "s") {
      EXPECT_TRUE(starts.emplace(e["id"].get<uint64_t>(), e).second) << e.dump();
    }
    if (ph == "f") {
      EXPECT_EQ(e["bp"], "e");
      EXPECT_TRUE(finishes.emplace(e["id"].get<uint64_t>(), e).second) << e.dump();
    }
    if (ph == "i") instants.insert(e["name"].get<std::string>());
    if (ph == "X") ++slices;
    EXPECT_TRUE(ph == "X" || ph == "s" || ph == "f" || ph == "i") << e.dump();
  }
  // Tracks: the five nodes, each named.
  EXPECT_EQ(process_names.size(), 5u);
  for (int64_t pid = 1; pid <= 5; ++pid) {
    EXPECT_EQ(process_names[pid], "node " + std::to_string(pid - 1));
    EXPECT_EQ(thread_names[pid], "node " + std::to_string(pid - 1));
  }
  for (const auto& [track, ts] : last_ts) EXPECT_TRUE(process_names.count(track.first));
  // Flows: every start has one finish with the same id, later and on another track.
  EXPECT_GT(starts.size(), 100u);
  EXPECT_EQ(starts.size(), finishes.size());
  for (const auto& [id, s] : starts) {
    auto f = finishes.find(id);
    ASSERT_NE(f, finishes.end()) << "flow " << id << " has no finish";
    EXPECT_LE(s["ts"].get<double>(), f->second["ts"].get<double>());
    EXPECT_EQ(s["name"], f->second["name"]);
  }
  for (const auto& [id, f] : finishes) EXPECT_TRUE(starts.count(id)) << id;
  EXPECT_GT(slices, 2 * starts.size() - 1);
  // Instants: the crash, suspicions and view changes of the run.
  EXPECT_TRUE(instants.count("crash"));
  EXPECT_TRUE(instants.count("suspect")) << json(instants).dump();
  EXPECT_TRUE(instants.count("view_installed")) << json(instants).dump();
}

TEST_F(PerfettoTest, HideMessagesTakesTheDiagramsNamesAndRejectsOthers) {
  const Result hidden = fdsim(
      "trace o/ring-seed2-rep0.trace.jsonl --arm fixed --perfetto h.json "
      "--hide-messages heartbeat,geode.heartbeat_request");
  ASSERT_EQ(hidden.code, 0) << hidden.err;
  const json doc = json::parse(slurp(dir_ + "/h.json"));
  for (const json& e : doc["traceEvents"]) {
    if (!e.contains("args") || !e["args"].contains("msg")) continue;
    EXPECT_NE(e["args"]["msg"], "geode.heartbeat") << e.dump();
    EXPECT_NE(e["args"]["msg"], "geode.heartbeat_request") << e.dump();
  }
  const Result puml = fdsim(
      "trace o/ring-seed2-rep0.trace.jsonl --arm fixed --plantuml --hide-messages heartbeat");
  ASSERT_EQ(puml.code, 0) << puml.err;
  EXPECT_EQ(puml.out.find(" : heartbeat @"), std::string::npos);
  EXPECT_NE(puml.out.find(" : prepare_view @"), std::string::npos);

  const Result bad = fdsim(
      "trace o/ring-seed2-rep0.trace.jsonl --arm fixed --plantuml --hide-messages hartbeat");
  EXPECT_EQ(bad.code, 2);
  ASSERT_EQ(bad.err_lines().size(), 1u) << bad.err;
  EXPECT_EQ(bad.err_lines()[0].rfind("o/ring-seed2-rep0.trace.jsonl: --hide-messages: no message "
                                     "\"hartbeat\" in this trace (messages: ",
                                     0),
            0u)
      << bad.err;
  EXPECT_NE(bad.err.find("heartbeat (geode.heartbeat)"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir_ + "/bad.json"));
  const Result both = fdsim("trace o/ring-seed2-rep0.trace.jsonl --perfetto p.json");
  EXPECT_EQ(both.code, 2);  // two arms: choose one
}

// Spans on a hand-made trace (issue 28): every period between a start and an end record is one
// complete event on its own track, with exact start and duration.
TEST_F(PerfettoTest, PausesSickPeriodsPartitionsAndViewMembershipAreSpans) {
  std::ofstream(dir_ + "/hand.jsonl")
      << R"({"t_ns": 500000000, "node": 2, "kind": "view_installed", "view_id": 1, "members": [0, 1, 2]})" "\n"
      << R"({"t_ns": 1000000000, "node": 0, "kind": "pause", "until_s": 3})" "\n"
      << R"({"t_ns": 2000000000, "node": 1, "kind": "sick", "until_s": null})" "\n"
      << R"({"t_ns": 2500000000, "node": 2, "kind": "view_installed", "view_id": 2, "members": [0, 1, 2]})" "\n"
      << R"({"t_ns": 3000000000, "node": 0, "kind": "resume"})" "\n"
      << R"({"t_ns": 4000000000, "node": null, "kind": "partition", "a": [0], "b": [], "one_way": false})" "\n"
      << R"({"t_ns": 5000000000, "node": 2, "kind": "removed_from_view", "view_id": 3})" "\n"
      << R"({"t_ns": 6000000000, "node": null, "kind": "heal", "a": [0], "b": []})" "\n"
      << R"({"t_ns": 7000000000, "node": 3, "kind": "starve", "entry": 0})" "\n"
      << R"({"t_ns": 7500000000, "node": 3, "kind": "starve_end", "entry": 0})" "\n";
  const auto spans_of = [&](const std::string& extra) {
    const Result r = fdsim("trace hand.jsonl --perfetto s.json" + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    const json doc = json::parse(slurp(dir_ + "/s.json"));
    std::map<int64_t, std::string> thread;
    std::vector<std::string> out;
    for (const json& e : doc["traceEvents"])
      if (e["ph"] == "M" && e["name"] == "thread_name") thread[e["tid"]] = e["args"]["name"];
    for (const json& e : doc["traceEvents"]) {
      if (e["ph"] != "X" || e["cat"] != "span") continue;
      std::ostringstream line;
      line << thread[e["tid"]] << " | " << e["name"].get<std::string>() << " | "
           << e["ts"].get<double>() << " +" << e["dur"].get<double>() << " | "
           << e["args"].dump();
      out.push_back(line.str());
    }
    return out;
  };
  // Tracks: pid = node + 1 (global = 5); times in microseconds.
  EXPECT_EQ(spans_of(""),
            (std::vector<std::string>{
                "node 0: paused | paused | 1e+06 +2e+06 | {\"until_s\":3}",
                "node 2: in view | in view | 500000 +4.5e+06 | {\"members\":[0,1,2],\"view_id\":1}",
                "global: partitions | partition | 4e+06 +2e+06 | {\"a\":[0],\"b\":[],\"one_way\":false}",
                "node 3: starved | starved | 7e+06 +500000 | {\"entry\":0}",
                "node 1: sick | sick | 2e+06 +5.5e+06 | {\"open_at_end\":true,\"until_s\":null}"}));
  // A window from 2.2 s: the pause began before it; the view span starts at the second install.
  EXPECT_EQ(spans_of(" --from-s 2.2 --to-s 6.5"),
            (std::vector<std::string>{
                "node 0: paused | paused | 2.5e+06 +500000 | {\"begun_before_window\":true}",
                "node 2: in view | in view | 2.5e+06 +2.5e+06 | {\"members\":[0,1,2],\"view_id\":2}",
                "global: partitions | partition | 4e+06 +2e+06 | {\"a\":[0],\"b\":[],\"one_way\":false}"}));
}

}  // namespace fdsim_perfetto_test
