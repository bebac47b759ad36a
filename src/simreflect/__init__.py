"""simreflect: benchmarks where a deterministic simulator, not the model, decides whether an artefact works."""

__version__ = "0.1.0"
