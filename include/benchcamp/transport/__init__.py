"""Reaching a target: SSH steps, the environment facts, the HiveServer2 runner."""
