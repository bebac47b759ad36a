"""Test infrastructure that ships with the package (used by our tests and by users' own)."""
