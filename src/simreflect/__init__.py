"""simreflect: benchmarks where a deterministic simulator, not the model, decides whether an artefact works."""

__version__ = "0.1.0"


def make(suite: str, **kwargs):
    """The suite as a Gymnasium environment (see simreflect.core.env.RepairEnv for the options)."""
    import gymnasium as gym

    from simreflect.envs import env_id

    return gym.make(env_id(suite), **kwargs)
