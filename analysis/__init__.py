"""fdsim analysis: figures and tables from fdsim result files (Python 3, numpy, matplotlib).

The package is `analysis.fdsim_analysis`; the figure-role -> metric-path mapping lives in
`analysis.metric_names`. Run from the repository root:
    /usr/bin/python3 -m analysis.fdsim_analysis --help
"""
