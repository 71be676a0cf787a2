"""Runs a Python script of the repository the way a user would: in a child process with this
interpreter, its output captured as text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_python(
    script: Path, *args: str, timeout: float, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Runs ``python script *args`` (in ``cwd``, default this process's); a failure is the
    caller's to check (``returncode``, ``stderr``)."""
    return subprocess.run(
        [sys.executable, str(script), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )
