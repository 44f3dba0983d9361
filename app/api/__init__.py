"""Async service layer over httpx: no Qt."""
