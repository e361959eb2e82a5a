"""Measuring instruments shared by the tests and the benchmarks; not part of the mlparse package.

* ``dispatch_count``: ``DispatchCounter``, the torch operations and host syncs a block dispatches.
* ``transfer_count``: ``TransferCounter``, copies to the device that wait and reads back to the host.
* ``step_count``: both counters over one training update or one parsed batch (``count_update``,
  ``count_parse``, ``count_weight_casts``).
* ``memory_meter``: peak allocated bytes and the bytes of tensors saved for backward.
* ``dense_reference``: the span parser's former dense chart computation, the reference its packed
  scoring is checked against.

Import as ``benchmarks.instrumentation.<module>`` with the repository root on ``sys.path`` (a benchmark
script inserts it; pytest's ``pythonpath`` setting in ``pyproject.toml`` does for the tests).
"""
