#!/usr/bin/python3
"""Replaces the generated field tables of docs/scenario-format.md with those `fdsim schema
scenario --markdown` printed (scripts/update-format-tables.sh runs it).

  fill_format_tables.py GENERATED_MARKDOWN DOC

Each table is the block from "<!-- generated table: ID" to "<!-- end of generated table -->";
the text around the blocks is kept. Exit 1 (with the reason) when DOC has a block that is no
longer generated or lacks a placeholder block for a new table.
"""
import re
import sys


def main(generated_path, doc_path):
    generated = open(generated_path, encoding="utf-8").read()
    doc = open(doc_path, encoding="utf-8").read()
    block = re.compile(r"<!-- generated table: (\S+) .*?<!-- end of generated table -->\n", re.S)
    new = {m.group(1): m.group(0) for m in block.finditer(generated)}
    seen = set()

    def repl(m):
        seen.add(m.group(1))
        if m.group(1) not in new:
            sys.exit(f"{doc_path}: table {m.group(1)} is no longer generated; remove it by hand")
        return new[m.group(1)]

    doc = block.sub(repl, doc)
    missing = sorted(set(new) - seen)
    if missing:
        sys.exit(f"{doc_path}: add a placeholder block for the new table(s) {', '.join(missing)}")
    open(doc_path, "w", encoding="utf-8").write(doc)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
