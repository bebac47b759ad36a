"""View of the flywheel."""


def view(env):
    return (-1.6, -1.1, 1.6, 1.0)


def overlays(env):
    return []
