"""Recipes: typed dataclasses, YAML loading with ``base:`` inheritance, overrides, validation.

:mod:`mlparse.config.schema` holds the section dataclasses and the checks on a
resolved recipe; :mod:`mlparse.config.loading` reads recipe files (line-numbered
errors, ``base:`` chains, ``--set`` overrides, bundled recipes by name).  Both are
re-exported here: ``from mlparse.config import load_recipe, RecipeConfig`` is the
usual entry point.  Any unknown key is an error that names the valid keys and the
closest match.
"""

from mlparse.config.loading import (
    apply_overrides,
    deep_merge,
    load_raw,
    load_recipe,
    parse_override,
    recipe_from_yaml_text,
    recipes_dir,
    resolve_recipe,
)
from mlparse.config.schema import (
    SECTIONS,
    TOP_LEVEL_KEYS,
    VALID_CHOICES,
    BiaffineConfig,
    PretrainedConfig,
    ConfigError,
    DataConfig,
    EvalConfig,
    JointConfig,
    ModelConfig,
    RecipeConfig,
    SpanConfig,
    TaggerConfig,
    TrainConfig,
    sections_of_kind,
)
from mlparse.config.validation import from_dict, validate

__all__ = [
    "SECTIONS", "TOP_LEVEL_KEYS", "VALID_CHOICES", "BiaffineConfig", "ConfigError", "DataConfig", "EvalConfig", "JointConfig",
    "ModelConfig", "PretrainedConfig", "RecipeConfig", "SpanConfig", "TaggerConfig", "TrainConfig", "apply_overrides", "deep_merge", "from_dict", "load_raw",
    "load_recipe",
    "parse_override", "recipe_from_yaml_text", "recipes_dir", "resolve_recipe", "sections_of_kind", "validate",
]
