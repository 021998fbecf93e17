"""Operating the project: the benchcamp CLI, make up/down (stack) and the local lab."""
