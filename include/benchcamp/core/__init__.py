"""Models and pure helpers: records, study specs, paths, bounded waits, step commands (no campaign I/O)."""
