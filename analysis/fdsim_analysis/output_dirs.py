"""Where outputs go when the command line does not say (--out absent).

Contract: a figure or report is written next to the input it came from (a sweep folder, or the
folder of the run files), except that a repository's committed results/ folder is never
written to by default: committed_results() recognises such a folder (a folder named `results`
whose parent holds `.git`, a directory or a worktree's file), and default_output_dir() then
maps the input to <repository>/out/figures/<path below results/> (out/ is not tracked) and
appends a note saying so.
"""

import os


def committed_results(directory):
    """(repository root, path below results/) if `directory` lies in the results/ folder of a
    git checkout, else None."""
    d = os.path.abspath(directory)
    cur = d
    while True:
        parent = os.path.dirname(cur)
        if parent == cur:
            return None
        if os.path.basename(cur) == "results" and os.path.exists(os.path.join(parent, ".git")):
            return parent, os.path.relpath(d, cur)
        cur = parent


def default_output_dir(base, notes, subdir=None):
    """`base`/`subdir` (or `base` itself), unless `base` is in a committed results/ folder:
    then <repository>/out/figures/<path below results/>, with a note appended to `notes`."""
    committed = committed_results(base)
    if committed is None:
        return os.path.join(base, subdir) if subdir else base
    root, below = committed
    out_dir = os.path.normpath(os.path.join(root, "out", "figures", below))
    notes.append(f"{base} is in the committed results/ folder; the output goes to {out_dir} "
                 "(use --out to choose)")
    return out_dir
