"""``python -m benchcamp.studies.bigbench_containers.datagen``: see `writing.main`."""

from benchcamp.studies.bigbench_containers.datagen.writing import main

if __name__ == "__main__":  # not when a spawned worker re-imports this module as __mp_main__
    raise SystemExit(main())
