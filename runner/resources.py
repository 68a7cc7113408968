"""Where the suite's files are: tasks/, agents/, the Dockerfiles, scripts/images/ and the fixture task
of `gauntlet agents check`. In a checkout (editable installs, tests) they are the checkout's own; a
non-editable install (`pip install .`) carries a copy as package data under runner/suite/
(pyproject.toml). Standard library only."""
from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
IMPORT_ROOT = PACKAGE.parent   # the folder that holds runner/: what PYTHONPATH needs to import it


def suite_root() -> Path:
    """The folder holding tasks/, agents/, Dockerfile.*, scripts/ (the checkout, or runner/suite/)."""
    checkout = PACKAGE.parent
    if (checkout / "agents").is_dir() and (checkout / "tasks").is_dir() and (checkout / "runner") == PACKAGE:
        return checkout
    return PACKAGE / "suite"
