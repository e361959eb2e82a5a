"""The dispatched-operation counter used by the GPU benchmark's device-independent rows."""

from __future__ import annotations

import torch
from torch import nn

from benchmarks.instrumentation.dispatch_count import DispatchCounter


def test_counts_every_operation_of_a_toy_module_and_the_syncs():
    torch.manual_seed(0)
    layer = nn.Linear(4, 3)
    x = torch.randn(2, 4)
    with DispatchCounter() as counter:
        y = layer(x)  # one addmm (plus views)
    assert counter.counts["aten.addmm"] == 1 and counter.host_syncs == 0
    with DispatchCounter() as counter:
        for _ in range(5):
            y = y + 1
        value = float(y.detach().sum())  # one .item()-style read
        picked = y[y > 0]  # boolean mask: a data-dependent shape
    assert counter.counts["aten.add"] == 5
    assert counter.syncs["aten._local_scalar_dense"] == 1
    assert counter.host_syncs == 2
    assert counter.total >= 8 and isinstance(value, float) and picked.dim() == 1


def test_backward_operations_are_counted_too():
    layer = nn.Linear(3, 1)
    with DispatchCounter() as forward_only:
        layer(torch.ones(2, 3)).sum()
    with DispatchCounter() as both:
        layer(torch.ones(2, 3)).sum().backward()
    assert both.total > forward_only.total


def test_views_are_told_apart_from_operations_that_compute():
    x = torch.randn(4, 6)
    with DispatchCounter() as counter:
        y = x[:, 1:3].t()  # two views: no kernel on a GPU
        z = y * 2  # one operation that computes
        z.add_(1)  # and another
    assert counter.views == 2 and counter.computing == 2 and counter.total == 4
    assert counter.summary()["computing"] == 2
