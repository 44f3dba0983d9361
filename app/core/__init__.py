"""Pure domain: no I/O, no Qt."""
