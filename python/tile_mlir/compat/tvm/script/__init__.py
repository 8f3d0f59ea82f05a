from . import tirx

__all__ = ["tirx"]
