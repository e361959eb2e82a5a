"""The time-budget options of the commands that train (``--max-minutes`` of run, sweep and ensemble, ``--minutes``
of demo): checked before anything is prepared or trained."""

from __future__ import annotations

from typing import Optional

from mlparse.cli.errors import fail


def checked_minutes(minutes: Optional[float], option: str) -> Optional[float]:
    """``minutes`` when it is a finite number of minutes, 0 or more (or None: the recipe's); else the command
    ends with one line naming ``option`` (NaN would never stop training, a negative budget would act as 0)."""
    from mlparse.config import ConfigError
    from mlparse.config.validation import check_minutes

    try:
        check_minutes(minutes, option)
    except ConfigError as error:
        fail(error, 2)
    return minutes
