"""Zhang, Zhao, Gu, Cao (ICLR 2026): position-only attention learning bilinear teachers."""

from verify.core.papers import PaperInfo

PAPER = PaperInfo(
    key="zhang2026",
    title="Transformers Trained via Gradient Descent Can Provably Learn a Class of Teacher Models",
    authors="Zhang, Zhao, Gu, Cao",
    venue="ICLR 2026",
    year=2026,
    arxiv="2603.22801",
    short="position-only attention learns bilinear teachers at rate 1/T",
)
