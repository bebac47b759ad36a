"""Turning records into results: per-episode rows, summary tables, bootstrap intervals."""
