"""The bundled benchmark suites; installed as pytest_memeval.suites."""
