"""Connections: profiles and the sign-in dialog."""
