// Empirical delay files: one number per line, '#' comments, errors as strings with line numbers.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "sim/net/delay_samples.h"

namespace fdsim::net {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(DelaySamples, ReadsNumbersSkippingBlankLinesAndComments) {
  const std::string path =
      write_file("ok.txt", "# measured on a LAN\n0.5\n\n  1.25  # trailing comment\n3e-1\n7\n");
  std::string err = "stale";
  const auto v = load_delay_samples_ms(path, err);
  EXPECT_EQ(err, "");
  EXPECT_EQ(v, (std::vector<double>{0.5, 1.25, 0.3, 7}));
}

TEST(DelaySamples, BadLineIsReportedWithFileAndLineNumber) {
  const std::string path = write_file("bad.txt", "1\n2\nabc\n");
  std::string err;
  EXPECT_TRUE(load_delay_samples_ms(path, err).empty());
  EXPECT_EQ(err, path + ":3: expected one finite delay in ms >= 0 and <= 1e9 per line "
                        "(optionally followed by a # comment)");
  EXPECT_EQ(err.find("abc"), std::string::npos) << "the file's contents must not be echoed";
}

TEST(DelaySamples, NegativeAndPartlyNumericLinesAreErrors) {
  std::string err;
  EXPECT_TRUE(load_delay_samples_ms(write_file("neg.txt", "1\n-2\n"), err).empty());
  EXPECT_NE(err.find(":2: expected one finite delay in ms >= 0 and <= 1e9 per line"), std::string::npos)
      << err;
  EXPECT_TRUE(load_delay_samples_ms(write_file("two.txt", "1 2\n"), err).empty());
  EXPECT_NE(err.find(":1:"), std::string::npos) << err;
}

TEST(DelaySamples, MissingOrEmptyFileIsAnError) {
  std::string err;
  EXPECT_TRUE(load_delay_samples_ms(testing::TempDir() + "/does-not-exist.txt", err).empty());
  EXPECT_NE(err.find("cannot open"), std::string::npos) << err;
  EXPECT_TRUE(load_delay_samples_ms(write_file("empty.txt", "# nothing\n\n"), err).empty());
  EXPECT_NE(err.find("no delay samples"), std::string::npos) << err;
}

// A FIFO would block the reader forever and a character device never ends: both are refused
// before any read (issue 16: `validate` hung on a FIFO and read /dev/zero until it died).
TEST(DelaySamples, NonRegularFilesAreRefusedWithoutReading) {
  std::string err;
  const std::string fifo = testing::TempDir() + "/delays.fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(load_delay_samples_ms(fifo, err).empty());
  EXPECT_EQ(err, fifo + ": is not a regular file");
  EXPECT_TRUE(load_delay_samples_ms("/dev/zero", err).empty());
  EXPECT_EQ(err, "/dev/zero: is not a regular file");
  ::unlink(fifo.c_str());
}

// Issue 24: a NUL inside a number ("1\0" + "5") was read as 1 (strtod stops at the NUL), and
// a sample above about 9.2e12 ms overflowed the nanosecond conversion inside a run.
TEST(DelaySamples, NulInsideANumberAndHugeSamplesAreErrors) {
  std::string err;
  EXPECT_TRUE(load_delay_samples_ms(write_file("nul.txt", std::string("1\0" "5\n", 4)), err).empty());
  EXPECT_NE(err.find("nul.txt:1: expected one finite delay"), std::string::npos) << err;
  EXPECT_TRUE(load_delay_samples_ms(write_file("huge.txt", "1\n1e13\n"), err).empty());
  EXPECT_NE(err.find("huge.txt:2:"), std::string::npos) << err;
  std::string digest;
  EXPECT_EQ(load_delay_samples_ms(write_file("ok.txt", "1e9\n0\n"), err, &digest).size(), 2u);
  EXPECT_EQ(digest.rfind("fnv1a64:", 0), 0u) << digest;
  EXPECT_EQ(digest.size(), 8u + 16u);
}

}  // namespace
}  // namespace fdsim::net
