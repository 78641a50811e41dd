"""zfb2024's claims under attncheck's claim battery (verify.testing): each claim's verdict, its
stability at other seed sets, its alternative world and its paper profile."""

from verify.testing import Check, parametrize_with_claims


@parametrize_with_claims("zfb2024")
def test_claim(check: Check) -> None:
    check()
