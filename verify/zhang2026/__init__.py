"""Zhang, Zhao, Gu, Cao (ICLR 2026): position-only attention learning bilinear teachers."""
