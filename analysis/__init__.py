"""The analysis package's source root. The package is `fdsim_analysis` (analysis/fdsim_analysis,
with its roles -> metric paths in fdsim_analysis/metric_names.py). Run it with
scripts/fdsim-analysis from anywhere, or `python3 -m fdsim_analysis` with analysis/ on sys.path;
from the repository root `python3 -m analysis.fdsim_analysis` also works (the package's imports
are all relative). This file only keeps that last form and the test discovery
(python3 -m unittest discover -s analysis/tests -t .) working.
"""
