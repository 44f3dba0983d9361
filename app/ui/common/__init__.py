"""Widgets and models the areas share."""
