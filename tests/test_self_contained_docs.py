"""The repository stands on its own: no tracked file cites the team's spec files (kept outside
the repository) or the numbers of the original design documents. Rules are stated in
docs/games/, and a source design is named by its title."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = re.compile(r"\b(RULES|DESIGN|STYLE)\.md\b|\bseed 00[0-4]\b|\.\./shared\b")


def test_no_file_cites_documents_outside_the_repository():
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()
    assert files, "not a git checkout"
    found = []
    for name in files:
        if name == "tests/test_self_contained_docs.py":
            continue
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{name}:{number}: {line.strip()[:120]}")
    assert not found, "\n".join(found)
