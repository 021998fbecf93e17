"""A campaign from plan to warehouse: run, archive, validate, load, transform, import."""
