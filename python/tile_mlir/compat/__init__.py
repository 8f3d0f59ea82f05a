"""Compatibility layers for code written for other tile languages."""
