"""One renderer for the tables of this package: rows (dicts) and columns (key, title) to a terminal
table, Markdown, CSV, JSON or LaTeX (a booktabs tabular, as papers set their tables)."""
from __future__ import annotations

import csv
import io
import json

FORMATS = ("table", "md", "csv", "json", "latex")


def cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _latex_escape(text: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"),
                 ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\^{}")):
        text = text.replace(a, b) if a != "\\" else text.replace(a, "\x00")
    return text.replace("\x00", r"\textbackslash{}")


def latex(header: list[str], body: list[list[str]]) -> list[str]:
    lines = [r"\begin{tabular}{" + "l" * min(2, len(header)) + "r" * max(0, len(header) - 2) + "}", r"\toprule",
             " & ".join(map(_latex_escape, header)) + r" \\", r"\midrule"]
    lines += [" & ".join(map(_latex_escape, cells)) + r" \\" for cells in body]
    return lines + [r"\bottomrule", r"\end{tabular}"]


def text_table(header: list[str], body: list[list[str]], fmt: str) -> list[str]:
    """table, md or latex lines of cells already formatted."""
    if fmt == "latex":
        return latex(header, body)
    if fmt == "md":
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return lines + ["| " + " | ".join(cells) + " |" for cells in body]
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    return lines + ["  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() for cells in body]


def render(rows: list[dict], columns: list[tuple[str, str]], fmt: str, format_cell=cell) -> str:
    if fmt == "json":
        return json.dumps(rows, indent=2, default=str)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=[k for k, _ in columns], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
        return buf.getvalue()
    body = [[format_cell(row.get(k)) for k, _ in columns] for row in rows]
    return "\n".join(text_table([t for _, t in columns], body, fmt))
