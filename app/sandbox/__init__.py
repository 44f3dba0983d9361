"""The embedded sandbox: an independent implementation of the banking API (imports app.core only)."""
