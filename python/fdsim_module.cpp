// The Python module `fdsim` (pybind11): validate, run and sweep from Python, through the very
// loader, engine and sweep code of the `fdsim` command (sim/run/run.h, sim/sweep/commands.h).
//
// Contract:
// - A scenario (or sweep) argument is a dict, a JSON string (its first non-blank character is
//   '{'), or a path (str or os.PathLike). A dict goes through json.dumps and the one JSON
//   reader of fdsim (json_document.h), so it meets the same limits and the same messages as a
//   file; a path is read exactly as `fdsim run PATH` reads it, and relative data files are
//   taken from its directory (from the working directory for a dict or a JSON string).
// - Results are the dicts the result files hold: the result document plus "run_stats" (the only
//   machine-dependent part); json.dumps(r, indent=2, sort_keys=True) of one is the file's text.
// - Bad input raises fdsim.InputError (a ValueError) whose .problems lists every problem line,
//   each naming the JSON path ("<dict>: $.network.loss: ..."); str(e) joins them. A failed run
//   or sweep raises fdsim.RunError (a RuntimeError) with .problems as well.
// - The GIL is released while simulating, so other Python threads run meanwhile; the module
//   itself never calls back into Python during a simulation.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fdsim_version.h"  // generated: FDSIM_VERSION, FDSIM_GIT_REVISION
#include "sim/run/run.h"
#include "sim/run/scenario_loader.h"
#include "sim/scenario/json_document.h"
#include "sim/sweep/commands.h"
#include "sim/sweep/json_path.h"
#include "sim/sweep/run_api.h"

namespace py = pybind11;
using nlohmann::json;

