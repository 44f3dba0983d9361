"""The card gateway's pure domain: the compatibility matrix, decimal amounts, cards."""
