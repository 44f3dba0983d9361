"""The embedded sandbox: an independent implementation of the banking API.

It imports app.core only, never app.api.
"""