namespace {

// Python exception types, created once at import (module init below).
PyObject* g_input_error = nullptr;
PyObject* g_run_error = nullptr;

[[noreturn]] void raise_with_problems(PyObject* type, const std::vector<std::string>& problems) {
  std::string text;
  for (const auto& p : problems) text += (text.empty() ? "" : "\n") + p;
  py::object exc = py::reinterpret_borrow<py::object>(type)(text);
  exc.attr("problems") = py::cast(problems);
  PyErr_SetObject(type, exc.ptr());
  throw py::error_already_set();
}

// A document given from Python, read by fdsim's own JSON reader.
struct Input {
  json doc;
  std::string source;     // names it in messages; its directory is the base of data files
  std::string path;       // set when it came from a file
};

Input read_input(const py::object& obj, const char* dict_name) {
  Input in;
  fdsim::scenario::JsonDocument d;
  const py::module_ os = py::module_::import("os");
  if (py::isinstance<py::dict>(obj)) {
    in.source = dict_name;
    const std::string text = py::module_::import("json").attr("dumps")(obj).cast<std::string>();
    d = fdsim::scenario::parse_json_text(text, in.source);
  } else if (py::isinstance<py::str>(obj) || py::hasattr(obj, "__fspath__")) {
    const std::string s = py::isinstance<py::str>(obj)
                              ? obj.cast<std::string>()
                              : os.attr("fspath")(obj).cast<std::string>();
    const size_t first = s.find_first_not_of(" \t\r\n");
    if (py::isinstance<py::str>(obj) && first != std::string::npos && s[first] == '{') {
      in.source = "<json>";
      d = fdsim::scenario::parse_json_text(s, in.source);
    } else {
      in.source = s;
      in.path = s;
      d = fdsim::scenario::read_json_file(s);
    }
  } else {
    throw py::type_error(std::string("expected a dict, a JSON string or a path, got ") +
                         py::str(obj.get_type().attr("__name__")).cast<std::string>());
  }
  if (!d.ok()) raise_with_problems(g_input_error, d.errors);
  in.doc = std::move(*d.doc);
  return in;
}

// Python value from a JSON document (through json.loads: exactly what reading the file gives).
py::object to_python(const json& doc) {
  return py::module_::import("json").attr("loads")(
      doc.dump(-1, ' ', false, json::error_handler_t::replace));
}

bool is_sweep(const json& doc) {
  return doc.is_object() && (doc.contains("base") || doc.contains("axes"));
}

// {"$.path": value} overrides, as `fdsim run --set PATH=VALUE` writes them (same JsonPath).
void apply_overrides(const py::object& set, Input& in) {
  if (set.is_none()) return;
  if (!py::isinstance<py::dict>(set)) throw py::type_error("set: expected a dict {\"$.path\": value}");
  std::vector<std::string> problems;
  for (auto item : set.cast<py::dict>()) {
    const std::string key = py::str(item.first).cast<std::string>();
    std::string error;
    auto path = fdsim::sweep::JsonPath::parse(key, &error);
    if (!path) {
      problems.push_back(in.source + ": set[" + key + "]: " + error);
      continue;
    }
    const std::string text =
        py::module_::import("json").attr("dumps")(item.second).cast<std::string>();
    fdsim::scenario::JsonDocument v = fdsim::scenario::parse_json_text(text, "set[" + key + "]");
    if (!v.ok()) {
      problems.insert(problems.end(), v.errors.begin(), v.errors.end());
      continue;
    }
    if (const std::string why = path->settable(in.doc, "the scenario"); !why.empty()) {
      problems.push_back(in.source + ": set[" + key + "]: " + why);
      continue;
    }
    path->set(in.doc, std::move(*v.doc));
  }
  if (!problems.empty()) raise_with_problems(g_input_error, problems);
}

py::object validate(const py::object& scenario, const py::object& set) {
  Input in = read_input(scenario, "<dict>");
  if (is_sweep(in.doc)) {
    if (!set.is_none()) raise_with_problems(g_input_error, {in.source + ": set changes scenarios; vary a sweep's base with its axes"});
    std::vector<std::string> problems;
    {
      py::gil_scoped_release nogil;
      problems = in.path.empty()
                     ? fdsim::sweep::validate_sweep_document(in.doc, in.source,
                                                             fdsim::sweep::real_run_api())
                     : fdsim::sweep::validate_sweep_file(in.path, fdsim::sweep::real_run_api());
    }
    if (!problems.empty()) raise_with_problems(g_input_error, problems);
    return py::none();
  }
  apply_overrides(set, in);
  fdsim::run::ResolveOutcome r = fdsim::run::resolve(in.doc, in.source);
  if (!r.ok) raise_with_problems(g_input_error, r.problems);
  return to_python(r.resolved);
}

py::list run(const py::object& scenario, std::optional<uint64_t> seed,
             std::optional<int64_t> replications, const py::object& set) {
  Input in = read_input(scenario, "<dict>");
  if (is_sweep(in.doc))
    raise_with_problems(g_input_error, {in.source + ": is a sweep; run it with fdsim.sweep()"});
  apply_overrides(set, in);
  if (seed && in.doc.is_object()) in.doc["seed"] = *seed;  // as `fdsim run --seed`
  if (replications && (*replications < 1 || *replications > 1000000))
    throw py::value_error("replications: expected an integer from 1 to 1000000");
  fdsim::run::LoadResult load = fdsim::run::load_scenario_json(
      in.doc, in.source, fdsim::run::directory_of(in.source));
  if (!load.ok()) raise_with_problems(g_input_error, load.problems);
  const int64_t reps = replications ? *replications : load.scenario->top.replications;

  std::vector<json> results;
  std::vector<std::string> problems;
  bool internal = false;
  {
    py::gil_scoped_release nogil;
    for (int64_t rep = 0; rep < reps; ++rep) {
      fdsim::run::RunOutcome out = fdsim::run::execute(in.doc, in.source, uint64_t(rep));
      if (!out.ok) {
        problems.insert(problems.end(), out.problems.begin(), out.problems.end());
        if (!out.internal_error.empty()) {
          internal = true;
          problems.push_back(in.source + ": internal error in replication " +
                             std::to_string(rep) + ": " + out.internal_error);
        }
        break;
      }
      json doc = std::move(out.result);
      doc["run_stats"] = std::move(out.run_stats);
      results.push_back(std::move(doc));
    }
  }
  if (!problems.empty()) raise_with_problems(internal ? g_run_error : g_input_error, problems);
  py::list list;
  for (const auto& r : results) list.append(to_python(r));
  return list;
}

// Lines of a captured stream, without empty ones.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream s(text);
  for (std::string line; std::getline(s, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

py::dict sweep(const py::object& sweep_arg, const py::object& out, size_t jobs,
               std::optional<std::string> reference_arm) {
  Input in = read_input(sweep_arg, "<sweep>");
  if (!is_sweep(in.doc))
    raise_with_problems(g_input_error, {in.source + ": is a scenario, not a sweep (a sweep has \"base\" and \"axes\"); run it with fdsim.run()"});
  if (jobs < 1) throw py::value_error("jobs: expected an integer >= 1");
  fdsim::sweep::SweepCommandOptions o;
  o.sweep_file = in.source;
  if (in.path.empty()) o.sweep_doc = in.doc;
  o.out_dir = py::module_::import("os").attr("fspath")(out).cast<std::string>();
  o.jobs = jobs;
  o.reference_arm = reference_arm;
  o.quiet = false;  // the summary line is returned
  o.progress = fdsim::sweep::ProgressStyle::kQuiet;
  std::ostringstream out_text, err_text;
  int code = 0;
  {
    py::gil_scoped_release nogil;
    code = fdsim::sweep::sweep_command(o, fdsim::sweep::real_run_api(), out_text, err_text);
  }
  const std::vector<std::string> problems = lines_of(err_text.str());
  if (code == fdsim::sweep::kExitBadInput) raise_with_problems(g_input_error, problems);
  if (code != fdsim::sweep::kExitOk) raise_with_problems(g_run_error, problems);
  py::dict result;
  result["out"] = o.out_dir;
  result["summary"] = out_text.str().empty() ? std::string() : lines_of(out_text.str()).front();
  result["aggregate_csv"] = (std::filesystem::path(o.out_dir) / "aggregate.csv").string();
  result["aggregate_jsonl"] = (std::filesystem::path(o.out_dir) / "aggregate.jsonl").string();
  return result;
}

}  // namespace

PYBIND11_MODULE(fdsim, m) {
  m.doc() =
      "fdsim: a deterministic discrete-event simulator for failure detection and load sharing.\n"
      "validate(), run() and sweep() use the loader, engine and sweep code of the fdsim\n"
      "command: results are the dicts its result files hold, byte for byte.";
  m.attr("__version__") = FDSIM_VERSION;
  m.attr("git_revision") = FDSIM_GIT_REVISION;
  g_input_error = PyErr_NewExceptionWithDoc(
      "fdsim.InputError",
      "Bad input: .problems lists every problem, one line each, naming the JSON path.",
      PyExc_ValueError, nullptr);
  g_run_error = PyErr_NewExceptionWithDoc(
      "fdsim.RunError", "A run or sweep failed (not bad input): .problems lists why.",
      PyExc_RuntimeError, nullptr);
  m.add_object("InputError", py::handle(g_input_error));
  m.add_object("RunError", py::handle(g_run_error));

  m.def("validate", &validate, py::arg("scenario"), py::kw_only(), py::arg("set") = py::none(),
        "validate(scenario, *, set=None) -> dict | None\n\n"
        "Checks a scenario or sweep (dict, JSON string or path) like `fdsim validate`. Returns\n"
        "the resolved scenario (every default written in: the manifest's resolved_config, which\n"
        "`fdsim explain` prints), or None for a valid sweep; raises InputError listing every problem. `set` is {\"$.path\": value},\n"
        "as `--set PATH=VALUE`.");
  m.def("run", &run, py::arg("scenario"), py::kw_only(), py::arg("seed") = py::none(),
        py::arg("replications") = py::none(), py::arg("set") = py::none(),
        "run(scenario, *, seed=None, replications=None, set=None) -> list[dict]\n\n"
        "Runs replications 0..R-1 of a scenario (dict, JSON string or path) like `fdsim run`\n"
        "and returns one result dict per replication, the documents `fdsim run` writes\n"
        "(manifest, metrics, run_stats). The GIL is released while simulating.");
  m.def("sweep", &sweep, py::arg("sweep"), py::kw_only(), py::arg("out"), py::arg("jobs") = 1,
        py::arg("reference_arm") = py::none(),
        "sweep(sweep, *, out, jobs=1, reference_arm=None) -> dict\n\n"
        "Runs a sweep (dict, JSON string or path) into the output directory `out` like\n"
        "`fdsim sweep SWEEP --out OUT -j JOBS` (resumable: stored results are reused) and\n"
        "returns {out, summary, aggregate_csv, aggregate_jsonl}. Raises InputError for bad\n"
        "input, RunError when runs failed (their results stay stored).");
}
