"""Where the THIRD-PARTY and QUESTION statements of the paper come from, and how reliable each source is
(the ``source=`` of a claim; the docs and the report print it)."""

#: The four ICLR 2026 reviews: OpenReview forum ukiRIdgoIF (submission 23129); a public copy of all four
#: sits in the public repository index under id 62095747931. Class (A): independent reviewers.
REVIEWS = (
    "the ICLR 2026 OpenReview reviews of the paper (forum ukiRIdgoIF, submission 23129; public copy: "
    "repository index id 62095747931); class (A), independent reviewers"
)
#: An LLM-written English paper note (public repository index id 61482435700; a Chinese version is id
#: 60778695311). Class (B): an AI-generated summary, lower reliability.
NOTE = (
    "an LLM-written paper note on the paper (public repository index id 61482435700); class (B), an "
    "AI-generated summary, lower reliability"
)


def reviewers(what: str) -> str:
    """The reviews as the source of ``what`` (which reviewer states what)."""
    return f"{what}, in {REVIEWS}"
