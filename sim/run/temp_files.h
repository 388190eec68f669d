#pragma once
// Names of the temporary files of atomic writes (results, traces, sweep files), and the removal
// of those a killed process left behind (issue 24, item 11).
//
// Contract:
// - temporary_name(target) = ".<target>.tmp.<host>.<pid>.<n>": hidden, never ending in
//   ".json", with the writer's host name (letters, digits and '-' kept, anything else as '_',
//   at most 64 characters), its pid and a per-process counter, so that any process can tell
//   whose temporary a file is.
// - remove_stale_temporaries(dir) removes, in `dir` only (not below), every such file whose
//   host is this host and whose pid is not a live process here (kill(pid, 0) fails with ESRCH)
//   -- what `kill -9` during `fdsim run --trace` leaves. A temporary of a live process (this
//   one, or another fdsim writing into the same directory), of another host (a directory on a
//   shared file system), or with a name it cannot parse (the older ".<name>.tmp.<pid>.<n>")
//   is kept: removing a live writer's file would make its commit fail. A reused pid only keeps
//   a stale file longer. Returns how many it removed; never throws.

#include <cstddef>
#include <string>

namespace fdsim::run {

std::string temporary_name(const std::string& target_file_name, unsigned long long counter);

// This host's name as it appears in temporary names.
const std::string& temporary_host_tag();

size_t remove_stale_temporaries(const std::string& dir);

}  // namespace fdsim::run
