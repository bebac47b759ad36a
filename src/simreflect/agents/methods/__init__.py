"""Methods: strategies around a model agent that decide what it is shown and asked between attempts."""
