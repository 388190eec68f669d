// fdsim schema scenario|sweep [--markdown]: the JSON Schema (draft 2020-12) of scenario or
// sweep files, generated from the loader's own field checks (sim/run/schema_explorer.h), or
// the reference tables of docs/scenario-format.md.

#include <iostream>
#include <memory>
#include <string>

#include "sim/cli/commands.h"
#include "sim/run/schema_explorer.h"
#include "sim/sweep/sweep_schema.h"

namespace fdsim::cli {

namespace {
struct SchemaArgs {
  std::string what;
  bool markdown = false;
};
}  // namespace

void add_schema_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SchemaArgs>();
  CLI::App* sub = app.add_subcommand(
      "schema", "Print the JSON Schema of scenario or sweep files (for editors and validators)");
  sub->add_option("kind", args->what, "scenario or sweep")
      ->required()
      ->check(CLI::IsMember({"scenario", "sweep"}));
  sub->add_flag("--markdown", args->markdown,
                "Print the field reference tables of docs/scenario-format.md instead (scenario)");
  sub->footer(
      "The schema is draft 2020-12, built from the same checks the loader makes (types, ranges,\n"
      "enums, defaults, units, descriptions). A scenario may name it with \"$schema\"; fdsim\n"
      "ignores that key.\n"
      "Examples:\n"
      "  fdsim schema scenario > scenario.schema.json\n"
      "  fdsim schema sweep > sweep.schema.json\n"
      "  fdsim schema scenario --markdown\n");
  sub->callback([args, &exit_code] {
    std::vector<std::string> problems;
    const scenario::Shapes shapes = run::scenario_shapes();
    std::string text;
    if (args->markdown) {
      if (args->what != "scenario") {
        std::cerr << "fdsim: error: --markdown is only available for \"scenario\"\n";
        exit_code = kExitBadInput;
        return;
      }
      text = scenario::markdown_tables(shapes, problems);
    } else if (args->what == "scenario") {
      text = scenario::scenario_schema(shapes, problems).dump(2) + "\n";
    } else {
      text = sweep::sweep_schema(shapes, problems).dump(2) + "\n";
    }
    // Problems here are inconsistencies between the readers and sim/scenario/field_docs.cpp.
    for (const auto& p : problems) std::cerr << "fdsim: internal error: " << p << "\n";
    std::cout << text;
    exit_code = problems.empty() ? kExitOk : kExitInternal;
  });
}

}  // namespace fdsim::cli
