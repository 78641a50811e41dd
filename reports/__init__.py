"""Consumers of claim results: LaTeX tables (:mod:`reports.latex`), figures (:mod:`reports.figures`),
the report builder (:mod:`reports.build`). Generated files go to ``reports/out/`` (git-ignored). The
committed tightness baseline, ``reports/baseline/quick.json``, is read by the gate in
:mod:`verify.core.gate`."""
