"""Finding the evalset binary and calling it.

The package computes nothing itself: every set, run, score and comparison
is the binary's. The binary is installed beside the package as a script
(``<venv>/bin/evalset``, or the scripts folder of whichever scheme pip
installed into); ``EVALSET_BIN`` names another one (a build directory's).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from typing import Iterable, Optional, Sequence

__all__ = ["EvalsetError", "binary", "call"]


class EvalsetError(Exception):
    """The binary refused: ``message`` is its error text (FILE:LINE: problem),
    ``exit_code`` its exit code (2 bad input, 3 remote failure, 130
    interrupted), ``command`` the arguments it was given, ``stderr`` all it
    printed there."""

    def __init__(self, message: str, exit_code: int, command: Sequence[str], stderr: str = ""):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.command = list(command)
        self.stderr = stderr

    def __str__(self) -> str:
        return f"{self.message} (evalset exit {self.exit_code})"


def _candidates() -> Iterable[str]:
    env = os.environ.get("EVALSET_BIN")
    if env:
        yield env
        return
    exe = "evalset.exe" if os.name == "nt" else "evalset"
    seen = set()
    schemes = [None]
    if hasattr(sysconfig, "get_preferred_scheme"):
        schemes.append(sysconfig.get_preferred_scheme("user"))
    for scheme in schemes:
        try:
            d = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        if d and d not in seen:
            seen.add(d)
            yield os.path.join(d, exe)
    yield os.path.join(os.path.dirname(sys.executable), exe)
    found = shutil.which("evalset")
    if found:
        yield found


def binary() -> str:
    """Return the path of the evalset binary this package drives."""
    for path in _candidates():
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise EvalsetError("cannot find the evalset binary: install the package with pip, or set "
                       "EVALSET_BIN to its path", 2, [])


def _message(stderr: str) -> str:
    """The binary's error lines (what it said was wrong), else its last line."""
    errors = [l[len("error: "):] for l in stderr.splitlines() if l.startswith("error: ")]
    if errors:
        return "\n".join(errors)
    lines = [l for l in stderr.splitlines() if l.strip()]
    return lines[-1] if lines else "evalset failed without a message"


def call(args: Sequence[str], ok: Sequence[int] = (0,), cwd: Optional[str] = None,
         input: Optional[str] = None) -> subprocess.CompletedProcess:
    """Run ``evalset ARGS``; return the finished process (text stdout and
    stderr), or raise EvalsetError when its exit code is not in ``ok``."""
    cmd = [binary(), *[os.fspath(a) for a in args]]
    env = dict(os.environ)
    env.setdefault("NO_COLOR", "1")
    p = subprocess.run(cmd, cwd=cwd, input=input, capture_output=True, text=True, env=env)
    if p.returncode not in ok:
        raise EvalsetError(_message(p.stderr), p.returncode, cmd, p.stderr)
    return p
