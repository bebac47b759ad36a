"""Agents: whatever turns an observation into a program (model-backed or baseline)."""
