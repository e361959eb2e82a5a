"""Tasks: constituency and dependency parsing. Each reads prepared splits, writes predictions and scores them."""
