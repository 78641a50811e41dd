"""LaTeX rendering of claim results, one module per part of the report (this module gathers their
public names): :mod:`reports.front` (the run and the summary), :mod:`reports.findings` (the findings
first), :mod:`reports.table` and :mod:`reports.section` (per paper: the table, the figures, the answers
to referee questions and the reconstruction's mismatches), :mod:`reports.appendix` (every row's details
and the errata, optional) and :mod:`reports.document` (``main.tex``).

Every value goes through :mod:`reports.typeset` and every piece of text through :mod:`reports.text`.
Rows follow the paper's order (:func:`reports.order.reference_key`); each row carries a label
(``row:<claim>``) that the findings link to, and its details in the appendix carry ``det:<claim>``.
"""

from __future__ import annotations

from reports.appendix import appendix_tex, details_table, errata_tex
from reports.common import claim_name, label, paper_title, seeds_text, sorted_results
from reports.document import PREAMBLE, main_tex
from reports.findings import findings_section
from reports.floats import Panel, figures_tex
from reports.front import RunInfo, bibliography, front_page, run_info, summary_table
from reports.section import paper_section
from reports.table import paper_table

__all__ = [
    "PREAMBLE",
    "Panel",
    "RunInfo",
    "appendix_tex",
    "bibliography",
    "claim_name",
    "details_table",
    "errata_tex",
    "figures_tex",
    "findings_section",
    "front_page",
    "label",
    "main_tex",
    "paper_section",
    "paper_table",
    "paper_title",
    "run_info",
    "seeds_text",
    "sorted_results",
    "summary_table",
]
