"""evalset from Python, with the evalset binary as the one engine: this
package finds the binary installed beside it and calls it (docs/python.md).
Nothing is computed here."""
from ._version import __version__
from ._binary import EvalsetError, binary, call

__all__ = ["__version__", "EvalsetError", "binary", "call"]
