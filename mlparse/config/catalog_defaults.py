"""Recipe values whose default is the treebank catalog's: ``data.evalb_params``.

The catalog (``treebanks/*.yaml``) names the evalb parameter file of each family and language
(``evalb: spmrl.prm`` for SPMRL, ``COLLINS.prm`` for the PTB and the free treebanks).  A recipe that
does not set ``data.evalb_params`` is scored with that file.  A recipe whose data the catalog does
not describe keeps :class:`~mlparse.config.schema.DataConfig`'s default, ``COLLINS.prm``: a family or
language outside the catalog (test families, ``synthetic``), data given by explicit split paths
(``data.train``/``dev``/``test``), or a catalog entry that names no file (UD, scored by depeval).

The default is filled in when a recipe is loaded, before anything reads or hashes it, so the
runner, ``mlparse analyze`` and the run id all see the resolved file, and a run directory's
``recipe.yaml`` states it.
"""

from __future__ import annotations

from typing import Any, Mapping

from mlparse.config.schema import ConfigError, RecipeConfig


def apply_catalog_defaults(config: RecipeConfig, given: Mapping[str, Any], source: str = "recipe") -> RecipeConfig:
    """``config`` with ``data.evalb_params`` set from the catalog when ``given`` (the merged recipe data the
    config was built from, overrides included) does not set it.  Changes ``config`` in place and returns it."""
    section = given.get("data")
    if isinstance(section, Mapping) and "evalb_params" in section:
        return config
    data = config.data
    if data.train or data.dev or data.test:
        return config
    # The catalog module reads YAML only (no torch); imported here so that importing mlparse.config stays light.
    from mlparse.data.catalog import evalb_params_for
    from mlparse.data.specs import CatalogError

    try:
        params = evalb_params_for(data.family, data.language)
    except CatalogError as error:
        raise ConfigError(f"{source}: data.evalb_params is not set and the treebank catalog cannot give the "
                          f"file of {data.family}/{data.language} ({error}); set data.evalb_params.") from None
    if params:
        data.evalb_params = params
    return config
