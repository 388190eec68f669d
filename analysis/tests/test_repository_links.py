"""The repository is self-contained: its documentation links resolve, and nothing points outside.

- Every relative link and image in a tracked markdown file (docs/, README.md, the model READMEs,
  results/**/README.md, ...) names a file or folder that exists; a link with a #fragment into a
  markdown file names a heading of that file (GitHub's anchor rule).
- No tracked text file mentions a `spec/...` path that does not exist in the checkout, or a
  `shared/` / `../shared` path (the project's inputs outside the repository).

Needs git (the tracked files); skipped outside a git checkout, e.g. in an installed copy.
"""

import os
import re
import shutil
import subprocess
import unicodedata
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_FENCE = re.compile(r"^(```|~~~).*?^\1\s*$", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
_SPEC_PATH = re.compile(r"(?<![A-Za-z0-9_./-])([A-Za-z0-9_./-]*\bspec/[A-Za-z0-9_./-]*)")
_SHARED_PATH = re.compile(r"(?<![A-Za-z0-9_])shared/")
_TEXT_SUFFIXES = (".md", ".h", ".cpp", ".py", ".sh", ".json", ".txt", ".cmake", ".toml", ".go",
                  ".yml", ".yaml", ".in", ".puml", ".csv")


def tracked_files():
    proc = subprocess.run(["git", "-C", REPO_ROOT, "ls-files", "-z"], capture_output=True)
    if proc.returncode != 0:
        return None
    return [p for p in proc.stdout.decode("utf-8", "replace").split("\0") if p]


def read_text(rel):
    with open(os.path.join(REPO_ROOT, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def github_anchor(heading):
    """GitHub's heading id: markup dropped, lower case, punctuation other than '-' and '_'
    removed, spaces to '-'."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.replace("*", "").lower()
    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " -_" or cat[0] in "LMN" or cat == "Pc":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def anchors_of(markdown):
    seen = {}
    out = set()
    for m in _HEADING.finditer(_FENCE.sub("", markdown)):
        base = github_anchor(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def markdown_links(markdown):
    """Link targets outside code blocks and code spans."""
    text = _INLINE_CODE.sub("", _FENCE.sub("", markdown))
    return [m.group(1) for m in _LINK.finditer(text)]


class RepositoryLinks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if shutil.which("git") is None:
            raise unittest.SkipTest("git is not installed")
        cls.files = tracked_files()
        if cls.files is None:
            raise unittest.SkipTest(f"{REPO_ROOT} is not a git checkout")

    def test_every_relative_markdown_link_resolves(self):
        problems = []
        md_files = [p for p in self.files if p.endswith(".md")]
        self.assertIn("docs/models/README.md", md_files)
        anchor_cache = {}
        for rel in md_files:
            text = read_text(rel)
            for target in markdown_links(text):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                path, _, fragment = target.partition("#")
                if path:
                    dest = os.path.normpath(os.path.join(os.path.dirname(rel), path))
                    if dest.startswith(".."):
                        problems.append(f"{rel}: link {target} leaves the repository")
                        continue
                    if not os.path.exists(os.path.join(REPO_ROOT, dest)):
                        problems.append(f"{rel}: link {target}: no such file {dest}")
                        continue
                else:
                    dest = rel
                if fragment and dest.endswith(".md"):
                    if dest not in anchor_cache:
                        anchor_cache[dest] = anchors_of(read_text(dest))
                    if fragment not in anchor_cache[dest]:
                        problems.append(f"{rel}: link {target}: no heading #{fragment} in {dest}")
        self.assertEqual(problems, [], "\n" + "\n".join(problems))

    def test_nothing_points_at_missing_spec_files_or_outside_inputs(self):
        problems = []
        for rel in self.files:
            if not rel.endswith(_TEXT_SUFFIXES) and os.path.basename(rel) not in (
                    "CMakeLists.txt", "fdsim-analysis"):
                continue
            if rel == "analysis/tests/test_repository_links.py":
                continue  # this file names the patterns it looks for
            for lineno, line in enumerate(read_text(rel).splitlines(), 1):
                if _SHARED_PATH.search(line):
                    problems.append(f"{rel}:{lineno}: mentions a shared/ path: {line.strip()}")
                for m in _SPEC_PATH.finditer(line):
                    path = m.group(1)
                    base = os.path.join(REPO_ROOT, os.path.dirname(rel))
                    if not (os.path.exists(os.path.join(REPO_ROOT, path)) or
                            os.path.exists(os.path.join(base, path))):
                        problems.append(f"{rel}:{lineno}: mentions {path}, which does not exist")
        self.assertEqual(problems, [], "\n" + "\n".join(problems))

    def test_the_checks_catch_what_they_are_for(self):
        # The anchor rule on headings of the kind the docs use.
        self.assertEqual(github_anchor("3. Load sharing (scope: `load_sharing`)"),
                         "3-load-sharing-scope-load_sharing")
        self.assertEqual(github_anchor("Remaining differences from Geode's source (`current`), "
                                       "and their consequences"),
                         "remaining-differences-from-geodes-source-current-and-their-consequences")
        self.assertEqual(github_anchor("The Hou–Shin optimal timeout T_out[i]"),
                         "the-houshin-optimal-timeout-t_outi")
        self.assertEqual(anchors_of("# A\n## A\n```\n# not a heading\n```\n"), {"a", "a-1"})
        # Links in code are not links; images are.
        self.assertEqual(markdown_links("see [x](a.md#b) and `[y](c.md)` ![i](p.png)\n"
                                        "```\n[z](d.md)\n```\n"), ["a.md#b", "p.png"])
        self.assertTrue(_SPEC_PATH.search("as spec/metrics.md section 5 asks"))
        self.assertTrue(_SHARED_PATH.search("see ../shared/design.md"))
        self.assertFalse(_SPEC_PATH.search("sim/sweep/sweep_spec.h"))
        self.assertFalse(_SHARED_PATH.search("std::shared_ptr<X> p;"))


if __name__ == "__main__":
    unittest.main()
