"""Optional dependencies: the one error every checkraise feature raises when one is missing.

The engine needs only numpy; each adapter needs its library, installed with an extra of the
package (``pip install 'checkraise[gymnasium]'``). A feature whose library cannot be imported
raises :class:`MissingDependencyError` (an ``ImportError``) naming the extra to install, and the
import's own error is kept as its ``__cause__``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

#: The extras of the package (pyproject.toml's ``[project.optional-dependencies]``): each one's
#: Python modules. ``all`` installs every one.
EXTRAS: dict[str, tuple[str, ...]] = {
    "gymnasium": ("gymnasium",),
    "pettingzoo": ("pettingzoo", "gymnasium"),
    "openspiel": ("pyspiel",),
    "grpc": ("grpc", "google.protobuf", "jsonpatch"),
    "render": ("PIL",),
    "arena": ("tqdm", "pandas"),
    "train": ("jax", "optax", "matplotlib"),
    "rllib": ("ray.rllib", "torch"),
    "sb3": ("stable_baselines3", "sb3_contrib", "gymnasium"),
    "notebook": ("anywidget",),
    "datasets": ("minari", "pyarrow", "gymnasium", "PIL"),
}


class MissingDependencyError(ImportError):
    """A feature's optional dependency is not installed; the message names the extra that
    installs it (``pip install 'checkraise[gymnasium]'``)."""

    def __init__(self, feature: str, extra: str, error: ImportError | None = None) -> None:
        """``feature`` (``"checkraise.gymnasium"``) needs the modules of ``extra``; ``error``
        is the import's own error, quoted in the message."""
        if extra not in EXTRAS:
            raise ValueError(f"unknown extra {extra!r}; the extras are {', '.join(EXTRAS)}")
        modules = " and ".join(EXTRAS[extra])
        reason = f" ({error})" if error is not None else ""
        super().__init__(
            f"{feature} needs {modules}, which could not be imported{reason}: "
            f"pip install 'checkraise[{extra}]'",
            name=error.name if error is not None else None,
        )
        self.feature = feature
        """What needed the dependency (``"checkraise.gymnasium"``)."""
        self.extra = extra
        """The extra that installs it (``"gymnasium"``)."""


@contextmanager
def requires(feature: str, extra: str) -> Iterator[None]:
    """Imports made in the ``with`` block are ``feature``'s dependencies from ``extra``: one
    that fails raises :class:`MissingDependencyError`, the import's error as its cause."""
    try:
        yield
    except ImportError as error:
        raise MissingDependencyError(feature, extra, error) from error
