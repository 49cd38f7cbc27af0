"""The README is a short front page whose links lead into docs/, and the error codes' page names every code.

`make test` builds the pages with `mkdocs build --strict` before pytest, which fails on a broken link or anchor
between them; these tests hold what a build cannot see.
"""

from __future__ import annotations

import re
from pathlib import Path

from dawnboard.errors import ErrorCode, WarningCode

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
ERROR_CODES_PAGE = ROOT / "docs" / "submitting" / "error-codes.md"
FRONT_PAGE_MAX_LINES = 60  # two screens
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_every_error_code_has_a_row_in_the_error_codes_table():
    rows = [line for line in ERROR_CODES_PAGE.read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    first_cells = "\n".join(row.split(" | ")[0] for row in rows)

    missing = [code.value for code in ErrorCode if f"`{code.value}`" not in first_cells]

    assert not missing, f"codes with no row in {ERROR_CODES_PAGE.relative_to(ROOT)}: {missing}"


def test_every_warning_code_is_explained_on_the_error_codes_page():
    page = ERROR_CODES_PAGE.read_text(encoding="utf-8")

    missing = [code.value for code in WarningCode if f"`{code.value}`" not in page]

    assert not missing, f"warnings not named in {ERROR_CODES_PAGE.relative_to(ROOT)}: {missing}"


def test_the_readme_fits_on_two_screens():
    lines = README.read_text(encoding="utf-8").splitlines()

    assert len(lines) <= FRONT_PAGE_MAX_LINES, f"README.md has {len(lines)} lines: move the detail into docs/"


def test_the_readme_links_into_docs_pages_that_exist():
    targets = [target for target in LINK.findall(README.read_text(encoding="utf-8")) if "://" not in target]

    assert any(target.startswith("docs/") for target in targets)
    assert [target for target in targets if not (ROOT / target).is_file()] == []
