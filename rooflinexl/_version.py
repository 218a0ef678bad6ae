"""The package version: read by pyproject (setuptools attr) and the release workflow."""
__version__ = "0.1.0"
