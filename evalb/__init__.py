"""evalb: an exact port of the EVALB and evalb_spmrl bracket scorers."""
