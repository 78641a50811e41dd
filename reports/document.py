"""The stand-alone ``main.tex``: the preamble, the front page, the findings, one section per paper and,
when asked, the appendix."""

from __future__ import annotations

from collections.abc import Sequence

PREAMBLE = r"""\documentclass[10pt,a4paper]{article}
\usepackage[utf8]{inputenc}
\usepackage[a4paper,margin=1.5cm]{geometry}
\usepackage{amsmath,amssymb}
\usepackage{booktabs,longtable,array,graphicx,multicol}
\usepackage[font=small,labelfont=bf]{caption}
\usepackage{subcaption}
\usepackage[expansion=false]{microtype}
\usepackage[hidelinks]{hyperref}
\AtBeginDocument{\setlength{\LTcapwidth}{\textwidth}}
\renewcommand{\topfraction}{0.95}
\renewcommand{\bottomfraction}{0.9}
\renewcommand{\textfraction}{0.05}
\renewcommand{\floatpagefraction}{0.75}
\setcounter{topnumber}{3}
\setcounter{totalnumber}{4}
\setlength{\emergencystretch}{2em}
\setlength{\multicolsep}{4pt}
\setlength{\columnsep}{12pt}
\makeatletter\setlength{\@fptop}{0pt}\makeatother
\renewcommand{\labelitemi}{$\bullet$}
\newcommand{\notesize}{\fontsize{8}{9.6}\selectfont}
\newenvironment{compactlist}{\begin{list}{$\bullet$}{\setlength{\leftmargin}{1em}\setlength{\labelwidth}{0.6em}%
\setlength{\labelsep}{0.4em}\setlength{\itemsep}{1pt}\setlength{\parsep}{0pt}\setlength{\topsep}{2pt}}}{\end{list}}
\hypersetup{pdftitle={attncheck: theory against experiment}}
"""


def main_tex(papers: Sequence[str], *, appendix: bool = False) -> str:
    """The document: ``front.tex``, ``findings.tex``, ``<paper>.tex`` per paper (each from a new page)
    and, with ``appendix``, ``appendix.tex``."""
    lines = [PREAMBLE.rstrip("\n"), r"\begin{document}", r"\input{front.tex}", r"\clearpage"]
    lines.append(r"\input{findings.tex}")
    for p in papers:  # each paper on a new page, after the previous paper's figures
        lines += [r"\clearpage", rf"\input{{{p}.tex}}"]
    if appendix:
        lines += [r"\clearpage", r"\input{appendix.tex}"]
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"


__all__ = ["PREAMBLE", "main_tex"]
