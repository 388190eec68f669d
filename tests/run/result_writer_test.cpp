// Result files: atomic writes, names, the run_stats placement; the trace line format.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "sim/run/result_writer.h"
#include "sim/run/trace_collector.h"
#include "sim/run/trace_output.h"

namespace fdsim::run {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "fdsim-writer-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> v;
    for (const auto& e : fs::directory_iterator(path_)) v.push_back(e.path().filename().string());
    std::sort(v.begin(), v.end());
    return v;
  }

 private:
  std::string path_;
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(WriteFileAtomic, WritesAndReplacesLeavingNoTemporaryFile) {
  TempDir d;
  const std::string p = d.path() + "/r.json";
  EXPECT_EQ(write_file_atomic(p, "first"), "");
  EXPECT_EQ(slurp(p), "first");
  EXPECT_EQ(write_file_atomic(p, "second, longer"), "");
  EXPECT_EQ(slurp(p), "second, longer");
  EXPECT_EQ(d.entries(), std::vector<std::string>{"r.json"});
}

TEST(WriteFileAtomic, MissingDirectory_IsAnErrorNamingThePath) {
  TempDir d;
  const std::string p = d.path() + "/no/such/dir/r.json";
  EXPECT_EQ(write_file_atomic(p, "x"), "cannot write " + p + ": No such file or directory");
  EXPECT_TRUE(d.entries().empty());
}

TEST(ResultFiles, NamesCarryScenarioSeedAndReplication) {
  EXPECT_EQ(result_stem("geode-crash", 42, 3), "geode-crash-seed42-rep3");
}

TEST(ResultFiles, RunStatsIsTheLastKeyAndTheTextEndsWithANewline) {
  const json result = {{"manifest", {{"a", 1}}}, {"metrics", {{"x", {{"y", 2.5}}}}}};
  const std::string text = result_file_text(result, {{"wall_time_s", 0.25}});
  EXPECT_EQ(text,
            "{\n  \"manifest\": {\n    \"a\": 1\n  },\n  \"metrics\": {\n    \"x\": {\n      \"y\": "
            "2.5\n    }\n  },\n  \"run_stats\": {\n    \"wall_time_s\": 0.25\n  }\n}\n");
}

TEST(ResultFiles, WriteRunFiles_CreatesTheDirectoryAndWritesResultAndTrace) {
  TempDir d;
  const std::string out = d.path() + "/deep/out";
  const json result = {{"manifest", {{"scenario_name", "s"}, {"seed", 7}, {"replication", 0}}},
                       {"metrics", json::object()}};
  const std::vector<std::string> lines = {"{\"t_ns\":1}", "{\"t_ns\":2}"};
  const WrittenRun w = write_run_files(out, result, {{"wall_time_s", 1.0}}, &lines);
  ASSERT_EQ(w.error, "");
  EXPECT_EQ(w.result_path, out + "/s-seed7-rep0.json");
  EXPECT_EQ(w.trace_path, out + "/s-seed7-rep0.trace.jsonl");
  EXPECT_EQ(slurp(w.trace_path), "{\"t_ns\":1}\n{\"t_ns\":2}\n");
  const json back = json::parse(slurp(w.result_path));
  EXPECT_EQ(back["run_stats"]["wall_time_s"], 1.0);
  EXPECT_EQ(back["manifest"], result["manifest"]);
  const WrittenRun no_trace = write_run_files(out, result, json::object(), nullptr);
  EXPECT_EQ(no_trace.error, "");
  EXPECT_EQ(no_trace.trace_path, "");
}

TEST(TraceCollector, LineFormat_LeadingKeysThenSortedFields) {
  std::vector<std::string> lines;
  TraceLines out(lines);
  TraceCollector labelled(out, "fixed");
  labelled.record(SimTime::from_ns(1500), 3, "send", json{{"to", 4}, {"msg", "heartbeat"}, {"from", 3}});
  TraceCollector plain(out, "");
  plain.record(SimTime::from_ns(2), kNoNode, "partition", json{{"a", {1, 2}}});
  plain.record(SimTime::from_ns(3), 0, "tick", json());
  EXPECT_EQ(lines, (std::vector<std::string>{
                       R"({"t_ns":1500,"node":3,"kind":"send","arm":"fixed","from":3,"msg":"heartbeat","to":4})",
                       R"({"t_ns":2,"node":null,"kind":"partition","a":[1,2]})",
                       R"({"t_ns":3,"node":0,"kind":"tick"})"}));
}

// A reserved field name is a programmer error; it must fail the run (exit 1, or one failed
// run of a sweep), not abort the process (issue 16: --trace aborted every load-sharing run).
TEST(TraceCollector, AFieldNamedLikeALeadingKeyThrowsALogicError) {
  std::vector<std::string> lines;
  TraceLines out(lines);
  TraceCollector c(out, "");
  try {
    c.record(SimTime::from_ns(5), 2, "send", json{{"node", 1}});
    FAIL() << "expected std::logic_error";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(),
                 "at t=0.000000005s node 2: trace record 'send' has a field named 'node', which "
                 "is reserved");
  }
  EXPECT_TRUE(lines.empty());
}

// The streaming trace file appears whole at commit and not before; an uncommitted one leaves
// nothing behind.
TEST(TraceFile, StreamsToATemporaryAndAppearsOnlyAtCommit) {
  const std::string dir = testing::TempDir() + "/trace_file_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/t.trace.jsonl";
  std::string error;
  {
    auto f = TraceFile::open(path, &error);
    ASSERT_TRUE(f) << error;
    f->write_line("{\"t_ns\":1}");
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "an uncommitted trace must leave nothing";
  auto f = TraceFile::open(path, &error);
  ASSERT_TRUE(f) << error;
  f->write_line("{\"t_ns\":1}");
  f->write_line("{\"t_ns\":2}");
  EXPECT_EQ(f->commit(), "");
  EXPECT_EQ(slurp(path), "{\"t_ns\":1}\n{\"t_ns\":2}\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator{}),
            1);
}

// A full disk stops the run at the first failed write (it used to simulate to the horizon).
TEST(TraceFile, AFailedWriteThrowsNamingThePath) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string dir = testing::TempDir() + "/trace_file_full";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::string error;
  auto f = TraceFile::open(dir + "/t.trace.jsonl", &error);
  ASSERT_TRUE(f) << error;
  // Redirect the stream to /dev/full, which fails every write with ENOSPC.
  ASSERT_TRUE(std::freopen("/dev/full", "w", f->stream_for_test()) != nullptr);
  const std::string line(1 << 21, 'x');  // larger than the buffer: the write reaches the device
  try {
    f->write_line(line);
    FAIL() << "expected a write error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + dir + "/t.trace.jsonl: No space left on device");
  }
}

}  // namespace
}  // namespace fdsim::run
