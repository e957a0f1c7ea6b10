"""The typed schema of `pipeline/parameters.yml` and `pipeline/ranking.yml`.

Every assumption has a kind (a number, a list of numbers, a formula written out as text) and a range.
YAML is forgiving in ways that silently break numbers (`1.0e9` is read as the text "1.0e9"), so a
value is accepted only when it already is what the rule says: a bad value stops the build with the
file, the key and the rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import yaml

from .errors import Problem, SourceError
from .sourcefiles.files import load_yaml


@dataclass(frozen=True)
class Rule:
    kind: str  # "number", "list" or "text"
    lo: float | None = None
    hi: float | None = None
    integer: bool = False


def _n(lo, hi, integer=False):
    return Rule("number", lo, hi, integer)


def _l(lo, hi, integer=False):
    return Rule("list", lo, hi, integer)


TEXT = Rule("text")
FRACTION = _n(0.0, 1.0)

RULES: dict[str, Rule] = {
    # bytes per value
    "bytes_fp32": _n(4, 4),
    "bytes_bf16": _n(2, 2),
    "bytes_fp8": _n(1, 1),
    "bytes_int8": _n(1, 1),
    "bytes_int4": _n(0.5, 0.5),
    # bits per weight of checkpoint formats
    "bits_int8_weight_only": _n(8, 9),
    "bits_int4_g128": _n(4, 5),
    "bits_int4_g32": _n(4, 5),
    "bits_nvfp4": _n(4, 5),
    "bits_mxfp4": _n(4, 5),
    "bits_gguf_q8_0": _n(8, 9),
    "bits_gguf_q4_0": _n(4, 5),
    "bits_gguf_q4_k": _n(4, 5),
    "bits_gguf_q6_k": _n(6, 7),
    "gguf_q4_k_m_q6_k_share": FRACTION,
    "bits_nf4_double_quant": _n(4, 5),
    "bits_fp8": _n(8, 9),
    "bits_fp8_block": _n(8, 8.1),
    # memory budget
    "usable_memory_fraction": _n(0.5, 1.0),
    "runtime_overhead_gb": _n(0, 64),
    "runtime_overhead_fraction": _n(0, 0.5),
    # scenarios
    "inference_contexts": _l(1, 10_000_000, True),
    "inference_batches": _l(1, 4096, True),
    "serving_batch": _n(1, 4096, True),
    "reference_context": _n(1, 10_000_000, True),
    "training_context": _n(1, 10_000_000, True),
    "training_micro_batch": _n(1, 4096, True),
    "gpu_counts": _l(1, 8, True),
    "tensor_parallel_degrees": _l(1, 8, True),
    "gpus_per_node": _n(1, 72, True),
    "lora_rank": _n(1, 4096, True),
    "lora_state_bytes": _n(1, 64),
    "full_ft_state_bytes": _n(1, 64),
    # activations
    "activation_formula": TEXT,
    "flash_attention": _n(0, 1, True),
    "dropout_masks": _n(0, 1, True),
    "logits_bytes_per_element": _n(0, 16),
    # speed
    "training_mfu": _n(0.01, 1.0),
    "training_calibration_min_context": _n(64, 1_048_576, True),
    "training_calibration_max_context": _n(512, 1_048_576, True),
    "prefill_mfu": _n(0.01, 1.0),
    "serving_moe_overhead_layers": _n(1, 1_000, True),
    "serving_max_batch": _n(1, 100_000, True),
    "serving_max_batch_large": _n(1, 100_000, True),
    "value_max_gpus": _n(1, 64, True),
    "first_token_fit_max_concurrency": _n(1, 1_000, True),
    "serving_fit_window_days": _n(30, 3_650, True),
    "serving_architecture_min_publications": _n(1, 100, True),
    "serving_architecture_min_gpus": _n(1, 100, True),
    "serving_model_level_min_figures": _n(1, 1_000, True),
    "serving_model_level_min_gpus": _n(1, 100, True),
    "serving_decode_efficiency_default": _n(0.01, 1.0),
    "serving_compute_efficiency_default": _n(0.01, 1.0),
    "min_calibration_points": _n(1, 1000, True),
    "bound_tolerance": _n(0, 0.2),
    "allreduce_latency_us_nvlink": _n(0, 1000),
    "allreduce_latency_us_pcie": _n(0, 1000),
    "pcie_gbs": _n(1, 1000),
    "finetune_tokens": _n(1e3, 1e15),
    "pretrain_tokens_per_param": _n(1, 10_000),
    # prices
    "price_max_age_days": _n(1, 3650, True),
    "marketplace_min_sample": _n(1, 10_000, True),
    # ownership
    "server_price_usd": _n(1_000, 10_000_000),
    "server_gpus": _n(1, 72, True),
    "amortisation_years": _n(0.5, 20),
    "server_power_kw": _n(0.1, 200),
    "electricity_usd_per_kwh": _n(0.0, 2.0),
    "pue": _n(1.0, 3.0),
    "rack_usd_per_month": _n(0, 100_000),
    "servers_per_rack": _n(1, 64, True),
    "hours_per_year": _n(8760, 8784),
    "gpu_host_share": _n(0, 5),
}

ENTRY_KEYS = {"value", "unit", "description", "citation"}


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_value(name: str, value, rule: Rule) -> str | None:
    """The broken rule, or None."""
    if rule.kind == "text":
        return None if isinstance(value, str) and value.strip() else "must be a non-empty text"
    items = value if rule.kind == "list" else [value]
    if rule.kind == "list" and (not isinstance(value, list) or not value):
        return "must be a non-empty list of numbers"
    for item in items:
        if not _is_number(item):
            hint = ""
            if isinstance(item, str):
                hint = " (YAML reads a value such as 1.0e9 as text: write 1.0e+9 or 1000000000)"
            return "must be a number" + hint
        if rule.integer and float(item) != int(item):
            return "must be a whole number"
        if (rule.lo is not None and item < rule.lo) or (rule.hi is not None and item > rule.hi):
            return f"must be between {rule.lo:g} and {rule.hi:g}"
    return None


def check_parameters(data, file: str) -> list[Problem]:
    if not isinstance(data, dict):
        return [Problem(file, None, None, "must be a mapping of parameter names to {value, unit, description}")]
    problems = []
    for name, spec in data.items():
        rule = RULES.get(name)
        if rule is None:
            problems.append(
                Problem(file, None, str(name), "unknown parameter (known: " + ", ".join(sorted(RULES)) + ")")
            )
            continue
        if not isinstance(spec, dict) or "value" not in spec:
            problems.append(Problem(file, None, name, "must be a mapping with a value, a unit and a description"))
            continue
        extra = set(spec) - ENTRY_KEYS
        if extra:
            problems.append(Problem(file, None, name, f"unknown keys {sorted(extra)}; allowed: {sorted(ENTRY_KEYS)}"))
        for key in ("unit", "description"):
            if not isinstance(spec.get(key), str) or not spec[key].strip():
                problems.append(Problem(file, None, f"{name}.{key}", "required text is missing"))
        broken = _check_value(name, spec["value"], rule)
        if broken:
            problems.append(Problem(file, None, f"{name}.value", broken, repr(spec["value"])))
    for name in sorted(set(RULES) - set(data)):
        problems.append(Problem(file, None, name, "required parameter is missing"))
    return problems


def check_ranking(data, file: str) -> list[Problem]:
    if not isinstance(data, dict):
        return [Problem(file, None, None, "must be a mapping with training, inference and the reference models")]
    problems = []
    for key in ("reference_model", "reference_training_model"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            problems.append(Problem(file, None, key, "must name a model_id"))
    for workload in ("training", "inference"):
        comps = data.get(workload)
        if not isinstance(comps, dict) or not comps:
            problems.append(Problem(file, None, workload, "must map score components to {weight, description}"))
            continue
        total = 0.0
        for comp, spec in comps.items():
            weight = spec.get("weight") if isinstance(spec, dict) else None
            if not _is_number(weight) or not 0 <= weight <= 1:
                problems.append(
                    Problem(file, None, f"{workload}.{comp}.weight", "must be a number between 0 and 1", repr(weight))
                )
                continue
            total += weight
        if not problems and abs(total - 1.0) > 1e-6:
            problems.append(Problem(file, None, workload, "weights must add up to 1", f"{total:g}"))
    return problems


def read_yaml(path: Path) -> object:
    try:
        return load_yaml(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SourceError([Problem(str(path), None, None, f"not valid UTF-8 YAML: {exc}")]) from exc


def load(parameters_file: Path, ranking_file: Path) -> tuple[dict, dict]:
    """Both files, checked; a SourceError lists every broken rule."""
    params, ranking = read_yaml(parameters_file), read_yaml(ranking_file)
    problems = check_parameters(params, _shown(parameters_file)) + check_ranking(ranking, _shown(ranking_file))
    if problems:
        raise SourceError(problems)
    return params, ranking


def _shown(path: Path) -> str:
    parts = path.resolve().parts
    return "/".join(parts[-2:]) if len(parts) >= 2 else str(path)
