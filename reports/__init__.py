"""Consumers of claim results: LaTeX tables (:mod:`reports.latex`), figures (:mod:`reports.figures`),
the report builder (:mod:`reports.build`) and the tightness baseline (:mod:`reports.baseline`).
Generated files go to ``reports/out/`` (git-ignored); the baseline is committed."""
