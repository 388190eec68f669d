// libFuzzer target over fdsim's input readers (issue 16): every input is parsed by the one JSON
// reader (sim/scenario/json_document.h), and a document that parses is read as a scenario (the
// loader with every model section) and as a sweep. Nothing may crash, leak, hit undefined
// behaviour (built with ASan + UBSan), or throw: the readers' contract is "never throws, every
// problem is a line". Trace files are JSON lines and go through the same parse_json_text.
//
// Build: CC=clang CXX=clang++ cmake -DFDSIM_FUZZ=ON -DFDSIM_SANITIZE=ON ... (see
// tests/fuzz/README.md); run: fuzz_readers CORPUS_DIR SEED_FILES... -max_total_time=60.

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/run/run.h"
#include "sim/scenario/json_document.h"
#include "sim/sweep/sweep_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const fdsim::scenario::JsonDocument d = fdsim::scenario::parse_json_text(text, "fuzz.json");
  if (!d.ok()) return 0;
  // An exception escaping a section parser is caught by resolve() and reported as the problem
  // "fuzz.json: internal error ...": for the fuzzer that is a bug like a crash. Only that
  // prefix counts: an ordinary problem may quote the input, e.g. an unknown key named
  // "nodesinternal error" (corpus/case-key-quoting-internal-error.json).
  static const std::string kInternal = "fuzz.json: internal error ";
  for (const auto& p : fdsim::run::resolve(*d.doc, "fuzz.json").problems)
    if (p.compare(0, kInternal.size(), kInternal) == 0) __builtin_trap();
  (void)fdsim::sweep::parse_sweep(*d.doc, "fuzz.json");
  return 0;
}
