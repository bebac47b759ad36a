"""PACE-Bench's own tasks as a simreflect suite, loaded from a checkout the user names (README.md)."""
