"""Writing our tasks in formats other harnesses run."""
