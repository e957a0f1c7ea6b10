"""Errors that name the file, the row, the column and the rule."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    file: str
    row: int | None  # 1-based line number in the file (the header is line 1)
    column: str | None
    rule: str
    value: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.row is not None:
            where += f", row {self.row}"
        if self.column:
            where += f", column '{self.column}'"
        shown = "" if self.value is None else f" (value: {self.value!r})"
        return f"{where}: {self.rule}{shown}"


class SourceError(Exception):
    """A source file broke a rule. Carries every problem found, not only the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        lines = [str(p) for p in problems[:50]]
        more = len(problems) - len(lines)
        if more > 0:
            lines.append(f"... and {more} more")
        super().__init__(f"{len(problems)} problem(s) in sources:\n  " + "\n  ".join(lines))
