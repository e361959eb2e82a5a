"""Facts about the machine and the moment of a run, recorded in its results.json: hardware, versions, times."""

from __future__ import annotations

import os
import platform
import sys
from datetime import datetime, timezone
from typing import Any, Dict

import mlparse.version


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def hardware_info(device: str) -> Dict[str, Any]:
    import torch

    info: Dict[str, Any] = {
        "device": device, "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(),
        "machine": platform.machine(), "platform": platform.platform(),
    }
    if device.startswith("cpu"):  # whether train.cpu_bf16 could take effect here (mlparse/train/cpu_bf16.py)
        from mlparse.train.cpu_bf16 import cpu_has_amx

        info["cpu_amx"] = cpu_has_amx()
    if device.startswith("cuda") and torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
        info["gpu_count"] = torch.cuda.device_count()
    return info


def versions() -> Dict[str, str]:
    import numpy
    import torch

    return {"python": sys.version.split()[0], "torch": torch.__version__, "numpy": numpy.__version__,
            "mlparse": mlparse.version.__version__}
