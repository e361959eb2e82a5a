"""Suite members found in the prepared data when the sweep starts (``discover:`` in a suite file)::

    discover:
      family: ud            # <data.root>/ud/<treebank>/ folders with a manifest.json
      require: train        # ... and this split file (train.conllu): the trainable ones
      recipe: ud            # each member is the recipe <recipe>/<treebank> (recipes/ud/<treebank>.yaml if it
                            # exists, else the generic ud recipe with data.language=<treebank>)

The data root is the recipe's ``data.root`` after the suite's and the command line's ``--set`` (so
``--set data.root=DIR`` sweeps the treebanks prepared with ``mlparse prepare ud --out DIR``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import List, Sequence

from mlparse.config import ConfigError, load_recipe

SUFFIXES = {"ud": ".conllu"}


@dataclass(frozen=True)
class Discover:
    family: str = "ud"
    require: str = "train"
    recipe: str = "ud"


def prepared_treebanks(root: Path, family: str, require: str) -> List[str]:
    """Names of the folders ``root/family/*`` holding ``manifest.json`` and ``<require><suffix>``, sorted."""
    folder = root / family
    if not folder.is_dir():
        return []
    suffix = SUFFIXES.get(family, ".trees")
    return sorted(path.name for path in folder.iterdir()
                  if (path / "manifest.json").is_file() and (path / f"{require}{suffix}").is_file())


def discovered_recipes(discover: Discover, overrides: Sequence[str], where: str) -> List[str]:
    """``<recipe>/<treebank>`` for every prepared treebank; an error naming the folder when there is none."""
    try:
        root = Path(load_recipe(discover.recipe, list(overrides)).data.root)
    except ConfigError as error:
        raise ConfigError(f"{where}: discover.recipe '{discover.recipe}': {error}") from None
    names = prepared_treebanks(root, discover.family, discover.require)
    if not names:
        raise ConfigError(f"{where}: no prepared {discover.family} treebank with a {discover.require} split in "
                          f"{root / discover.family} (run `mlparse prepare {discover.family} --source DIR "
                          f"--out {root}`, or point the sweep at the prepared data with --set data.root=DIR)")
    return [f"{discover.recipe}/{name}" for name in names]
