"""What the test modules share, in modules that are not test modules.

A test module never imports another one: pytest would collect its tests a second time under the
importer's namespace, and the importer would need the other's folder on sys.path. Fixtures
shared across folders are plugins tests/conftest.py registers (`pytest_plugins`); plain helpers
(recorded records, constants, clients) are imported as `helpers.<module>` (tests/ is on sys.path:
pytest's default `prepend` import mode puts tests/conftest.py's folder there).
"""
