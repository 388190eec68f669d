"""The kind of each arm (detector kind, diagnosis), read from a run's resolved config.

Contract: arm_kinds(resolved_config) maps every arm name found in the arm lists of
metric_names.ARM_LISTS to its kind ("phi_accrual", "fixed", "hou_shin", ...); arms it cannot
find are absent (callers then fall back to the arm name). Never raises on odd configs.
"""

from . import metric_names as names
from .paths import MISSING, get_config


def arm_kinds(resolved_config):
    kinds = {}
    if not isinstance(resolved_config, dict):
        return kinds
    for list_path, kind_path, default in names.ARM_LISTS:
        arms = get_config(resolved_config, list_path)
        if not isinstance(arms, list):
            continue
        for arm in arms:
            if not isinstance(arm, dict) or not isinstance(arm.get("name"), str):
                continue
            kind = get_config(arm, kind_path)
            if kind is MISSING or not isinstance(kind, str):
                kind = default
            if kind is not None:
                kinds.setdefault(arm["name"], kind)
    return kinds


def table_arm_kinds(table):
    """{point: {arm: kind}} from table.point_configs."""
    return {p: arm_kinds(cfg) for p, cfg in table.point_configs.items()}
