"""The pace suite: adapt a 2D physical design program (Box2D) from a source environment to mutated targets.

Keep this file free of imports: it is visible inside the sandbox, where only `api` and `runner`
of this package exist.
"""
