"""gpusim: a cycle-approximate GPU architecture simulator."""
__version__ = "0.1.0"
