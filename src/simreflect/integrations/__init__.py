"""Adapters that put simreflect's suites into other frameworks' own APIs (Inspect AI, verifiers)."""
