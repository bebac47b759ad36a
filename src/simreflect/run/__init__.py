"""Running agents on tasks: the episode loop, the append-only store, the parallel runner."""
