"""Text for LaTeX, one import for the report's modules: escaping and the plain-ASCII mathematics of notes,
statements and errata (:mod:`reports.mathtext`), and markdown (:mod:`reports.markdown`)."""

from __future__ import annotations

from reports.markdown import markdown_notes
from reports.mathtext import GREEK, clean, code, escape, prose, sentence

__all__ = ["GREEK", "clean", "code", "escape", "markdown_notes", "prose", "sentence"]
