#include "sim/cli/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace fdsim::cli {

namespace {
constexpr const char* kTunable = "glibc.malloc.hugetlb";

bool thp_mode_is_madvise() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  return std::getline(f, line) && line.find("[madvise]") != std::string::npos;
}
}  // namespace

void use_huge_pages_for_malloc(int argc, char** argv) {
#if defined(__SANITIZE_ADDRESS__)
  return;  // AddressSanitizer's allocator ignores glibc's tunables: a re-exec would only cost
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return;
#endif
#endif
  if (argc < 2 || (std::strcmp(argv[1], "run") != 0 && std::strcmp(argv[1], "sweep") != 0))
    return;
  if (const char* off = std::getenv("FDSIM_HUGE_PAGES"); off && std::strcmp(off, "0") == 0)
    return;
  const char* old = std::getenv("GLIBC_TUNABLES");
  if (old && std::strstr(old, kTunable) != nullptr) return;  // given, or already re-executed
  if (!thp_mode_is_madvise()) return;
  const std::string before = old ? old : "";
  const std::string value =
      (before.empty() ? std::string() : before + ":") + kTunable + "=1";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // The exec failed: carry on in this process, with the environment it was given.
  if (old)
    setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

}  // namespace fdsim::cli
