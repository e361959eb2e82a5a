"""The counter of host-device copies that make a GPU wait (uploads without non_blocking, reads back),
which a dispatch counter on a CPU cannot see."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from mlparse.modules.transfer import to_device
from benchmarks.instrumentation.transfer_count import TransferCounter


def test_blocking_uploads_are_counted_and_non_blocking_ones_are_not() -> None:
    device = torch.device("cpu")
    host = torch.arange(4)
    with TransferCounter() as counter:
        host.to(device)  # a device named, not non_blocking: a full wait on a GPU
        host.to("cpu")
        torch.tensor([1, 2], device=device)  # host data copied to a device
        host.to(host)  # to another tensor's device
        host.to(device, non_blocking=True)
        host.to(device, torch.float32, True)  # non_blocking given by position
        host.to(torch.float64)  # a dtype only: no copy between devices
        torch.tensor([1, 2])  # stays on the host
        to_device(np.arange(3), device)  # pinned and non_blocking on CUDA
    assert counter.blocking_uploads == 4, dict(counter.where)
    assert counter.host_reads == 0
    assert all(site.startswith("test_transfer_count.py:") for _, site in counter.where)


def test_reads_back_to_the_host_are_counted() -> None:
    x = torch.randn(3)
    with TransferCounter() as counter:
        x.cpu()
        x.tolist()
        x[0].item()
        float(x[1])
        bool(x[2] > 0)
    assert counter.host_reads == 5 and counter.blocking_uploads == 0


def test_copies_made_inside_torch_are_not_the_callers() -> None:
    """clip_grad_norm_ moves its norms between devices in torch's own Python code: not counted."""
    layer = nn.Linear(3, 2)
    layer(torch.randn(4, 3)).sum().backward()
    with TransferCounter() as counter:
        torch.nn.utils.clip_grad_norm_(layer.parameters(), 1.0)
    assert counter.blocking_uploads == 0


def test_every_overload_of_to_is_read_by_position() -> None:
    device = torch.device("cpu")
    host = torch.arange(4)
    with TransferCounter() as counter:
        host.to(device, None, False, True)  # copy=True given by position is not non_blocking
        host.to(device, torch.int64, True, True)  # non_blocking by position
        host.to(torch.float32, True)  # a dtype only
        host.to(host, True)  # another tensor's device, non_blocking by position
        host.new_tensor([1, 2])  # host data on the tensor's device
    assert counter.blocking_uploads == 2, dict(counter.where)


def test_copies_inside_torch_are_listed_apart_at_the_callers_line() -> None:
    from torch.nn.utils.rnn import pack_padded_sequence

    with TransferCounter() as counter:
        pack_padded_sequence(torch.zeros(2, 3, 1), torch.tensor([1, 3]), batch_first=True, enforce_sorted=False)
    inside = {site: n for (kind, site), n in counter.where.items() if kind.endswith("inside torch")}
    assert counter.blocking_uploads == 0 and inside
    assert all(site.startswith("test_transfer_count.py:") for site in inside)
