"""The bundled studies, one folder each (spec.yaml). Generic layers never import this package."""
