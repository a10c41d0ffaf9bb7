"""Root conftest of the checkout.

Kept free of pytest_plugins on purpose: pytester runs in tests/ collect the bundled
suites from this directory, where a non-root conftest may not declare plugins (pytester
itself is enabled with `-p pytester` in pyproject.toml).
"""
